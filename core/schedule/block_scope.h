// Block scopes (shared/SCHEDULE.md §1.3): the child blocks of a scope root and the read/write
// dependences between them, and TVM's block checks built on them (complete block, reduction
// block, affine binding, single producer, compact dataflow) as reusable functions that throw a
// ScheduleError naming the block.
//
// TVM caches these per sref; the IR here is immutable and small, so they are recomputed from the
// current function whenever a primitive asks.
#pragma once

#include <string>
#include <unordered_map>
#include <vector>

#include "arith/iter_affine_map.h"
#include "schedule/schedule.h"
#include "tir/stmt.h"

namespace wb::schedule {

enum class DepKind { kRAW, kWAW, kWAR };

struct Dependency {
  tir::SBlock src;
  tir::SBlock dst;
  DepKind kind;
};

// The nearest blocks under `stmt` (for a block: under its body; init statements excluded), in
// pre-order: a scope's children in TVM's sref tree.
std::vector<tir::SBlock> ChildBlocks(const tir::Stmt& stmt);

class BlockScope {
 public:
  // `root` is a block (the function's root block, or any block with child blocks) or a loop.
  explicit BlockScope(const tir::Stmt& root);

  const tir::Stmt& root() const { return root_; }
  const std::vector<tir::SBlock>& children() const { return children_; }
  const std::vector<Dependency>& dependencies() const { return deps_; }
  std::vector<Dependency> DepsBySrc(const tir::SBlockNode* block) const;
  std::vector<Dependency> DepsByDst(const tir::SBlockNode* block) const;
  // RAW/WAW sources (producers) and destinations (consumers), deduplicated, first seen first.
  std::vector<tir::SBlock> Producers(const tir::SBlockNode* block) const;
  std::vector<tir::SBlock> Consumers(const tir::SBlockNode* block) const;
  // The children writing / reading a buffer, in order.
  std::vector<tir::SBlock> WritersOf(const tir::BufferNode* buffer) const;
  std::vector<tir::SBlock> ReadersOf(const tir::BufferNode* buffer) const;
  bool HasWAR() const;

 private:
  tir::Stmt root_;
  std::vector<tir::SBlock> children_;
  std::vector<Dependency> deps_;
  std::unordered_map<const tir::BufferNode*, std::vector<tir::SBlock>> writers_;
  std::unordered_map<const tir::BufferNode*, std::vector<tir::SBlock>> readers_;
};

// --- Where a block sits -------------------------------------------------------------------------

// The statements from the function body down to `node` inclusive; empty when absent.
std::vector<const tir::StmtNode*> PathIn(const tir::PrimFunc& func, const tir::StmtNode* node);
// The SBlockRealize of `block` in `func`; null when absent.
const tir::SBlockRealizeNode* RealizeOf(const tir::PrimFunc& func, const tir::SBlockNode* block);
// The nearest ancestor block of `node` (a block or a loop); null for the root block.
tir::SBlock ParentBlock(const tir::PrimFunc& func, const tir::StmtNode* node);
// The loops between `block` and its scope root, outer to inner.
std::vector<tir::For> LoopsUnderScope(const tir::PrimFunc& func, const tir::SBlockNode* block);

// TVM's GetScopeRoot: the nearest ancestor block of `node`. Throws RootBlockError ("The
// primitive does not operate on the root block") when there is none, and, when
// `require_stage_pipeline` and the schedule checks, NotStagePipelineError when the scope is not
// a stage pipeline: a WAR dependence between its children, or a child without region cover.
tir::SBlock GetScopeRoot(const Schedule& sch, const char* primitive, const tir::StmtNode* node,
                         bool require_stage_pipeline);

// --- Block classes (0: holds; otherwise the first violated condition, as TVM numbers them) ----

// Complete: (1) data-parallel iters only; (2) dominant: the only writer of each buffer it
// writes in the scope; (3) no buffer both read and written.
int CompleteBlockViolation(const BlockScope& scope, const tir::SBlockNode* block);
// Reduction: (1) has init; (2) affine binding; (3) data-parallel/reduction iters only; (4)
// dominant; (5) reduction iters do not index the written buffers.
int ReductionBlockViolation(const tir::PrimFunc& func, const BlockScope& scope,
                            const tir::SBlockNode* block);
// TVM's affine flag: the block's bindings are an affine (surjective) map of the loops between it
// and its scope root, under its predicate. The root block: only without iter vars.
bool IsAffineBinding(const tir::PrimFunc& func, const tir::SBlockNode* block);
// arith::DetectIterMap over the loops (min 0) driving `values`, where a loop of symbolic extent
// takes part when it is the leading term of one binding alone and the predicate bounds only that
// binding (a split of a symbolic loop); other symbolic loops make the detection fail.
arith::IterMapResult DetectLoopIterMap(std::vector<ir::PrimExpr> values,
                                       const std::vector<std::pair<tir::Var, ir::Range>>& loops,
                                       const ir::PrimExpr& predicate, arith::IterMapLevel level);
// TVM's region_cover flag of a child `consumer` of `scope`: for every buffer it reads that
// children of the scope write, the producers' written regions cover the region it reads, both
// taken at the lowest common ancestor of the consumer and each producer, with the thread loops
// the buffer's memory is shared across relaxed too. The produced intervals of a dimension join
// only where they provably overlap or touch (TVM's lower-bound union); each is the integer-set
// hull of one producer, which is exact for the contiguous accesses of affine blocks. `buffer`,
// when given, limits the check to that buffer.
bool HasRegionCover(const tir::PrimFunc& func, const BlockScope& scope,
                    const tir::SBlockNode* consumer, const tir::BufferNode* buffer = nullptr);
// A block that writes a buffer its scope root does not allocate (a parameter, usually).
bool IsOutputBlock(const tir::SBlockNode* scope_root, const tir::SBlockNode* block);

// --- Checks that throw ScheduleError(primitive, ...) naming the block -------------------------

void CheckCompleteBlock(const char* primitive, const BlockScope& scope,
                        const tir::SBlockNode* block);
void CheckReductionBlock(const char* primitive, const tir::PrimFunc& func,
                         const BlockScope& scope, const tir::SBlockNode* block);
void CheckCompleteOrReductionBlock(const char* primitive, const tir::PrimFunc& func,
                                   const BlockScope& scope, const tir::SBlockNode* block);
void CheckAffineBinding(const char* primitive, const tir::PrimFunc& func,
                        const tir::SBlockNode* block);
// The single producer of `block` that reverse_compute_inline needs: exactly one producer in the
// scope, itself a complete block. Throws NonSingleProducerError otherwise.
tir::SBlock CheckSingleProducer(const char* primitive, const BlockScope& scope,
                                const tir::SBlockNode* block);
// TVM's CheckSubtreeCompactDataflow (run by parallel/vectorize/bind when enable_check): every
// child block of `subtree_root` is a local complete block or a local reduction block.
void CheckSubtreeCompactDataflow(const char* primitive, const tir::PrimFunc& func,
                                 const tir::Stmt& subtree_root);

// "`name`" for a block, "`var`" for a loop: how errors name them.
std::string Quote(const tir::SBlockNode* block);
std::string Quote(const tir::ForNode* loop);

}  // namespace wb::schedule
