#include "meta_schedule/schedule_rules.h"

#include <algorithm>
#include <set>

#include "dlight/analysis.h"
#include "dlight/schedule_rule.h"
#include "meta_schedule/default_sketch.h"
#include "meta_schedule/postproc.h"
#include "meta_schedule/sampler.h"
#include "schedule/primitive/primitives.h"
#include "tir/functor.h"

namespace wb::meta_schedule {

using schedule::LoopRV;
using schedule::SBlockRV;
using schedule::Schedule;

namespace {

constexpr const char* kTilingStructure = "SSRSRS";

bool CallsExp(const tir::SBlock& block) {
  bool found = false;
  tir::PostOrderVisit(block->body, [&](const ir::Object* node) {
    if (auto* call = dynamic_cast<const tir::CallNode*>(node)) {
      if (auto* op = dynamic_cast<const ir::OpNode*>(call->op.get())) {
        found |= op->name == "tirx.exp";
      }
    }
  });
  return found;
}

// Some read does not depend on every block iterator: tiling can keep it in cache.
bool HasReuse(const tir::SBlock& block) {
  for (const auto& read : block->reads) {
    std::set<const ir::Object*> used;
    for (const auto& range : read->region) {
      tir::PostOrderVisit(range->min, [&](const ir::Object* node) {
        if (dynamic_cast<const tir::VarNode*>(node)) used.insert(node);
      });
    }
    for (const auto& iv : block->iter_vars) {
      if (!used.count(iv->var.get())) return true;
    }
  }
  return false;
}

}  // namespace

bool NeedsMultiLevelTiling(const dlight::BlockInfo& info) {
  return info.simple_nest && info.IsReduction() && HasReuse(info.block);
}

namespace {

bool Tileable(const dlight::BlockInfo& info) { return NeedsMultiLevelTiling(info); }

bool NeedsRFactor(Schedule& sch, const dlight::BlockInfo& info, const SpaceOptions& options) {
  return NeedsRFactorOrCrossThreadReduction(
      sch, info, static_cast<int64_t>(options.max_jobs_per_core) * options.num_cores);
}

// TVM's AddRFactor: the reduction loops fused, split in two by sample_perfect_tile, and the
// block factored over the outer (variant 1) or the inner (variant 2) part; variant 0 leaves it.
// The factored block is at the root with the original as its consumer, so RandomComputeLocation
// places it. Returns the names of the blocks factored (tiling leaves them alone).
std::set<std::string> AddRFactor(Schedule& sch, Sampler& sampler, const SpaceOptions& options,
                                 int variant) {
  std::set<std::string> factored;
  if (variant == 0) return factored;
  for (const dlight::BlockInfo& info : dlight::GetBlockInfos(sch)) {
    if (!NeedsRFactor(sch, info, options)) continue;
    std::vector<LoopRV> reduce;
    size_t spatial = 0;
    for (size_t k = 0; k < info.loops.size(); ++k) {
      if (info.block->iter_vars[k]->iter_type == tir::IterVarType::kDataPar) {
        ++spatial;
      } else {
        reduce.push_back(info.loops[k]);
      }
    }
    LoopRV fused = reduce.size() == 1 ? reduce[0] : sch.Fuse(reduce);
    std::vector<Schedule::ExprRV> factors = sampler.Tile(fused, 2, options.max_innermost_factor);
    std::vector<LoopRV> split = sch.SplitBy(fused, {factors.begin(), factors.end()});
    sch.RFactor(split[variant - 1], static_cast<int64_t>(spatial));
    factored.insert(info.name);
  }
  return factored;
}

// How many AddRFactor variants the function has after AutoInline: 3 when a block needs rfactor.
int RFactorVariants(Schedule& sch, const SpaceOptions& options) {
  for (const dlight::BlockInfo& info : dlight::GetBlockInfos(sch)) {
    if (NeedsRFactor(sch, info, options)) return 3;
  }
  return 1;
}

bool IsSpatialBlock(const tir::SBlock& block) {
  for (const auto& iv : block->iter_vars) {
    if (iv->iter_type != tir::IterVarType::kDataPar) return false;
  }
  return true;
}

void MultiLevelTiling(Schedule& sch, Sampler& sampler, const SpaceOptions& options,
                      const dlight::BlockInfo& info, int write_level) {
  std::string structure = kTilingStructure;
  std::vector<std::vector<LoopRV>> groups(structure.size());
  for (size_t k = 0; k < info.loops.size(); ++k) {
    tir::IterVarType type = info.block->iter_vars[k]->iter_type;
    char kind = type == tir::IterVarType::kDataPar ? 'S' : 'R';
    int64_t n = std::count(structure.begin(), structure.end(), kind);
    std::vector<Schedule::ExprRV> factors =
        sampler.Tile(info.loops[k], n, options.max_innermost_factor);
    std::vector<Schedule::Factor> split(factors.begin(), factors.end());
    std::vector<LoopRV> tiles = sch.SplitBy(info.loops[k], split);
    size_t t = 0;
    for (size_t g = 0; g < structure.size(); ++g) {
      if (structure[g] == kind) groups[g].push_back(tiles[t++]);
    }
  }
  std::vector<LoopRV> order;
  for (const auto& g : groups) order.insert(order.end(), g.begin(), g.end());
  sch.Reorder(order);
  if (write_level < 1 || groups[write_level - 1].empty()) return;
  LoopRV at = groups[write_level - 1].back();
  std::vector<SBlockRV> consumers = sch.GetConsumers(info.rv);
  if (consumers.size() == 1 && IsSpatialBlock(sch.Get(consumers[0]))) {
    try {
      sch.ReverseComputeAt(consumers[0], at, true);
      return;
    } catch (const std::exception&) {
    }
  }
  SBlockRV cache = sch.CacheWrite(info.rv, 0, "global");
  sch.ReverseComputeAt(cache, at, true);
}

// TVM's RandomComputeLocation conditions, for a block after tiling: directly under the root
// block, with loops, alone under its outermost loop, not tiled, and read by a consumer.
bool WantsComputeLocation(const Schedule& sch, const dlight::BlockInfo& info, const std::set<std::string>& tiled) {
  if (tiled.count(info.name) || info.loops.empty()) return false;
  Schedule probe = sch;  // the queries below stay out of the trace
  if (probe.GetChildBlocks(info.loops.front()).size() != 1) return false;
  return !probe.GetConsumers(info.rv).empty();
}

void RandomComputeLocation(Schedule& sch, Sampler& sampler, const std::set<std::string>& tiled) {
  for (const dlight::BlockInfo& info : dlight::GetBlockInfos(sch)) {
    if (!WantsComputeLocation(sch, info, tiled)) continue;
    LoopRV at = sampler.ComputeLocation(info.rv);
    sch.ComputeAt(info.rv, at, true);
  }
}

// The products of the leading data-parallel loops of the first loop nest: the parallel limits
// that fuse a different number of loops.
std::vector<int64_t> UsefulParallelLimits(Schedule& sch) {
  std::vector<int64_t> out;
  std::vector<dlight::BlockInfo> infos = dlight::GetBlockInfos(sch);
  if (infos.empty()) return out;
  const dlight::BlockInfo& first = infos.front();
  int64_t product = 1;
  for (const LoopRV& loop : first.loops) {
    tir::For f = sch.Get(loop);
    const int64_t* extent = tir::AsConstInt(f->extent);
    if (!extent) break;
    bool spatial = true;
    for (size_t k = 0; k < first.bindings.size(); ++k) {
      bool uses = false;
      tir::PostOrderVisit(first.bindings[k], [&](const ir::Object* node) {
        uses |= node == f->loop_var.get();
      });
      if (uses && first.block->iter_vars[k]->iter_type != tir::IterVarType::kDataPar) spatial = false;
    }
    if (!spatial) break;
    product *= *extent;
    out.push_back(product);
  }
  return out;
}

}  // namespace

// For the blocks a simple nest drives: a reduction with its reduction loops innermost and every
// extent known; one that tiling would take gets it only when its spatial loops are fewer
// elements than its reduction and than `max_parallel` (there is too little to run in parallel
// otherwise), any other when it reduces more than one element.
bool NeedsRFactorOrCrossThreadReduction(Schedule& sch, const dlight::BlockInfo& info, int64_t max_parallel) {
  if (!info.simple_nest || !info.IsReduction() || !info.ReductionInnermost()) return false;
  int64_t space = 1, reduce = 1;
  for (size_t k = 0; k < info.loops.size(); ++k) {
    const int64_t* extent = tir::AsConstInt(sch.Get(info.loops[k])->extent);
    if (!extent) return false;
    (info.block->iter_vars[k]->iter_type == tir::IterVarType::kDataPar ? space : reduce) *= *extent;
  }
  if (reduce == 1 && space == 1) return false;
  if (NeedsMultiLevelTiling(info)) return space < reduce && space <= max_parallel;
  return reduce > 1;
}

void AutoInline(Schedule& sch, bool disallow_exp, bool global_only) {
  std::vector<dlight::BlockInfo> infos = dlight::GetBlockInfos(sch);
  if (infos.size() < 2) return;
  for (auto it = infos.rbegin(); it != infos.rend(); ++it) {
    if (!it->IsSpatial() || (disallow_exp && CallsExp(it->block))) continue;
    if (global_only) {
      // Blocks that touch only global memory: a cache stage (writing shared or local memory,
      // or writing back from it) stays where tiling put it.
      bool global = true;
      for (const auto* regions : {&it->block->reads, &it->block->writes}) {
        for (const auto& r : *regions) {
          const std::string scope = r->buffer->scope();
          global &= scope.empty() || scope == "global";
        }
      }
      if (!global) continue;
    }
    try {
      sch.ComputeInline(it->rv);
      continue;
    } catch (const std::exception&) {
    }
    try {
      sch.ReverseComputeInline(it->rv);
    } catch (const std::exception&) {
    }
  }
}

SpaceOptions DefaultSpaceOptions(const codegen::Target& target) {
  SpaceOptions options;
  options.target = target;
  if (target.is_cuda()) {
    options.cuda = true;
    // ParallelizeVectorizeUnroll unrolls only (TVM's -1 for both).
    options.max_jobs_per_core = -1;
    options.max_vectorize_extent = -1;
    options.unroll_max_steps = {0, 16, 32, 64, 128, 256, 512, 1024};
    if (target.max_threads_per_block > 0) options.max_threads_per_block = target.max_threads_per_block;
    if (target.thread_warp_size > 0) options.thread_warp_size = target.thread_warp_size;
    if (target.max_shared_memory_per_block > 0) {
      options.max_shared_memory_per_block = target.max_shared_memory_per_block;
    }
    return options;
  }
  options.num_cores = std::max(1, dlight::CpuParamsOf(target).num_cores);
  return options;
}

namespace {

// The write-cache levels of MultiLevelTiling's sketches: 3 when a block is tiled.
int WriteLevels(Schedule& sch) {
  for (const dlight::BlockInfo& info : dlight::GetBlockInfos(sch)) {
    if (Tileable(info)) return 3;
  }
  return 1;
}

int CpuSketches(Schedule& sch, const SpaceOptions& options) {
  return WriteLevels(sch) * RFactorVariants(sch, options);
}

// The CPU rules after AutoInline.
void CpuRules(Schedule& sch, Sampler& sampler, const SpaceOptions& options, int sketch) {
  // The sketch: a write-cache level for each AddRFactor variant.
  const int levels = WriteLevels(sch);
  const int variant = sketch / levels, write_level = sketch % levels;
  std::set<std::string> tiled = AddRFactor(sch, sampler, options, variant);
  for (const dlight::BlockInfo& info : dlight::GetBlockInfos(sch)) {
    if (!Tileable(info) || tiled.count(info.name) ||
        info.name.size() > 3 && info.name.compare(info.name.size() - 3, 3, "_rf") == 0)
      continue;
    MultiLevelTiling(sch, sampler, options, info, write_level);
    tiled.insert(info.name);
  }
  RandomComputeLocation(sch, sampler, tiled);
  ParallelizeVectorizeUnroll(sch, sampler, options);
}

Schedule Unscheduled(const tir::PrimFunc& func) {
  return Schedule(dlight::SingleFunctionModule(func));
}

}  // namespace

void ParallelizeVectorizeUnroll(Schedule& sch, Sampler& sampler, const SpaceOptions& options) {
  auto* root = dynamic_cast<const tir::SBlockRealizeNode*>(sch.Func()->body.get());
  if (!root) return;
  SBlockRV rv = sch.GetSBlock(root->block->name_hint);
  if (options.max_jobs_per_core > 0) {
    int64_t limit =
        sampler.ParallelLimit(static_cast<int64_t>(options.max_jobs_per_core) * options.num_cores,
                              UsefulParallelLimits(sch));
    sch.Annotate(rv, "meta_schedule.parallel", ir::MakeInt(limit));
  }
  if (options.max_vectorize_extent > 0) {
    sch.Annotate(rv, "meta_schedule.vectorize", ir::MakeInt(options.max_vectorize_extent));
  }
  if (!options.unroll_max_steps.empty()) {
    Schedule::ExprRV unroll = sampler.Categorical(options.unroll_max_steps);
    sch.Annotate(rv, "meta_schedule.unroll_explicit", ir::MakeInt(sch.Get(unroll)));
  }
}

int NumSketches(const tir::PrimFunc& func, const SpaceOptions& options) {
  try {
    Schedule sch = Unscheduled(func);
    AutoInline(sch, /*disallow_exp=*/!options.cuda);
    return options.cuda ? CudaSketches(sch, options) : CpuSketches(sch, options);
  } catch (const std::exception&) {
  }
  return 1;
}

int64_t CandidateScheduleSeed(int64_t seed) {
  constexpr int64_t kModulus = 2147483645;
  return 1 + (seed % kModulus + kModulus) % kModulus;
}

SampledSchedule ApplyDesignSpace(const tir::PrimFunc& func, const SpaceOptions& options,
                                 const Candidate& candidate, int64_t seed) {
  if (candidate.sketch == kDefaultSketch || candidate.sketch == kBlockedSketch) {
    const auto& sketch = candidate.sketch == kDefaultSketch ? options.default_sketch : options.blocked_sketch;
    if (sketch) return ApplyDefaultSketch(func, options, *sketch, candidate, seed);
    SampledSchedule none;
    none.error = candidate.sketch == kDefaultSketch ? "the design space has no default schedule sketch"
                                                    : "the design space has no blocked default sketch";
    return none;
  }
  SampledSchedule out;
  out.candidate.sketch = candidate.sketch;
  try {
    Schedule sch = Unscheduled(func);
    sch.Seed(CandidateScheduleSeed(seed));
    Sampler sampler(sch, candidate, &out);
    // TVM's CPU list keeps exp (one per element of a softmax); its CUDA list inlines it.
    AutoInline(sch, /*disallow_exp=*/!options.cuda);
    if (options.cuda) {
      CudaRules(sch, sampler, options, candidate.sketch);
    } else {
      CpuRules(sch, sampler, options, candidate.sketch);
    }
    std::string error;
    if (!ApplyPostprocs(sch, options, &error, &out.lowered)) {
      out.error = error;
      return out;
    }
    out.schedule = std::move(sch);
  } catch (const std::exception& e) {
    out.error = e.what();
  }
  return out;
}

}  // namespace wb::meta_schedule
