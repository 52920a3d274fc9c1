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

// Waking the pool's threads costs ~10-30 us on a loaded 2-core host (a parallel loop of ~30 K
// multiply-adds took 12-37 us against 4-5 us serial), so a loop goes parallel only with well
// over that much work on the calling thread: loops over fewer elements than this stay serial
// (~30-60 us of elementwise work)...
inline constexpr int64_t kMinParallelElements = 1 << 17;
// ... and kernels of fewer multiply-adds than this (a matmul's, a reduction's) run on one thread.
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
