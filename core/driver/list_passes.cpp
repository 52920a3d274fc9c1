// `workbench --batch --list-passes`: the registered passes with their arguments and docs, and
// the named pipelines and the pass config keys.
#include <ostream>

#include "driver/commands.h"
#include "transform/pass_control.h"
#include "transform/registry.h"

namespace wb::driver {

int RunListPassesCommand(std::ostream& out) {
  out << "passes:\n";
  for (const auto* entry : transform::PassRegistry::Global().Passes()) {
    out << "  " << entry->name;
    if (!entry->params.empty()) {
      out << "(";
      for (size_t i = 0; i < entry->params.size(); ++i) {
        out << (i ? ", " : "") << entry->params[i].name;
      }
      out << ")";
    }
    out << "  -- " << entry->doc << "\n";
  }
  auto pipelines = transform::PassRegistry::Global().Pipelines();
  if (!pipelines.empty()) {
    out << "pipelines:\n";
    for (const auto& name : pipelines) {
      out << "  " << name << " = " << *transform::PassRegistry::Global().FindPipeline(name) << "\n";
    }
  }
  auto configs = transform::PassConfigRegistry::Global().Options();
  if (!configs.empty()) {
    out << "pass config keys (--pass-config KEY=JSON):\n";
    for (const auto* option : configs) {
      out << "  " << option->key << "  -- " << option->doc << "\n";
      for (const auto& field : option->fields) {
        out << "    " << field.name << ": " << transform::ParamTypeName(field.type) << ", default "
            << transform::ParamValueText(field.default_value) << "  -- " << field.doc << "\n";
      }
    }
  }
  return 0;
}

}  // namespace wb::driver
