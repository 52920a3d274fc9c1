// VerifyGPUBinding: every memory access of a GPU function must run on GPU threads. A block
// (or, in lowered TIR, a store) that is not inside a loop bound to blockIdx/threadIdx or a
// T.launch_thread would run on the host, touching device memory it cannot reach: the pass
// fails with an error naming the block and pointing at it (TVM's VerifyMemory: "Did you forget
// to bind?"), with a note for every further unbound block. Functions already split into host
// and device (calling_conv 2 kernels and their callers' packed calls) are not checked.
#pragma once

#include "ir/transform.h"

namespace wb::transform {

ir::Pass VerifyGPUBinding();

}  // namespace wb::transform
