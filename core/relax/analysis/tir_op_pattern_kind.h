// What kind of computation a PrimFunc is, for operator fusion: TVM's AnalyzeOpPatternKind.
//
// FuseOps decides what to group from the pattern of each kernel a Relax function calls
// (elementwise into a matmul's epilogue, injective chains, ...). After LegalizeOps every kernel
// is a PrimFunc, so the pattern is read off the TensorIR itself: every block is expected to be
// one BufferStore (what create_prim_func makes) and the relation between its store indices and
// its load indices says elementwise / broadcast / injective; a block with a reduction axis is a
// reduction, or out-elementwise-fusable when it is a multiply-accumulate (matmul, conv) or reads
// through non-trivial reduction indices (pooling). Anything else is opaque. The whole function
// takes the most general kind of its blocks.
#pragma once

#include "relax/op/registry.h"
#include "tir/stmt.h"

namespace wb::relax {

// The pattern of `func`, as TVM's relax.analysis computes it (same rules, same results).
OpPatternKind AnalyzeOpPatternKind(const tir::PrimFunc& func);

}  // namespace wb::relax
