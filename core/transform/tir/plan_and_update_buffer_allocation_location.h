// PlanAndUpdateBufferAllocationLocation: moves each block allocation (`T.sblock_alloc_buffer`)
// to the lowest point that still covers all of its uses: the lowest common ancestor (a loop or
// a block) of every access. At a block it becomes one of the block's allocations; at a loop the
// loop body is wrapped in a new opaque block that allocates it. Allocating where the buffer is
// used lets CompactBufferAllocation shrink it to what one iteration touches. A buffer nothing
// accesses stays where it was.
//
// The new blocks' T.reads / T.writes are the regions their body accesses (nested blocks'
// iteration variables replaced by their bindings, inner loops relaxed), except the buffers
// they allocate.
#pragma once

#include "ir/transform.h"

namespace wb::transform {

ir::Pass PlanAndUpdateBufferAllocationLocation();

}  // namespace wb::transform
