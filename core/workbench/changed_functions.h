// The "changed functions only" view of a pass: the functions a pass rewrote (or added or
// removed), so that a module of fifty functions shows the two the pass touched.
#pragma once

#include <string>
#include <vector>

#include "ir/expr.h"

namespace wb::workbench {

// Names of the functions that differ between `before` and `after` (structural hash), in the
// order of `before` then the functions only `after` has.
std::vector<std::string> ChangedFunctions(const ir::IRModule& before, const ir::IRModule& after);

// `module` restricted to the functions named in `names` (module attributes kept).
ir::IRModule OnlyFunctions(const ir::IRModule& module, const std::vector<std::string>& names);

}  // namespace wb::workbench
