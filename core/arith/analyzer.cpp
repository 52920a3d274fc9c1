#include "arith/analyzer.h"

#include "tir/op.h"

namespace wb::arith {

using namespace tir;

namespace {

// A comparison the simplifier left open, `a < b` (or <=, >, >=), is true when b - a is at least
// 1 (0) over the variables' bound ranges taken as symbolic intervals: `ax0 <= n - 1` where
// ax0 ranges over [0, n - 1] (TVM's ProofStrength::kSymbolicBound, the same pattern only).
bool CanProveSymbolicBound(Analyzer& analyzer, const PrimExpr& cond) {
  auto* cmp = dynamic_cast<const BinaryNode*>(cond.get());
  if (!cmp || !cmp->a->dtype.is_int() || !cmp->b->dtype.is_int()) return false;
  PrimExpr diff;
  int64_t least = 0;
  if (cond.as<LTNode>()) {
    diff = sub(cmp->b, cmp->a), least = 1;
  } else if (cond.as<LENode>()) {
    diff = sub(cmp->b, cmp->a);
  } else if (cond.as<GTNode>()) {
    diff = sub(cmp->a, cmp->b), least = 1;
  } else if (cond.as<GENode>()) {
    diff = sub(cmp->a, cmp->b);
  } else {
    return false;
  }
  IntSet range = analyzer.int_set(analyzer.Simplify(diff));
  if (!range.HasLowerBound()) return false;
  return analyzer.const_int_bound(analyzer.Simplify(range.min_value)).min_value >= least;
}

}  // namespace

Analyzer::Analyzer()
    : const_int_bound(this), modular_set(this), rewrite_simplify(this), canonical_simplify(this),
      int_set(this) {}

void Analyzer::Bind(const Var& var, const Range& range, bool allow_override) {
  if (IsConstInt(range->extent, 1)) {
    Bind(var, range->min, allow_override);
    return;
  }
  const_int_bound.Bind(var, range, allow_override);
  int_set.Bind(var, range, allow_override);
}

void Analyzer::Bind(const Var& var, const PrimExpr& expr, bool allow_override) {
  PrimExpr value = Simplify(expr);
  const_int_bound.Update(var, const_int_bound(value), allow_override);
  modular_set.Update(var, modular_set(value), allow_override);
  rewrite_simplify.Update(var, value, allow_override);
  int_set.Bind(var, MakeRange(value, make_const(value->dtype, int64_t(1))), allow_override);
}

PrimExpr Analyzer::Simplify(const PrimExpr& expr) {
  // TVM's order (Analyzer::Simplify with its default two steps): canonical first, as a rewrite
  // could destroy structure the canonical form relies on, then rewrite, then canonical again,
  // so the result is in canonical form (`x - 1`, not the rewriter's `x + -1`).
  PrimExpr res = canonical_simplify(expr);
  if (AsConstInt(res)) return res;
  res = rewrite_simplify(res);
  if (AsConstInt(res)) return res;
  return canonical_simplify(res);
}

bool Analyzer::CanProve(const PrimExpr& cond) {
  PrimExpr res = Simplify(cond);
  const int64_t* v = AsConstInt(res);
  if (v) return *v != 0;
  return CanProveSymbolicBound(*this, res);
}



bool Analyzer::CanProveEqual(const PrimExpr& a, const PrimExpr& b) {
  // AsConstInt points into its argument: keep the simplified expression alive.
  PrimExpr diff = Simplify(tir::sub(a, b));
  const int64_t* v = AsConstInt(diff);
  return v && *v == 0;
}

bool Analyzer::CanProveGreaterEqual(const PrimExpr& expr, int64_t lower_bound) {
  if (const_int_bound(expr).min_value >= lower_bound) return true;
  return const_int_bound(canonical_simplify(rewrite_simplify(expr))).min_value >= lower_bound;
}

bool Analyzer::CanProveLess(const PrimExpr& expr, int64_t upper_bound) {
  if (const_int_bound(expr).max_value < upper_bound) return true;
  return const_int_bound(canonical_simplify(rewrite_simplify(expr))).max_value < upper_bound;
}

ConstraintScope::ConstraintScope(Analyzer* analyzer, const PrimExpr& constraint) {
  // Each sub-analyzer learns the facts in its own terms; undone in reverse order.
  undo_.push_back(analyzer->const_int_bound.EnterConstraint(constraint));
  undo_.push_back(analyzer->modular_set.EnterConstraint(constraint));
  undo_.push_back(analyzer->rewrite_simplify.EnterConstraint(constraint));
}

ConstraintScope::~ConstraintScope() {
  for (auto it = undo_.rbegin(); it != undo_.rend(); ++it) (*it)();
}

}  // namespace wb::arith
