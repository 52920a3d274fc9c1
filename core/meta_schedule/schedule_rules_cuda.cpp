// The CUDA design space (schedule_rules.h): TVM's ScheduleRule::DefaultCUDA on the blocks of a
// PrimFunc after AutoInline (ApplyDesignSpace runs it, and the postprocessors after).
#include <stdexcept>

#include "dlight/analysis.h"
#include "dlight/schedule_rule.h"
#include "meta_schedule/postproc.h"
#include "meta_schedule/sampler.h"
#include "tir/functor.h"

namespace wb::meta_schedule {

namespace {

constexpr const char* kStructure = "SSSRRSRS";
// The first three tile levels, fused and bound.
constexpr const char* kTileBinds[] = {"blockIdx.x", "vthread.x", "threadIdx.x"};
constexpr int kWriteCacheLevel = 3;  // "local", at the threadIdx tile
constexpr int kReadCacheLevel = 4;   // "shared", at the outer reduction tile
constexpr const char* kTiledAnnotation = "meta_schedule.tiling_structure";

bool Uses(const ir::PrimExpr& e, const tir::Var& var) {
  bool found = false;
  tir::PostOrderVisit(e, [&](const ir::Object* node) { found |= node == var.get(); });
  return found;
}

bool IsThreadLoop(const tir::For& f, const char* prefix) {
  return f->kind == tir::ForKind::kThreadBinding && f->thread_binding.defined() &&
         f->thread_binding->thread_tag.rfind(prefix, 0) == 0;
}

bool Tiled(const tir::SBlock& block) { return block->annotations.count(kTiledAnnotation) > 0; }

std::optional<dlight::BlockInfo> Find(Schedule& sch, const std::string& name) {
  for (dlight::BlockInfo& info : dlight::GetBlockInfos(sch)) {
    if (info.name == name) return info;
  }
  return std::nullopt;
}

// The vector lengths a cooperative fetch of `dtype` may use (TVM's filter per dtype).
std::vector<int64_t> VectorLens(const SpaceOptions& options, const ir::DataType& dtype) {
  std::vector<int64_t> out;
  for (int64_t v : options.vector_load_lens) {
    bool ok = true;
    if (dtype.is_float() && dtype.bits() == 32) ok = v <= 4;
    else if (dtype.is_float() && dtype.bits() == 16) ok = (v == 1 || v % 2 == 0) && v <= 8;
    else if (dtype.is_int() && dtype.bits() == 8) ok = v <= 16;
    if (ok) out.push_back(v);
  }
  return out;
}

// MultiLevelTiling "SSSRRSRS": each spatial loop split in 5, each reduction loop in 3
// (sample_perfect_tile, innermost at most max_innermost_factor), reordered by the structure; the
// first three levels fused and bound to blockIdx.x, vthread.x and threadIdx.x; a "local" write
// cache at the thread level; each operand read through a "shared" cache computed at the outer
// reduction level, its loops fused and annotated for a cooperative fetch with a sampled vector
// length. The thread count of the block is kept in [warp, max_threads_per_block] (from 1 when
// there is little spatial work) through annotations VerifyGPUCode checks.
void MultiLevelTiling(Schedule& sch, Sampler& sampler, const SpaceOptions& options, const dlight::BlockInfo& info) {
  const std::string structure = kStructure;
  std::vector<std::vector<LoopRV>> tiles(structure.size());
  int64_t spatial_product = 1;
  for (size_t k = 0; k < info.loops.size(); ++k) {
    const bool spatial = info.block->iter_vars[k]->iter_type == tir::IterVarType::kDataPar;
    const char kind = spatial ? 'S' : 'R';
    const int64_t* extent = tir::AsConstInt(sch.Get(info.loops[k])->extent);
    if (!extent) throw std::invalid_argument("a loop extent is symbolic");
    if (spatial) spatial_product *= *extent;
    const int64_t n = std::count(structure.begin(), structure.end(), kind);
    std::vector<Schedule::ExprRV> factors = sampler.Tile(info.loops[k], n, options.max_innermost_factor);
    std::vector<LoopRV> split = sch.SplitBy(info.loops[k], {factors.begin(), factors.end()});
    size_t t = 0;
    for (size_t g = 0; g < structure.size(); ++g) {
      if (structure[g] == kind) tiles[g].push_back(split[t++]);
    }
  }
  std::vector<LoopRV> order;
  for (const auto& g : tiles) order.insert(order.end(), g.begin(), g.end());
  sch.Reorder(order);
  for (size_t i = 0; i < std::size(kTileBinds); ++i) {
    LoopRV fused = tiles[i].size() == 1 ? tiles[i][0] : sch.Fuse(tiles[i]);
    sch.Bind(fused, kTileBinds[i]);
    tiles[i] = {fused};
  }
  const int64_t low = spatial_product > 2 * options.thread_warp_size ? options.thread_warp_size : 1;
  sch.Annotate(info.rv, "meta_schedule.thread_extent_low_inclusive", ir::MakeInt(low));
  sch.Annotate(info.rv, "meta_schedule.thread_extent_high_inclusive", ir::MakeInt(options.max_threads_per_block));
  sch.Annotate(info.rv, kTiledAnnotation, ir::MakeString(structure));
  // Write reuse: "local", at the threadIdx level.
  SBlockRV write_cache = sch.CacheWrite(info.rv, 0, "local");
  sch.ReverseComputeAt(write_cache, tiles[kWriteCacheLevel - 1].back(), true);
  // Read reuse: each buffer read but not written, through "shared" at the outer reduction level.
  const size_t n_reads = sch.Get(info.rv)->reads.size();
  for (size_t i = 0; i < n_reads; ++i) {
    tir::SBlock block = sch.Get(info.rv);
    const tir::Buffer& buffer = block->reads[i]->buffer;
    bool written = false;
    for (const auto& w : block->writes) written |= w->buffer.same_as(buffer);
    if (written) continue;
    const size_t ndim = buffer->shape.size();
    SBlockRV cache = sch.CacheRead(info.rv, static_cast<int>(i), "shared", {info.rv});
    sch.ComputeAt(cache, tiles[kReadCacheLevel - 1].back(), true);
    std::vector<LoopRV> loops = sch.GetLoops(cache);
    std::vector<LoopRV> inner(loops.end() - static_cast<long>(std::min(ndim, loops.size())), loops.end());
    if (inner.size() > 1) sch.Fuse(inner);
    std::vector<int64_t> lens = VectorLens(options, buffer->dtype);
    if (!lens.empty()) {
      Schedule::ExprRV len = sampler.Categorical(lens, SampleSite::Kind::kVectorLength);
      sch.Annotate(cache, "meta_schedule.cooperative_fetch", ir::MakeInt(sch.Get(len)));
    }
  }
}

// The thread extents CrossThreadReduction samples from: those the target allows.
std::vector<int64_t> CrossThreadExtents(const SpaceOptions& options) {
  std::vector<int64_t> out;
  for (int64_t e : options.cross_thread_extents) {
    if (e <= options.max_threads_per_block) out.push_back(e);
  }
  return out;
}

bool NeedsCrossThreadReduction(Schedule& sch, const dlight::BlockInfo& info, const SpaceOptions& options) {
  return !Tiled(info.block) && NeedsRFactorOrCrossThreadReduction(sch, info, options.max_threads_per_block);
}

// TVM's CrossThreadReduction: a thread extent sampled; when the block has a single consumer that
// is not tiled and runs on no threads yet, the consumer's innermost loop is split by it and bound
// to threadIdx.x, and the block computed at the consumer's last loop over its own spatial
// iterators, its output moved to shared memory; then the block's reduction loops, fused, are
// split by the extent and the inner part bound to threadIdx.x.
void CrossThreadReduction(Schedule& sch, Sampler& sampler, const SpaceOptions& options, const std::string& name) {
  std::optional<dlight::BlockInfo> info = Find(sch, name);
  if (!info) return;
  Schedule::ExprRV extent =
      sampler.Categorical(CrossThreadExtents(options), SampleSite::Kind::kThreadExtent);
  // Fusion with the consumer.
  std::vector<SBlockRV> consumers = sch.GetConsumers(info->rv);
  if (info->block->writes.size() == 1 && consumers.size() == 1) {
    std::optional<dlight::BlockInfo> consumer = Find(sch, sch.Get(consumers[0])->name_hint);
    bool in_threads = false;
    if (consumer) {
      for (const LoopRV& l : consumer->loops) in_threads |= IsThreadLoop(sch.Get(l), "threadIdx.");
    }
    if (consumer && !consumer->loops.empty() && !NeedsMultiLevelTiling(*consumer) && !Tiled(consumer->block) &&
        !in_threads) {
      // The compute position: as deep as both nests drive the block's spatial iterators.
      int pos = static_cast<int>(std::min(info->loops.size(), consumer->loops.size())) - 1;
      for (size_t i = 0; i < info->loops.size() && i < consumer->loops.size(); ++i) {
        if (info->block->iter_vars[i]->iter_type != tir::IterVarType::kDataPar) {
          pos = static_cast<int>(i) - 1;
          break;
        }
      }
      if (pos >= 0) {
        LoopRV target = consumer->loops[pos];
        LoopRV innermost = consumer->loops.back();
        std::vector<LoopRV> split = sch.SplitBy(innermost, {std::monostate{}, extent});
        sch.Bind(split[1], "threadIdx.x");
        if (pos == static_cast<int>(consumer->loops.size()) - 1) target = split[0];
        sch.ComputeAt(info->rv, target, true);
        sch.SetScope(info->rv, 0, "shared");
        info = Find(sch, name);
        if (!info) return;
      }
    }
  }
  // The reduction loops, after the spatial ones, fused.
  const tir::SBlockRealizeNode* realize = nullptr;
  tir::PostOrderVisit(sch.Func()->body, [&](const ir::Object* node) {
    if (auto* r = dynamic_cast<const tir::SBlockRealizeNode*>(node)) {
      if (r->block->name_hint == name) realize = r;
    }
  });
  if (!realize) return;
  std::vector<LoopRV> reduce;
  for (const LoopRV& l : info->loops) {
    tir::For f = sch.Get(l);
    bool reduces = false;
    for (size_t k = 0; k < realize->iter_values.size(); ++k) {
      reduces |= info->block->iter_vars[k]->iter_type == tir::IterVarType::kCommReduce &&
                 Uses(realize->iter_values[k], f->loop_var);
    }
    if (reduces) reduce.push_back(l);
  }
  if (reduce.empty()) return;
  // Only the loops from the first reduction loop down need reordering.
  std::vector<LoopRV> tail;
  bool seen_reduce = false;
  for (const LoopRV& l : info->loops) {
    bool r = std::find_if(reduce.begin(), reduce.end(), [&](const LoopRV& x) { return x.id == l.id; }) != reduce.end();
    seen_reduce |= r;
    if (seen_reduce && !r) tail.push_back(l);
  }
  if (!tail.empty()) {
    std::vector<LoopRV> order = tail;
    order.insert(order.end(), reduce.begin(), reduce.end());
    sch.Reorder(order);
  }
  LoopRV fused = reduce.size() == 1 ? reduce[0] : sch.Fuse(reduce);
  std::vector<LoopRV> split = sch.SplitBy(fused, {std::monostate{}, extent});
  sch.Bind(split[1], "threadIdx.x");
}

// AutoBind: BindBlockThreadIdx on each block, the thread count sampled among auto_bind_extents
// that the extent reaches (the extent itself when none does).
void AutoBind(Schedule& sch, Sampler& sampler, const SpaceOptions& options) {
  std::vector<std::string> names;
  for (const dlight::BlockInfo& info : dlight::GetBlockInfos(sch)) names.push_back(info.name);
  for (const std::string& name : names) {
    std::optional<dlight::BlockInfo> info = Find(sch, name);
    if (!info || Tiled(info->block)) continue;
    BindBlockThreadIdx(sch, info->rv, options.max_threadblocks, options.max_threads_per_block,
                       [&](int64_t max) -> Schedule::Factor {
                         std::vector<int64_t> choices;
                         for (int64_t e : options.auto_bind_extents) {
                           if (e <= max) choices.push_back(e);
                         }
                         if (choices.empty()) return max;
                         if (choices.size() == 1) return choices[0];
                         return sampler.Categorical(choices, SampleSite::Kind::kThreadExtent);
                       });
  }
}

// The blocks CrossThreadReduction takes, by name, after AutoInline.
std::vector<std::string> CrossThreadBlocks(Schedule& sch, const SpaceOptions& options) {
  std::vector<std::string> out;
  for (const dlight::BlockInfo& info : dlight::GetBlockInfos(sch)) {
    if (!NeedsMultiLevelTiling(info) && NeedsCrossThreadReduction(sch, info, options)) out.push_back(info.name);
  }
  return out;
}

}  // namespace

int CudaSketches(Schedule& sch, const SpaceOptions& options) {
  return CrossThreadBlocks(sch, options).empty() ? 1 : 2;
}

void CudaRules(Schedule& sch, Sampler& sampler, const SpaceOptions& options, int sketch) {
  std::vector<std::string> cross_thread = CrossThreadBlocks(sch, options);
  for (const dlight::BlockInfo& info : dlight::GetBlockInfos(sch)) {
    // Every block tiling takes is tiled (TVM's list puts MultiLevelTiling first, and a tiled
    // block is no longer one for CrossThreadReduction).
    if (NeedsMultiLevelTiling(info)) {
      std::optional<dlight::BlockInfo> now = Find(sch, info.name);
      if (now) MultiLevelTiling(sch, sampler, options, *now);
    }
  }
  // The epilogues into the tiles' write-back (the cache stages themselves stay).
  AutoInline(sch, /*disallow_exp=*/false, /*global_only=*/true);
  if (sketch == 0) {
    // Consumers first, as TVM's post-order application meets them.
    for (auto it = cross_thread.rbegin(); it != cross_thread.rend(); ++it) {
      CrossThreadReduction(sch, sampler, options, *it);
    }
  }
  ParallelizeVectorizeUnroll(sch, sampler, options);
  AutoBind(sch, sampler, options);
}

}  // namespace wb::meta_schedule
