// Fallback: always applies. Each block is scheduled on its own, and a block whose steps do not
// apply keeps what was applied before the failing one (each primitive keeps the meaning):
// data-parallel blocks get the spatial loop schedule; a reduction whose data-parallel loops are
// outermost runs them fused and parallel (when its multiply-adds pay for the threads), its
// reduction loops serial inside.
#include "dlight/cpu/rules.h"
#include "dlight/cpu/spatial.h"

namespace wb::dlight::cpu {

namespace {

void ScheduleBlock(schedule::Schedule& sch, const BlockInfo& b, const CpuParams& params) {
  if (!b.simple_nest || b.loops.empty()) return;
  if (b.IsSpatial()) {
    ScheduleSpatialLoops(sch, b.loops, b.WidestDType(), params);
    return;
  }
  if (!b.IsReduction() || !b.ReductionInnermost()) return;
  std::vector<schedule::LoopRV> spatial;
  for (size_t k = 0; k < b.loops.size(); ++k) {
    if (b.block->iter_vars[k]->iter_type == tir::IterVarType::kDataPar)
      spatial.push_back(b.loops[k]);
  }
  if (spatial.empty()) return;
  std::optional<int64_t> rows = LoopElements(sch, spatial);
  // Threads pay for a reduction by its multiply-adds (the bundled convnet's 3x3 convolutions,
  // ~30 K of them, took 3-8x longer parallel than on the calling thread).
  std::optional<int64_t> all = LoopElements(sch, b.loops);
  if (all && *all < kMinParallelMultiplyAdds) return;
  if (rows && *rows < 2) return;
  schedule::LoopRV fused = spatial.size() == 1 ? spatial[0] : sch.Fuse(spatial);
  sch.Parallel(fused);
}

std::optional<schedule::Schedule> Apply(const tir::PrimFunc& func, const codegen::Target& target) {
  schedule::Schedule sch(SingleFunctionModule(func));
  CpuParams params = CpuParamsOf(target);
  for (const BlockInfo& b : GetBlockInfos(sch)) {
    try {
      ScheduleBlock(sch, b, params);
    } catch (const schedule::ScheduleError&) {
      // This block keeps the steps that applied; the others are scheduled regardless.
    }
  }
  return sch;
}

}  // namespace

ScheduleRule Fallback() { return {"Fallback", Apply}; }

}  // namespace wb::dlight::cpu
