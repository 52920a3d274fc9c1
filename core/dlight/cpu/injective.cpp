// Injective: every block data-parallel. Producers that are not outputs are inlined into their
// consumers (no intermediate buffer, one pass over memory); each block left gets the spatial
// loop schedule (spatial.h).
#include "dlight/cpu/rules.h"
#include "dlight/cpu/spatial.h"

namespace wb::dlight::cpu {

namespace {

std::optional<schedule::Schedule> Apply(const tir::PrimFunc& func, const codegen::Target& target) {
  schedule::Schedule sch(SingleFunctionModule(func));
  std::vector<BlockInfo> blocks = GetBlockInfos(sch);
  if (blocks.empty()) return std::nullopt;
  for (const BlockInfo& b : blocks) {
    if (!b.IsSpatial() || !b.simple_nest) return std::nullopt;
  }
  for (size_t k = 0; k + 1 < blocks.size(); ++k) {
    try {
      sch.ComputeInline(blocks[k].rv);
    } catch (const schedule::ScheduleError&) {
      // An output, or read in a way inlining cannot express: it stays a stage of its own.
    }
  }
  CpuParams params = CpuParamsOf(target);
  for (const BlockInfo& b : GetBlockInfos(sch)) {
    ScheduleSpatialLoops(sch, b.loops, b.WidestDType(), params);
  }
  return sch;
}

}  // namespace

ScheduleRule Injective() { return {"Injective", Apply}; }

}  // namespace wb::dlight::cpu
