// AnnotateTIROpPattern: records on every PrimFunc of the module the operator pattern that FuseOps
// groups by, as the `op_pattern` attribute (TVM's OpPatternKind as an int: 0 elementwise,
// 1 broadcast, 2 injective, 3 reduction, 4 out-elementwise-fusable, 8 opaque).
//
// The pattern comes from the TensorIR (relax/analysis/tir_op_pattern_kind.h), so kernels that
// LegalizeOps produced and hand-written ones are treated alike. A function that already carries
// `op_pattern` keeps it: a user or an earlier pass may know better than the analysis.
#pragma once

#include "ir/transform.h"

namespace wb::transform {

ir::Pass AnnotateTIROpPattern();

}  // namespace wb::transform
