// tensorize (TVM's s_tir tensorize): replaces a block's computation by a tensor intrinsic's
// implementation (schedule/tensor_intrin.h).
//
// Given a loop, the loop's subtree is first blockized (the block `<name>_o` of blockize, which is
// not recorded as a step of its own); given a block, the block itself is used. That block must
// match the intrinsic's description structurally, as TVM's TensorizeComparator decides:
// - its T.reads/T.writes, in order, cover regions of the extents the description's root block
//   declares (a workload buffer may have more dimensions, leading ones of extent 1);
// - under it, the loops (extents, kinds, annotations, thread bindings), the blocks (iterator
//   kinds, bindings, regions, predicates) and the computation are the description's, modulo the
//   names of variables and buffers, and every buffer access sits at the same offset from the
//   region's start as in the description; the outer block's own iterators and init are not
//   compared.
// Then the block's body becomes the implementation's, its parameters bound to the matched
// regions by T.match_buffer (a view of each workload buffer starting at the region's start, of
// the implementation's extents), and the implementation root block's annotations are added
// where the block has no such key. The blocks that were under it are gone (their handles
// expire). A mismatch is a ScheduleError naming the innermost loop or block that differs and
// how; an unknown intrinsic is std::invalid_argument listing the registered ones. Either leaves
// the schedule and its trace unchanged.
//
// Not done: TVM's normalisation of the implementation's index dtype to the workload's (an int64
// workload needs int64 intrinsics), and TVM's simplification of the description before matching.
#pragma once

#include <string>
#include <variant>
#include <vector>

#include "schedule/schedule.h"

namespace wb::schedule {

void Tensorize(Schedule& sch, const std::variant<SBlockRV, LoopRV>& block_or_loop,
               const std::string& intrin, bool preserve_unit_iters = true);

// The registered intrinsics that tensorize would apply with at `block_or_loop` (a loop or a block
// of `func`), sorted by name: what a face offers for tensorize's `tensor_intrin`.
std::vector<std::string> MatchingTensorIntrins(const tir::PrimFunc& func,
                                               const tir::Stmt& block_or_loop);

}  // namespace wb::schedule
