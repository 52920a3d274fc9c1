// RemoveNoOp: drops statements that do nothing: evaluating a constant, loops and ifs whose
// bodies do nothing, empty sequences.
#pragma once

#include "ir/transform.h"

namespace wb::transform {

ir::Pass RemoveNoOp();

}  // namespace wb::transform
