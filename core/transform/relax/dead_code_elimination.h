// DeadCodeElimination: removes the bindings whose value is never used and whose evaluation has no
// side effect (pure op calls, tuples, calls of pure functions), inside dataflow and plain blocks,
// If branches and nested functions alike; and removes the module's private functions that no
// entry function reaches. Entry functions are the externally visible ones (with a global_symbol)
// and the private ones named in `entry_functions`. A match_cast that
// defines symbolic vars is kept: later types may name them.
#pragma once

#include <string>
#include <vector>

#include "ir/transform.h"

namespace wb::transform {

ir::Pass DeadCodeElimination(std::vector<std::string> entry_functions = {});

}  // namespace wb::transform
