// Region and index helpers shared by blockize.cpp and layout.cpp, and blockize's core that
// tensorize.cpp shares.
#pragma once

#include "arith/analyzer.h"
#include "arith/int_set.h"
#include "tir/functor.h"

namespace wb::schedule::detail {

// The part of the buffer `region` covers while the variables of `dom` range over it, as TVM's
// EvalSetRegions computes it (clipped to the buffer where a bound is unknown).
tir::BufferRegion RelaxRegion(const tir::BufferRegion& region, const arith::RangeMap& dom,
                              arith::Analyzer* analyzer);

// Simplifies buffer indices and region bounds (not computed values, whose operand order TVM
// keeps) with an analyzer that knows the iteration domains.
class IndexSimplifier : public tir::StmtExprMutator {
 public:
  explicit IndexSimplifier(arith::Analyzer* analyzer) : analyzer_(analyzer) {}
  using tir::StmtExprMutator::VisitExpr_;
  using tir::StmtExprMutator::VisitStmt_;
  tir::Stmt VisitStmt_(const tir::BufferStoreNode* op) override;
  tir::PrimExpr VisitExpr_(const tir::BufferLoadNode* op) override;

 protected:
  tir::BufferRegion VisitBufferRegion(const tir::BufferRegion& region) override;
  arith::Analyzer* analyzer_;
};

// TVM's BlockizeImpl: the realize of the block `<name>_o` that blockize(loop) puts in the loop's
// place (its checks throw ScheduleError(primitive, ...)); nothing is replaced. tensorize of a
// loop blockizes through this without recording a blockize step.
tir::SBlockRealize BlockizeLoop(const tir::PrimFunc& func, const tir::For& loop,
                                bool preserve_unit_iters, const char* primitive);

}  // namespace wb::schedule::detail
