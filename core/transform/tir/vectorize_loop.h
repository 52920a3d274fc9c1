// VectorizeLoop: a `T.vectorized` loop of constant extent N becomes its body computed once on
// N-lane vectors: the loop variable becomes T.Ramp(min, 1, N), loop-invariant operands are
// T.Broadcast, and loads and stores take vector indices. The result is what code generators
// emit as SIMD instructions.
//
// What cannot be vectorized falls back as in TVM: a statement that needs a per-lane decision
// (an `if` whose condition varies across lanes, a store of a varying value to a fixed place, an
// inner loop whose bounds vary) runs as a serial loop over the lanes in place; a loop whose
// extent is not a constant, or whose body allocates memory, calls something impure or holds
// blocks, becomes a plain serial loop.
#pragma once

#include "ir/transform.h"

namespace wb::transform {

ir::Pass VectorizeLoop();

}  // namespace wb::transform
