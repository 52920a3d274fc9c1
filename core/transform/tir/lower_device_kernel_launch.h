// LowerDeviceKernelLaunch: the calls SplitHostDevice left in host functions become kernel
// launches, `T.call_packed("<kernel>", args..., launch values...)`, and each called device
// PrimFunc gets the attributes the CUDA codegen and runtime read (codegen/cuda/codegen_cuda.h):
// calling_conv 2, its global_symbol, and "tir.kernel_launch_params", the launch axes in order
// of first launch (then "tir.use_dyn_shared_memory" when it uses dynamic shared memory). The
// launch values are the kernel's thread extents (and dynamic shared bytes) rewritten in terms
// of the call's arguments, so symbolic extents are computed on the host.
#pragma once

#include "ir/transform.h"

namespace wb::transform {

ir::Pass LowerDeviceKernelLaunch();

}  // namespace wb::transform
