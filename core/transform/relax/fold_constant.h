// FoldConstant: evaluates at compile time the calls whose inputs are all constants, through the
// Relax interpreter (relax/interpreter.h): call_tir of a PrimFunc on constant tensors, and op
// calls on constants (legalized for the evaluation with LegalizeOps's LegalizeCall). The call
// becomes an R.const and the uses of its var read the constant, so chains fold in one run; the
// bindings stay for DeadCodeElimination. Calls that cannot be evaluated (no legalization, an impure op, a
// result above 1M elements) are left as they are.
#pragma once

#include "ir/transform.h"

namespace wb::transform {

ir::Pass FoldConstant();

}  // namespace wb::transform
