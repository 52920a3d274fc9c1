// What a block's declared reads leave out, shared by every place that infers them (the TVMScript
// parser for blocks written without T.reads, the schedule's region inference after a rewrite).
#pragma once

#include <vector>

#include "tir/stmt.h"

namespace wb::tir {

// A block with an init reads the buffers it writes only as the accumulator the init starts, so
// TVM's region detection (GetSBlockReadWriteRegion) leaves them out of the block's reads. Returns
// `reads` without the regions of buffers in `writes` when `has_init`, else `reads` unchanged.
std::vector<BufferRegion> WithoutAccumulatorReads(std::vector<BufferRegion> reads,
                                                  const std::vector<BufferRegion>& writes,
                                                  bool has_init);

}  // namespace wb::tir
