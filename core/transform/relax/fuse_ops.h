// FuseOps: groups the kernels of each dataflow block that should run as one, TVM's way.
//
// Every binding `lv = R.call_tir(cls.f, ...)` is a node whose pattern is f's `op_pattern`
// (AnnotateTIROpPattern sets it; calls of anything else are opaque). The block's graph is
// partitioned by the post-dominator rules of relax/analysis/graph_partitioner.h, and each group of
// more than one binding becomes a private Relax function with attribute `Primitive`, named
// `fused_` + its kernels' names (`fused_matmul_add_relu`), that the block calls instead:
//
//   lv = R.call_tir(cls.matmul, (x, w), ...)         lv2 = cls.fused_matmul_add_relu(x, w, b)
//   lv1 = R.call_tir(cls.add, (lv, b), ...)     ->
//   lv2 = R.call_tir(cls.relu, (lv1,), ...)
//
// The group's free inputs (vars and constants) become its parameters in order of first use;
// values that other bindings or the rest of the function use become its results (a tuple when
// there are several). Symbolic dims are renamed per function, and dims the parameters cannot
// define are passed as a trailing `R.Shape` parameter. Identical groups share one function.
// FuseTIR then turns each group into one PrimFunc.
//
// `fuse_opt_level` -1 takes the PassContext's opt_level; 0 fuses nothing. The PassContext
// option {"relax.FuseOps": {"max_depth": N}} bounds the size of a group (default 256).
#pragma once

#include "ir/transform.h"

namespace wb::transform {

ir::Pass FuseOps(int fuse_opt_level = -1);

}  // namespace wb::transform
