// relax.nonzero's run-time half (TVM's relax.run.nonzero): the coordinates of the non-zero
// elements of an array, whose count is known only when it runs, so the VM and the Relax
// interpreter call this function instead of a kernel.
#pragma once

#include "runtime/ndarray.h"

namespace wb::runtime {

// An int64 array (ndim, count) whose column j holds the coordinates of the j-th non-zero element
// of `x` in row-major order (NumPy's nonzero stacked; a 0-d `x` counts as 1-D, as
// numpy.atleast_1d). `x` must be on the CPU.
NDArray NonZero(const NDArray& x);

}  // namespace wb::runtime
