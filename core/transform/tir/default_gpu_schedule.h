// DefaultGPUSchedule(max_threads_per_block=1024): binds the unbound blocks of simple kernels
// to GPU threads, as TVM's default_gpu_schedule.cc does: for each leaf block none of whose
// loops is bound yet, its data-parallel loops are fused into one loop, which is split into
// blockIdx.x and threadIdx.x loops of up to max_threads_per_block threads (or, when the fused
// extent is symbolic or exceeds max_threads_per_block * 256, into a serial loop outside 256
// blocks of max_threads_per_block threads). Reduction loops stay serial inside each thread; a
// block without data-parallel loops gets a unit loop to bind. Blocks whose loops are not a
// plain nest (a reduction loop outside a spatial one) are reported, naming the block.
#pragma once

#include <cstdint>

#include "ir/transform.h"

namespace wb::transform {

ir::Pass DefaultGPUSchedule(int64_t max_threads_per_block = 1024);

}  // namespace wb::transform
