// LowerCrossThreadReduction: a reduction block whose reduction loop is bound to threadIdx
// becomes two blocks, as in TVM: "<block>_cross_thread" reduces every thread's value into a
// local buffer "cross_thread_<buffer>" with T.tvm_thread_allreduce (under a "reduce_scope"
// attribute holding the reducer; the block's predicate masks the values), and
// "<block>_write_back" stores the result from the first thread (T.where(tx == 0)). The reducer
// comes from the update `B[i] = B[i] op value` (op: +, *, max, min) with the init value as its
// identity. When the reduction loops around the block (a chain of them, nothing else between)
// also include serial ones, as TVM each thread first reduces its serial share into a local
// "normal_reduce_temp_<buffer>" (blocks "<block>_in_thread_init" and "<block>_in_thread", the
// thread loop moved outside the serial ones), and the threads then reduce those. Not supported
// (an error naming the block): reductions bound to two thread axes, or serial reduction loops
// that are not in the chain directly around the block.
#pragma once

#include "ir/transform.h"

namespace wb::transform {

ir::Pass LowerCrossThreadReduction();

}  // namespace wb::transform
