// Elementwise: every block data-parallel. Producers that are not outputs are inlined into their
// consumers (one pass over memory, no intermediate buffer in global memory); each block left has
// its loops fused and split into blockIdx.x x threadIdx.x (kThreadsPerBlock threads, fewer for a
// small block; a split that does not divide the extent guards the last block's threads).
#include <algorithm>

#include "dlight/analysis.h"
#include "dlight/gpu/rules.h"

namespace wb::dlight::gpu {

namespace {

// CUDA's limit on gridDim.x.
constexpr int64_t kMaxBlocks = (int64_t{1} << 31) - 1;

std::optional<schedule::Schedule> Apply(const tir::PrimFunc& func, const codegen::Target&) {
  schedule::Schedule sch(SingleFunctionModule(func));
  std::vector<BlockInfo> blocks = GetBlockInfos(sch);
  if (blocks.empty()) return std::nullopt;
  for (const BlockInfo& b : blocks) {
    if (!b.IsSpatial() || !b.simple_nest || b.loops.empty()) return std::nullopt;
  }
  for (size_t k = 0; k + 1 < blocks.size(); ++k) {
    try {
      sch.ComputeInline(blocks[k].rv);
    } catch (const schedule::ScheduleError&) {
      // An output, or read in a way inlining cannot express: it stays a kernel of its own.
    }
  }
  for (const BlockInfo& b : GetBlockInfos(sch)) {
    schedule::LoopRV fused = b.loops.size() == 1 ? b.loops[0] : sch.Fuse(b.loops);
    std::optional<int64_t> extent = ConstExtent(sch.Get(fused)->extent);
    if (!extent) return std::nullopt;  // symbolic: DefaultGPUSchedule's grid-stride form
    const int64_t threads = std::min(kThreadsPerBlock, *extent);
    if ((*extent + threads - 1) / threads > kMaxBlocks) return std::nullopt;
    std::vector<schedule::LoopRV> split = sch.Split(fused, {std::nullopt, threads});
    sch.Bind(split[0], "blockIdx.x");
    sch.Bind(split[1], "threadIdx.x");
  }
  return sch;
}

}  // namespace

ScheduleRule Elementwise() { return {"Elementwise", Apply}; }

}  // namespace wb::dlight::gpu
