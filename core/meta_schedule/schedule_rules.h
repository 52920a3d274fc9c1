// The design space of a tuning task: TVM's CPU schedule rules applied by PostOrderApply over
// the blocks of a PrimFunc, every choice a sampling instruction whose decision the trace records.
//
// Rules, in the order they run:
// - AutoInline: each spatial block is inlined into its consumers (compute_inline), else into its
//   producer (reverse_compute_inline), consumers first; a block calling exp stays (TVM's CPU
//   disallow list), so that softmax keeps one exp per element.
// - MultiLevelTiling "SSRSRS" on every reduction block that reuses data (one of its reads does
//   not depend on every block iterator) and whose loops each drive one iterator: each spatial
//   loop split in 4 by sample_perfect_tile, each reduction loop in 2 (innermost factor at most
//   max_innermost_factor), reordered S S R S R S; the write cache ("global" cache_write, or the
//   block's single spatial consumer instead) computed at tile level 1 or 2, or none: the three
//   sketches of TVM's "may create" write reuse.
// - ParallelizeVectorizeUnroll on the root block: annotations meta_schedule.parallel
//   (max_jobs_per_core x cores), meta_schedule.vectorize (max_vectorize_extent) and
//   meta_schedule.unroll_explicit (sample_categorical over the unroll steps, uniform), which
//   RewriteParallelVectorizeUnroll (postproc.h) turns into loop kinds.
// - RandomComputeLocation on each block left at the root that is not tiled, has a consumer and
//   is its outermost loop's only block (what AutoInline could not inline: a block calling exp, a
//   reduction that is not tiled): sample_compute_location over TVM's candidates (inline, root,
//   a loop of its consumer) and compute_at there.
// - AddRFactor (before tiling, after AutoInline) on each reduction with too little spatial
//   work to run in parallel (TVM's conditions): the reduction loops fused, split in two by
//   sample_perfect_tile and the block factored over the outer or the inner part (rfactor), or
//   left as it is: three variants, the same for every such block of the function. Factored
//   blocks are not tiled; RandomComputeLocation places the factored block.
// For cuda targets the rules are TVM's CUDA list (schedule_rules_cuda.cpp): AutoInline,
// MultiLevelTiling "SSSRRSRS" bound to blockIdx.x / vthread.x / threadIdx.x with a "shared" read
// cache per operand (cooperative fetch) and a "local" write cache, AutoInline again (the
// epilogue into the write-back), CrossThreadReduction, ParallelizeVectorizeUnroll's unroll part
// and AutoBind; then the CUDA postprocessors (postproc.h).
// Not here yet: InlineConstantScalars (AutoInline inlines constant blocks), ApplyCustomRule.
//
// A candidate is a sketch and its decisions: applying the rules again with the same decisions
// gives the same schedule, which is how mutators (mutator.h) work and how a candidate is
// rebuilt; decisions that no longer fit (a mutated tile) are repaired by the sampler.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "codegen/target.h"
#include "dlight/analysis.h"
#include "schedule/schedule.h"
#include "tir/stmt.h"

namespace wb::meta_schedule {

struct DefaultSketch;  // default_sketch.h

// TVM's CPU defaults, scaled by the host's cores; for cuda targets TVM's CUDA defaults with the
// Target's limits.
struct SpaceOptions {
  int num_cores = 1;
  int max_jobs_per_core = 16;
  int max_vectorize_extent = 64;
  std::vector<int64_t> unroll_max_steps = {0, 16, 64, 512};
  int64_t max_innermost_factor = 64;
  codegen::Target target;  // what the space is for (cuda: VerifyGPUCode lowers for it)
  // cuda
  bool cuda = false;
  int64_t max_threads_per_block = 1024;
  int64_t thread_warp_size = 32;
  int64_t max_shared_memory_per_block = 49152;  // bytes
  int64_t max_threadblocks = 256;                // AutoBind / RewriteUnboundBlock
  int64_t max_vthread = 8;                       // VerifyGPUCode
  int64_t max_vector_bytes = 16;                 // VerifyGPUCode
  std::vector<int64_t> cross_thread_extents = {4, 8, 16, 32, 64, 128, 256, 512};
  std::vector<int64_t> auto_bind_extents = {32, 64, 128, 256, 512, 1024};
  std::vector<int64_t> vector_load_lens = {1, 2, 3, 4, 8, 16};
  // The task's default schedule as a sketch (default_sketch.h): candidates of sketch
  // kDefaultSketch replay it. Null: the space has no such sketch.
  std::shared_ptr<const DefaultSketch> default_sketch;
  // Its reduction blocked (MakeBlockedSketch): candidates of sketch kBlockedSketch replay it.
  std::shared_ptr<const DefaultSketch> blocked_sketch;
};
SpaceOptions DefaultSpaceOptions(const codegen::Target& target);

// One sampling site of a candidate, in the order the rules sample.
struct SampleSite {
  // The cuda rules' sample_categorical sites: kThreadExtent, a thread count that a loop is split
  // by and bound to threadIdx.x (CrossThreadReduction, AutoBind: what TVM's MutateThreadBinding
  // finds); kVectorLength, a cooperative fetch's vector length (what TVM's MutateTileSize
  // mutates besides the tiles).
  enum class Kind {
    kTile,
    kUnroll,
    kParallel,
    kComputeLocation,
    kThreadExtent,
    kVectorLength
  } kind = Kind::kTile;
  int64_t extent = 0;               // kTile: the loop's extent
  int64_t max_innermost_factor = -1;  // kTile
  // kUnroll, kThreadExtent, kVectorLength: the choices; kParallel: the useful limits;
  // kComputeLocation: the candidate decisions (-2 inline, -1 root, i a loop of the consumer).
  std::vector<int64_t> choices;
};

// The sketch of a candidate that is the default schedule with other tiles (default_sketch.h).
inline constexpr int kDefaultSketch = -1;
// The default schedule with its reduction blocked (default_sketch.h: MakeBlockedSketch).
inline constexpr int kBlockedSketch = -2;

struct Candidate {
  int sketch = 0;  // 0 .. NumSketches - 1, kDefaultSketch or kBlockedSketch
  // One per site, in order: kTile the factors, kUnroll / kThreadExtent / kVectorLength {index
  // of the choice}, kParallel {limit}, kComputeLocation {decision}. Missing or empty entries are
  // sampled.
  std::vector<std::vector<int64_t>> decisions;
};

// What applying the rules made.
struct SampledSchedule {
  std::optional<schedule::Schedule> schedule;  // with the postprocessors applied
  Candidate candidate;                         // with every decision filled in
  std::vector<SampleSite> sites;
  ir::IRModule lowered;  // cuda: what VerifyGPUCode lowered (the build takes it)
  std::string error;                           // why there is no schedule
};

// How many sketches the design space of `func` has (at least 1): MultiLevelTiling's write-cache
// levels times AddRFactor's variants; sketch s is variant s / levels at level s % levels. For
// cuda: 2 when a block takes CrossThreadReduction (sketch 0 with it, 1 without), else 1.
int NumSketches(const tir::PrimFunc& func, const SpaceOptions& options);

// A candidate's `seed` (any int64) as the schedule's sampling seed, in [1, 2147483645]: the one
// mapping every replay of a candidate uses, so a seed gives the same samples everywhere.
int64_t CandidateScheduleSeed(int64_t seed);

// Applies the rules for `candidate.sketch` to `func` (as "main" of its own module), taking the
// candidate's decisions and sampling the rest from `seed`, then the postprocessors of the
// target (ApplyPostprocs). A rule that does not apply to a block leaves it; a postprocessor that
// fails rejects the candidate. Sketch kDefaultSketch replays options.default_sketch instead
// (ApplyDefaultSketch), kBlockedSketch options.blocked_sketch.
SampledSchedule ApplyDesignSpace(const tir::PrimFunc& func, const SpaceOptions& options,
                                 const Candidate& candidate, int64_t seed);

// --- Building blocks the CPU and CUDA spaces share (TVM's names) ---
// AutoInline: each spatial block inlined into its consumers, else into its producer, consumers
// first. `disallow_exp`: blocks calling exp stay (the CPU list); `global_only`: only blocks
// touching global memory only (after tiling: the cache stages stay).
void AutoInline(schedule::Schedule& sch, bool disallow_exp, bool global_only = false);
// A reduction block of a simple nest with data reuse: what MultiLevelTiling takes.
bool NeedsMultiLevelTiling(const dlight::BlockInfo& info);
// TVM's NeedsRFactorOrCrossThreadReduction with `max_parallel` as the spatial work that is
// enough (CPU: max_jobs_per_core x cores; cuda: max_threads_per_block).
bool NeedsRFactorOrCrossThreadReduction(schedule::Schedule& sch, const dlight::BlockInfo& info,
                                        int64_t max_parallel);

}  // namespace wb::meta_schedule
