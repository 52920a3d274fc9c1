// Region and index helpers shared by blockize.cpp and layout.cpp.
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

}  // namespace wb::schedule::detail
