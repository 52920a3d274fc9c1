// One editor widget for a typed value of the registries (a pass argument, a pass config field):
// a spin box for an int or a float, a check box for a bool, a line for a string or a list of
// strings. The pipeline composer's argument form and the pass control form are built of these,
// so both read and write values the same way.
#pragma once

#include <QWidget>
#include <functional>

#include "transform/registry.h"

namespace wb::app {

struct ParamEditor {
  QWidget* widget = nullptr;
  // Shows a value without reporting it as an edit.
  std::function<void(const ir::ObjectRef&)> show;
};

// The editor of `param` showing `value`; `on_change` gets every value the user sets.
ParamEditor MakeParamEditor(const transform::PassParam& param, const ir::ObjectRef& value,
                            std::function<void(ir::ObjectRef)> on_change);

}  // namespace wb::app
