// CompactBufferAllocation: shrinks every block allocation to the part of it that is accessed.
// For a buffer allocated by block B, the indices of all its accesses under B are relaxed over
// the loops (and block iteration variables) inside B; the covering box, in terms of what is
// fixed at B, becomes the new shape and its start is subtracted from every index. After
// PlanAndUpdateBufferAllocationLocation has put allocations inside loops, a (64, 64)
// intermediate read one row per iteration becomes a (1, 64) buffer.
//
// A dimension is only shrunk when the new extent is provably no larger than the old one;
// buffers with explicit strides or an element offset are left alone.
#pragma once

#include "ir/transform.h"

namespace wb::transform {

ir::Pass CompactBufferAllocation();

}  // namespace wb::transform
