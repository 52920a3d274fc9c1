// Shared helpers of the primitives that create or move blocks (cache stages, compute_at,
// inlining): region relaxation over loop nests, inserting a statement into a body, buffers in
// another storage scope, and fresh block names.
#pragma once

#include <set>
#include <string>
#include <vector>

#include "arith/analyzer.h"
#include "tir/stmt.h"

namespace wb::schedule {

// The region of `buffer_region` (accessed by `block`) in terms of the loops outside `top`: the
// block's bindings are substituted and every loop strictly between `top` and the block is
// relaxed to its range (TVM's upper-bound relaxation; the block predicate is not used, so the
// result is clipped to the buffer's shape instead). `top` is an ancestor of the block (a loop or
// a block).
// Loops whose extents use other relaxed loops (after compute_at under a predicated split) are
// relaxed repeatedly until no relaxed variable is left. `clip` off keeps the hull unclipped.
// `relax_threads` also relaxes the thread-bound loops above `top` that memory of the buffer's
// storage scope is shared across (CanRelaxUnderThread): a shared buffer computed under a
// threadIdx loop must hold what every thread of the block needs, not only this thread's part.
// `predicate`, in the block's iterators, holds wherever the block accesses the buffer (a nested
// block's guard): its bounds `x < c`, `c <= x` on relaxed loops narrow them.
std::vector<tir::Range> RelaxRegion(const tir::PrimFunc& func, const tir::SBlockNode* block,
                                    const tir::BufferRegion& buffer_region,
                                    const tir::StmtNode* top, arith::Analyzer* analyzer,
                                    bool clip = true, bool relax_threads = false,
                                    const tir::PrimExpr& predicate = {});

// RelaxRegion's hull before clipping and before it becomes ranges: the first and last index of
// each dimension, both ends included (an end that cannot be bounded is the buffer's edge). The
// variables left symbolic (loops and block iters at or above `top`) are added to `outer`.
std::vector<arith::IntSet> RelaxRegionBounds(
    const tir::PrimFunc& func, const tir::SBlockNode* block, const tir::BufferRegion& buffer_region,
    const tir::StmtNode* top, arith::Analyzer* analyzer, bool relax_threads = false,
    std::set<const ir::Object*>* outer = nullptr, const tir::PrimExpr& predicate = {});

// TVM's CanRelaxStorageUnderThread: memory of `storage_scope` is shared by the iterations of a
// loop bound to `thread_tag` (storage rank global 0, shared 1, local 3; thread rank blockIdx 0,
// threadIdx and vthread 1; relaxed when the storage rank is at most the thread rank; warp
// memory across threadIdx.x only).
bool CanRelaxUnderThread(const std::string& storage_scope, const std::string& thread_tag);

// `body` with `stmt` inserted before position `pos` of its sequence (a single statement is a
// sequence of one).
tir::Stmt InsertStmt(const tir::Stmt& body, size_t pos, const tir::Stmt& stmt);

// A fresh buffer like `buffer` in `scope`, named `<name>_<scope>` as TVM's WithScope names it.
tir::Buffer WithScope(const tir::Buffer& buffer, const std::string& scope,
                      std::vector<tir::PrimExpr> shape = {});

// TVM's storage scope check: "" (global) or a known scope prefix.
bool IsValidStorageScope(const std::string& scope);

// `base` when no block of `func` has that name, else `base_1`, `base_2`, ...: handles follow
// blocks by name, so a second cache stage of a buffer must not reuse the first one's name.
std::string UniqueBlockName(const tir::PrimFunc& func, const std::string& base);

// The smallest region covering both regions (of one buffer).
std::vector<tir::Range> RegionHull(const std::vector<tir::Range>& a,
                                   const std::vector<tir::Range>& b, arith::Analyzer* analyzer);

// The region of `buffer` in `regions`, or null.
tir::BufferRegion FindRegion(const std::vector<tir::BufferRegion>& regions,
                             const tir::Buffer& buffer);

}  // namespace wb::schedule

namespace wb::schedule {

// TVM's GetSBlockReadWriteRegion, for the block shapes the primitives produce: the buffers the
// block's body (and init) loads and stores, each as the union of its accesses with the loops
// and nested blocks inside the block relaxed. Reads and writes in order of first access.
void InferAccessRegions(const tir::SBlockNode* block, std::vector<tir::BufferRegion>* reads,
                        std::vector<tir::BufferRegion>* writes);

// The statement that removing the leaf `block` takes out of `scope`: the block's realize and the
// loops around it up to the first ancestor with more than one statement in its body. Null when
// the block is the only leaf of the scope (nothing would be left).
const tir::StmtNode* LeafRemovalTarget(const tir::PrimFunc& func, const tir::SBlockNode* scope,
                                       const tir::SBlockNode* block);

}  // namespace wb::schedule
