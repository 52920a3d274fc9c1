// Postprocessors: what turns a sampled schedule into one the build takes, run after the
// schedule rules on every candidate (TVM's CPU list, in its order). Each works through schedule
// primitives, so the steps land in the trace and a record replays without them.
// For cuda targets TVM's CUDA list: DisallowDynamicLoop, RewriteCooperativeFetch,
// RewriteUnboundBlock, RewriteParallelVectorizeUnroll (its unroll part), RewriteReductionBlock,
// VerifyGPUCode (postproc_cuda.cpp).
// Not here yet: RewriteLayout.
#pragma once

#include <functional>
#include <string>

#include "meta_schedule/schedule_rules.h"
#include "schedule/schedule.h"

namespace wb::meta_schedule {

// Reads the root block's meta_schedule.parallel / vectorize / unroll_explicit annotations (and
// removes them): in each loop nest under the root, the leading loops that drive data-parallel
// iterators only are fused while their product stays within the parallel limit (at least one)
// and made parallel; the innermost loop of each block, when it drives data-parallel iterators
// only and its extent is within the vectorize limit, is vectorized; with a nonzero unroll step
// the outermost loop of each nest gets pragma_auto_unroll_max_step and pragma_unroll_explicit.
// A primitive that refuses leaves that loop as it was. False (with *error) only when the
// annotations are malformed.
bool RewriteParallelVectorizeUnroll(schedule::Schedule& sch, std::string* error);

// Splits the init of every reduction block off (decompose_reduction) at the outermost loop that
// drives a reduction iterator, so the init's loops can be vectorized apart from the update. A
// block with a reduction loop bound to a thread is left: LowerCrossThreadReduction takes it.
bool RewriteReductionBlock(schedule::Schedule& sch, std::string* error);

// RewriteParallelVectorizeUnroll, then RewriteReductionBlock.
bool ApplyCpuPostprocs(schedule::Schedule& sch, std::string* error);

// --- cuda (postproc_cuda.cpp) ---

// Rejects a schedule with a loop whose extent is not a constant.
bool DisallowDynamicLoop(const schedule::Schedule& sch, std::string* error);

// Each block annotated meta_schedule.cooperative_fetch (a vector length, by MultiLevelTiling's
// shared read caches): its innermost (fused) loop split over the threadIdx.x extent of the loops
// around it, the threads bound to threadIdx.x and, for a length above 1, the innermost part of
// that length vectorized; the annotation removed. False when the block is under no threadIdx.x.
bool RewriteCooperativeFetch(schedule::Schedule& sch, std::string* error);

// TVM's BindBlockThreadIdx: a block under no blockIdx/threadIdx loop gets its leading spatial
// loops fused (a unit loop when it has none) and split into blockIdx.x x threadIdx.x, the thread
// count from `thread_extent(max)` (a constant or a sample); beyond max_threadblocks blocks of
// max_threads_per_block threads, a serial loop inside. A block with threads but no blockIdx gets
// its loops above the threads fused into blockIdx.x. Blocks already bound are left.
void BindBlockThreadIdx(schedule::Schedule& sch, const schedule::SBlockRV& block, int64_t max_threadblocks,
                        int64_t max_threads_per_block,
                        const std::function<schedule::Schedule::Factor(int64_t)>& thread_extent);

// BindBlockThreadIdx on every block with no thread binding, min(extent, max_threads_per_block)
// threads.
bool RewriteUnboundBlock(schedule::Schedule& sch, const SpaceOptions& options, std::string* error);

// TVM's VerifyGPUCode: the thread extents of each block within its
// meta_schedule.thread_extent_low/high_inclusive annotations, the vthread extents' product
// within max_vthread; then the function lowered as the build for options.target lowers it
// (codegen::LowerCuda) and each kernel checked: threads per block within max_threads_per_block
// (threadIdx.x/y at most 1024, z 64), shared memory within max_shared_memory_per_block, vector
// accesses within max_vector_bytes. False (with *error saying which limit) otherwise; true with
// the lowered module in *lowered (when given), which the build takes without lowering again.
bool VerifyGPUCode(const schedule::Schedule& sch, const SpaceOptions& options, std::string* error,
                   ir::IRModule* lowered = nullptr);

// The CUDA list in TVM's order: DisallowDynamicLoop, RewriteCooperativeFetch,
// RewriteUnboundBlock, RewriteParallelVectorizeUnroll, RewriteReductionBlock, VerifyGPUCode
// (its lowered module in *lowered).
bool ApplyCudaPostprocs(schedule::Schedule& sch, const SpaceOptions& options, std::string* error,
                        ir::IRModule* lowered = nullptr);

// The target's list: ApplyCudaPostprocs for cuda (the lowered module in *lowered), else
// ApplyCpuPostprocs.
bool ApplyPostprocs(schedule::Schedule& sch, const SpaceOptions& options, std::string* error,
                    ir::IRModule* lowered = nullptr);

}  // namespace wb::meta_schedule
