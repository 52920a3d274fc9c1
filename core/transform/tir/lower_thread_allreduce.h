// LowerThreadAllreduce: a cross-thread reduction, `T.tvm_thread_allreduce(1, value, cond,
// result.data, tx)` under its "reduce_scope" attribute (the reducer), becomes code every thread
// of the block runs, leaving the group's reduced value in result[0] of every thread:
//  - over up to 32 threads (a power of two): warp shuffles down, then a broadcast from the
//    group's first lane (tvm_warp_shuffle_down / tvm_warp_shuffle, width = the group size);
//  - over a multiple of 32 threads (up to 1024): a shuffle reduction in each warp, the warps'
//    partial values through shared memory between two barriers, a second shuffle reduction;
//  - over any other count: every thread's value through shared memory, each thread combining
//    its group's values in order.
// The reduction runs over threadIdx.x; threadIdx.y/z (when launched) index independent groups.
// Reductions of several values at once (argmax) are reported as unsupported.
#pragma once

#include "ir/transform.h"

namespace wb::transform {

ir::Pass LowerThreadAllreduce();

}  // namespace wb::transform
