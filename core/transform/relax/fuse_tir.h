// FuseTIR: turns each `Primitive` Relax function that FuseOps made into one PrimFunc, and its
// calls into one call_tir.
//
// The kernels of the group are inlined one after another into a PrimFunc of the group's name:
// its parameters are the group's tensor parameters (tuples flattened, in order), then its
// results (`p_output0`, ...), then the symbolic vars of a trailing `R.Shape` parameter, as TVM
// orders them. Values passed between the kernels become `T.alloc_buffer`s of the root block
// named `<buffer>_intermediate`; every inlined definition is fresh and block names are made
// unique (`compute`, `compute_1`). Like the kernels LegalizeOps builds, the result is an s_tir
// function with `tirx.noalias`. Callers pass tuple arguments field by field. Afterwards the
// module holds only the functions still referenced: the Primitive functions and the kernels
// that only they called are gone.
#pragma once

#include "ir/transform.h"

namespace wb::transform {

ir::Pass FuseTIR();

}  // namespace wb::transform
