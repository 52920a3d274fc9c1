// SplitHostDevice: every thread-launch region of a PrimFunc (an outermost `T.launch_thread` of
// blockIdx/threadIdx, i.e. a thread_extent attribute) becomes a device PrimFunc of the module,
// "<func>_kernel" (then "<func>_kernel_1", ...), called from the host function in its place.
// The region's free variables become the kernel's parameters (pointers first, then scalars,
// each group by name, as TVM orders them); buffers it uses but does not allocate are declared
// at the top of the kernel over those pointers. The host function keeps its name and
// parameters. LowerDeviceKernelLaunch then turns the call into a kernel launch.
#pragma once

#include "ir/transform.h"

namespace wb::transform {

ir::Pass SplitHostDevice();

}  // namespace wb::transform
