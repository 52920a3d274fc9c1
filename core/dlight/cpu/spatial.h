// The loop schedule every CPU rule gives data-parallel loops: the innermost loop vectorized at
// the target's width where its extent is a multiple of it (otherwise left serial, so that LLVM's
// loop vectorizer covers it with a remainder loop: odd and symbolic extents stay vectorized
// without a per-lane branch), the loops outside it fused and parallel when there is enough
// work to pay for starting the threads.
#pragma once

#include <vector>

#include "dlight/analysis.h"
#include "schedule/schedule.h"

namespace wb::dlight::cpu {

// Parallel loops with fewer iterations' worth of elements than this stay serial.
inline constexpr int64_t kMinParallelElements = 1 << 14;
// The multiply-adds below which a matmul runs on one thread (~10 us of work at 50 GFLOP/s).
inline constexpr int64_t kMinParallelMultiplyAdds = 1 << 18;

// Schedules `loops` (outer to inner, each driving one data-parallel iterator of `block`), whose
// elements are of `dtype` at most. `parallel`: make the outer part parallel (false when the
// loops already sit inside a parallel loop).
void ScheduleSpatialLoops(schedule::Schedule& sch, const std::vector<schedule::LoopRV>& loops,
                          ir::DataType dtype, const CpuParams& params, bool parallel = true);

// The product of the loops' extents, or nullopt when one is symbolic.
std::optional<int64_t> LoopElements(schedule::Schedule& sch,
                                    const std::vector<schedule::LoopRV>& loops);

}  // namespace wb::dlight::cpu
