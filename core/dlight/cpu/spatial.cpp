#include "dlight/cpu/spatial.h"

namespace wb::dlight::cpu {

using schedule::LoopRV;

std::optional<int64_t> LoopElements(schedule::Schedule& sch, const std::vector<LoopRV>& loops) {
  int64_t n = 1;
  for (const LoopRV& loop : loops) {
    std::optional<int64_t> e = ConstExtent(sch.Get(loop)->extent);
    if (!e) return std::nullopt;
    n *= *e;
  }
  return n;
}

void ScheduleSpatialLoops(schedule::Schedule& sch, const std::vector<LoopRV>& loops,
                          ir::DataType dtype, const CpuParams& params, bool parallel) {
  if (loops.empty()) return;
  std::optional<int64_t> elements = LoopElements(sch, loops);
  const int64_t lanes = params.Lanes(dtype);
  std::vector<LoopRV> outer(loops.begin(), loops.end() - 1);
  LoopRV inner = loops.back();
  std::optional<int64_t> extent = ConstExtent(sch.Get(inner)->extent);
  bool vectorized = false;
  if (lanes > 1 && extent && *extent % lanes == 0) {
    if (*extent > lanes) {
      std::vector<LoopRV> split = sch.Split(inner, {std::nullopt, lanes});
      outer.push_back(split[0]);
      inner = split[1];
    }
    sch.Vectorize(inner);
    vectorized = true;
  }
  if (!parallel || (elements && *elements < kMinParallelElements)) return;
  if (outer.empty()) {
    // One loop left serial: parallel over it, each task's chunk is a plain loop LLVM vectorizes.
    if (!vectorized) sch.Parallel(inner);
    return;
  }
  LoopRV fused = outer.size() == 1 ? outer[0] : sch.Fuse(outer);
  sch.Parallel(fused);
}

}  // namespace wb::dlight::cpu
