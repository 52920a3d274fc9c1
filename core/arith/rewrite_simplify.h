// RewriteSimplifier: bottom-up local rewrite rules in the manner of TVM's rewrite_simplify.cc.
// Constants fold; identities such as `x - x -> 0`, `min(x, x + 1) -> x`, `(i*4 + j) // 4 -> i`
// (when 0 <= j < 4), `(i*4 + j) % 4 -> j` fire; comparisons are decided from the bound of the
// canonical difference of their sides, so `i < n` is true inside `with constraint(i < n)` and
// `i < 16` is true for a loop variable of extent 16. Variables bound to an expression
// (Analyzer::Bind(var, expr)) are substituted.
#pragma once

#include <functional>
#include <map>
#include <utility>
#include <vector>

#include "tir/expr.h"

namespace wb::arith {

using tir::PrimExpr;
using tir::Var;

class Analyzer;

class RewriteSimplifier {
 public:
  explicit RewriteSimplifier(Analyzer* parent) : parent_(parent) {}

  PrimExpr operator()(const PrimExpr& expr);
  void Update(const Var& var, const PrimExpr& value, bool allow_override = false);
  // The conjuncts of `constraint` become literal facts: an expression equal to one simplifies to
  // true, and its negation to false.
  std::function<void()> EnterConstraint(const PrimExpr& constraint);

 private:
  friend class RewriteMutator;
  Analyzer* parent_;
  std::map<const tir::VarNode*, std::pair<Var, PrimExpr>> var_map_;
  std::vector<PrimExpr> literal_constraints_;
};

}  // namespace wb::arith
