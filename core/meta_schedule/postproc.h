// Postprocessors: what turns a sampled schedule into one the build takes, run after the
// schedule rules on every candidate (TVM's CPU list, in its order). Each works through schedule
// primitives, so the steps land in the trace and a record replays without them.
// Not here yet: DisallowDynamicLoop (tasks with symbolic shapes are not tuned at all, see
// search.h), RewriteLayout, VerifyGPUCode.
#pragma once

#include <string>

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
// drives a reduction iterator, so the init's loops can be vectorized apart from the update.
bool RewriteReductionBlock(schedule::Schedule& sch, std::string* error);

// RewriteParallelVectorizeUnroll, then RewriteReductionBlock.
bool ApplyCpuPostprocs(schedule::Schedule& sch, std::string* error);

}  // namespace wb::meta_schedule
