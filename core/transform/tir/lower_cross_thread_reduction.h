// LowerCrossThreadReduction: a reduction block whose reduction loop is bound to threadIdx
// becomes two blocks, as in TVM: "<block>_cross_thread" reduces every thread's value into a
// local buffer "cross_thread_<buffer>" with T.tvm_thread_allreduce (under a "reduce_scope"
// attribute holding the reducer; the block's predicate masks the values), and
// "<block>_write_back" stores the result from the first thread (T.where(tx == 0)). The reducer
// comes from the update `B[i] = B[i] op value` (op: +, *, max, min) with the init value as its
// identity. Supported: every reduction loop of the block bound to the same thread axis (TVM
// also splits off an in-thread serial part, which is reported here as unsupported).
#pragma once

#include "ir/transform.h"

namespace wb::transform {

ir::Pass LowerCrossThreadReduction();

}  // namespace wb::transform
