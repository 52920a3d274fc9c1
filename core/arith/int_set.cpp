#include "arith/int_set.h"

#include <stdexcept>

#include "arith/analyzer.h"
#include "ir/structural_equal.h"
#include "tir/functor.h"
#include "tir/op.h"

namespace wb::arith {

using ir::TypeIndex;
using namespace tir;

IntSet IntSet::Interval(PrimExpr min_value, PrimExpr max_value) {
  IntSet s;
  s.min_value = std::move(min_value);
  s.max_value = std::move(max_value);
  return s;
}
IntSet IntSet::SinglePoint(PrimExpr value) { return Interval(value, value); }
IntSet IntSet::FromRange(const Range& range) {
  PrimExpr one = make_const(range->extent->dtype, int64_t(1));
  return Interval(range->min, tir::sub(tir::add(range->min, range->extent), one));
}
IntSet IntSet::Everything() { return IntSet(); }

bool IntSet::IsSinglePoint() const {
  return min_value.defined() && max_value.defined() &&
         (min_value.same_as(max_value) || ir::StructuralEqual(min_value, max_value, false));
}

bool IntSet::IsEmpty() const {
  const int64_t* lo = min_value.defined() ? AsConstInt(min_value) : nullptr;
  const int64_t* hi = max_value.defined() ? AsConstInt(max_value) : nullptr;
  return lo && hi && *lo > *hi;
}

Range IntSet::CoverRange(const Range& fallback) const {
  if (!min_value.defined() || !max_value.defined()) return fallback;
  Analyzer ana;
  PrimExpr one = make_const(max_value->dtype, int64_t(1));
  return MakeRange(min_value, ana.Simplify(tir::add(tir::sub(max_value, min_value), one)));
}

namespace {

PrimExpr MinOf(const PrimExpr& a, const PrimExpr& b) {
  return a.defined() && b.defined() ? tir::min(a, b) : PrimExpr();
}
PrimExpr MaxOf(const PrimExpr& a, const PrimExpr& b) {
  return a.defined() && b.defined() ? tir::max(a, b) : PrimExpr();
}

class IntSetEvaluator : public ExprFunctor<IntSet(const PrimExpr&)> {
 public:
  IntSetEvaluator(const DomMap& dom, Analyzer* ana) : dom_(dom), ana_(ana) {}

  IntSet Eval(const PrimExpr& e) {
    IntSet s = VisitExpr(e);
    if (s.min_value.defined()) s.min_value = ana_->Simplify(s.min_value);
    if (s.max_value.defined()) s.max_value = ana_->Simplify(s.max_value);
    return s;
  }

  IntSet VisitExpr_(const IntImmNode* op) override { return IntSet::SinglePoint(GetRef(op)); }
  IntSet VisitExpr_(const FloatImmNode* op) override { return IntSet::SinglePoint(GetRef(op)); }
  IntSet VisitExpr_(const StringImmNode* op) override { return IntSet::SinglePoint(GetRef(op)); }
  IntSet VisitExpr_(const VarNode* op) override {
    auto it = dom_.find(GetRef(op));
    if (it != dom_.end()) return it->second;
    return IntSet::SinglePoint(GetRef(op));
  }
  IntSet VisitExpr_(const SizeVarNode* op) override {
    return VisitExpr_(static_cast<const VarNode*>(op));
  }
  IntSet VisitExpr_(const CastNode* op) override {
    IntSet s = VisitExpr(op->value);
    if (s.IsSinglePoint()) return IntSet::SinglePoint(tir::cast(op->dtype, s.min_value));
    if (!op->dtype.is_integer() || !op->value->dtype.is_integer() ||
        op->dtype.bits() < op->value->dtype.bits()) {
      return Opaque(GetRef(op));
    }
    return IntSet::Interval(s.min_value.defined() ? tir::cast(op->dtype, s.min_value) : PrimExpr(),
                            s.max_value.defined() ? tir::cast(op->dtype, s.max_value) : PrimExpr());
  }
  IntSet VisitExpr_(const AddNode* op) override {
    IntSet a = VisitExpr(op->a), b = VisitExpr(op->b);
    return IntSet::Interval(Combine(a.min_value, b.min_value, tir::add),
                            Combine(a.max_value, b.max_value, tir::add));
  }
  IntSet VisitExpr_(const SubNode* op) override {
    IntSet a = VisitExpr(op->a), b = VisitExpr(op->b);
    return IntSet::Interval(Combine(a.min_value, b.max_value, tir::sub),
                            Combine(a.max_value, b.min_value, tir::sub));
  }
  IntSet VisitExpr_(const MulNode* op) override {
    IntSet a = VisitExpr(op->a), b = VisitExpr(op->b);
    if (a.IsSinglePoint() && b.IsSinglePoint()) {
      return IntSet::SinglePoint(tir::mul(a.min_value, b.min_value));
    }
    if (a.IsSinglePoint()) std::swap(a, b);
    if (!b.IsSinglePoint()) return Opaque(GetRef(op));
    const PrimExpr& c = b.min_value;
    if (ana_->CanProveGreaterEqual(c, 0)) {
      return IntSet::Interval(Combine(a.min_value, c, tir::mul), Combine(a.max_value, c, tir::mul));
    }
    if (ana_->CanProveLess(c, 0)) {
      return IntSet::Interval(Combine(a.max_value, c, tir::mul), Combine(a.min_value, c, tir::mul));
    }
    return Opaque(GetRef(op));
  }
  IntSet DivSet(const PrimExpr& self, const PrimExpr& lhs, const PrimExpr& rhs, bool floor) {
    IntSet a = VisitExpr(lhs), b = VisitExpr(rhs);
    auto div = floor ? tir::floordiv : tir::truncdiv;
    if (a.IsSinglePoint() && b.IsSinglePoint()) return IntSet::SinglePoint(div(a.min_value, b.min_value, {}));
    if (!b.IsSinglePoint()) return Opaque(self);
    const PrimExpr& c = b.min_value;
    // Truncation is monotone like floor division only over non-negative dividends.
    if (!floor && !(a.min_value.defined() && ana_->CanProveGreaterEqual(a.min_value, 0))) {
      return Opaque(self);
    }
    auto d = [&](const PrimExpr& x, const PrimExpr& y, Span) { return div(x, y, {}); };
    if (ana_->CanProveGreaterEqual(c, 1)) {
      return IntSet::Interval(Combine(a.min_value, c, d), Combine(a.max_value, c, d));
    }
    if (ana_->CanProveLess(c, 0)) {
      return IntSet::Interval(Combine(a.max_value, c, d), Combine(a.min_value, c, d));
    }
    return Opaque(self);
  }
  IntSet VisitExpr_(const DivNode* op) override { return DivSet(GetRef(op), op->a, op->b, false); }
  IntSet VisitExpr_(const FloorDivNode* op) override {
    return DivSet(GetRef(op), op->a, op->b, true);
  }
  IntSet ModSet(const PrimExpr& self, const PrimExpr& lhs, const PrimExpr& rhs, bool floor) {
    IntSet a = VisitExpr(lhs), b = VisitExpr(rhs);
    auto mod = floor ? tir::floormod : tir::truncmod;
    auto div = floor ? tir::floordiv : tir::truncdiv;
    if (a.IsSinglePoint() && b.IsSinglePoint()) return IntSet::SinglePoint(mod(a.min_value, b.min_value, {}));
    if (!b.IsSinglePoint() || !ana_->CanProveGreaterEqual(b.min_value, 1)) return Opaque(self);
    const PrimExpr& c = b.min_value;
    bool nonneg = a.min_value.defined() && ana_->CanProveGreaterEqual(a.min_value, 0);
    if (!floor && !nonneg) return Opaque(self);
    // When both ends fall in one period the operation is a shift and keeps the interval.
    if (a.min_value.defined() && a.max_value.defined() &&
        ana_->CanProveEqual(div(a.min_value, c, {}), div(a.max_value, c, {}))) {
      return IntSet::Interval(mod(a.min_value, c, {}), mod(a.max_value, c, {}));
    }
    PrimExpr zero = make_const(c->dtype, int64_t(0));
    return IntSet::Interval(zero, tir::sub(c, make_const(c->dtype, int64_t(1))));
  }
  IntSet VisitExpr_(const ModNode* op) override { return ModSet(GetRef(op), op->a, op->b, false); }
  IntSet VisitExpr_(const FloorModNode* op) override {
    return ModSet(GetRef(op), op->a, op->b, true);
  }
  IntSet VisitExpr_(const MinNode* op) override {
    IntSet a = VisitExpr(op->a), b = VisitExpr(op->b);
    // min(x, +inf) == x at the upper end; an unbounded lower end stays unbounded.
    PrimExpr hi = !a.max_value.defined() ? b.max_value
                  : !b.max_value.defined() ? a.max_value
                                           : tir::min(a.max_value, b.max_value);
    return IntSet::Interval(MinOf(a.min_value, b.min_value), hi);
  }
  IntSet VisitExpr_(const MaxNode* op) override {
    IntSet a = VisitExpr(op->a), b = VisitExpr(op->b);
    PrimExpr lo = !a.min_value.defined() ? b.min_value
                  : !b.min_value.defined() ? a.min_value
                                           : tir::max(a.min_value, b.min_value);
    return IntSet::Interval(lo, MaxOf(a.max_value, b.max_value));
  }
  IntSet VisitExpr_(const SelectNode* op) override {
    IntSet t = VisitExpr(op->true_value), f = VisitExpr(op->false_value);
    return IntSet::Interval(MinOf(t.min_value, f.min_value), MaxOf(t.max_value, f.max_value));
  }
  IntSet VisitExpr_(const EQNode* op) override { return Opaque(GetRef(op)); }
  IntSet VisitExpr_(const NENode* op) override { return Opaque(GetRef(op)); }
  IntSet VisitExpr_(const LTNode* op) override { return Opaque(GetRef(op)); }
  IntSet VisitExpr_(const LENode* op) override { return Opaque(GetRef(op)); }
  IntSet VisitExpr_(const GTNode* op) override { return Opaque(GetRef(op)); }
  IntSet VisitExpr_(const GENode* op) override { return Opaque(GetRef(op)); }
  IntSet VisitExpr_(const AndNode* op) override { return Opaque(GetRef(op)); }
  IntSet VisitExpr_(const OrNode* op) override { return Opaque(GetRef(op)); }
  IntSet VisitExpr_(const NotNode* op) override { return Opaque(GetRef(op)); }
  IntSet VisitExpr_(const BufferLoadNode* op) override { return Opaque(GetRef(op)); }
  IntSet VisitExpr_(const RampNode* op) override { return Opaque(GetRef(op)); }
  IntSet VisitExpr_(const BroadcastNode* op) override { return VisitExpr(op->value); }
  IntSet VisitExpr_(const ShuffleNode* op) override { return Opaque(GetRef(op)); }
  IntSet VisitExpr_(const LetNode* op) override { return Opaque(GetRef(op)); }
  IntSet VisitExpr_(const CallNode* op) override { return Opaque(GetRef(op)); }
  IntSet VisitExpr_(const ReduceNode* op) override { return Opaque(GetRef(op)); }

 private:
  template <typename F>
  static PrimExpr Combine(const PrimExpr& a, const PrimExpr& b, F f) {
    if (!a.defined() || !b.defined()) return PrimExpr();
    return f(a, b, {});
  }

  // An expression the evaluator does not look into: a point when it uses no relaxed variable,
  // else its constant bound with each relaxed variable ranging over its set's constant ends.
  IntSet Opaque(const PrimExpr& e) {
    bool uses_dom = false;
    PostOrderVisit(e, [&](const ir::Object* n) {
      if (auto* v = dynamic_cast<const VarNode*>(n)) {
        if (dom_.count(GetRef(v))) uses_dom = true;
      }
    });
    if (!uses_dom) return IntSet::SinglePoint(e);
    if (!e->dtype.is_integer() && !e->dtype.is_bool()) return IntSet::Everything();
    Analyzer local;
    for (const auto& [var, set] : dom_) {
      ConstIntBound b;
      if (set.min_value.defined()) b.min_value = ana_->const_int_bound(set.min_value).min_value;
      if (set.max_value.defined()) b.max_value = ana_->const_int_bound(set.max_value).max_value;
      local.const_int_bound.Update(var, b, /*allow_override=*/true);
    }
    ConstIntBound b = local.const_int_bound(e);
    IntSet s;
    if (b.min_value != kNegInf) s.min_value = make_const(e->dtype, b.min_value);
    if (b.max_value != kPosInf) s.max_value = make_const(e->dtype, b.max_value);
    return s;
  }

  const DomMap& dom_;
  Analyzer* ana_;
};

}  // namespace

IntSet EvalSet(const PrimExpr& expr, const DomMap& dom, Analyzer* analyzer) {
  Analyzer local;
  Analyzer* ana = analyzer ? analyzer : &local;
  IntSetEvaluator evaluator(dom, ana);
  return evaluator.Eval(ana->Simplify(expr));
}

IntSet EvalSet(const PrimExpr& expr, const RangeMap& dom, Analyzer* analyzer) {
  DomMap sets;
  for (const auto& [var, range] : dom) sets[var] = IntSet::FromRange(range);
  return EvalSet(expr, sets, analyzer);
}

IntSet Union(const std::vector<IntSet>& sets, Analyzer* analyzer) {
  if (sets.empty()) return IntSet::Interval(make_const(DataType::Int(32), int64_t(0)),
                                            make_const(DataType::Int(32), int64_t(-1)));
  Analyzer local;
  Analyzer* ana = analyzer ? analyzer : &local;
  IntSet r = sets[0];
  for (size_t i = 1; i < sets.size(); ++i) {
    r.min_value = MinOf(r.min_value, sets[i].min_value);
    r.max_value = MaxOf(r.max_value, sets[i].max_value);
  }
  if (r.min_value.defined()) r.min_value = ana->Simplify(r.min_value);
  if (r.max_value.defined()) r.max_value = ana->Simplify(r.max_value);
  return r;
}

IntSet Intersect(const std::vector<IntSet>& sets, Analyzer* analyzer) {
  Analyzer local;
  Analyzer* ana = analyzer ? analyzer : &local;
  IntSet r;
  for (const IntSet& s : sets) {
    if (s.min_value.defined()) {
      r.min_value = r.min_value.defined() ? tir::max(r.min_value, s.min_value) : s.min_value;
    }
    if (s.max_value.defined()) {
      r.max_value = r.max_value.defined() ? tir::min(r.max_value, s.max_value) : s.max_value;
    }
  }
  if (r.min_value.defined()) r.min_value = ana->Simplify(r.min_value);
  if (r.max_value.defined()) r.max_value = ana->Simplify(r.max_value);
  return r;
}

IntSet IntSetAnalyzer::operator()(const PrimExpr& expr) { return EvalSet(expr, dom_, parent_); }

IntSet IntSetAnalyzer::operator()(const PrimExpr& expr, const DomMap& dom) {
  DomMap merged = dom_;
  for (const auto& [var, set] : dom) merged[var] = set;
  return EvalSet(expr, merged, parent_);
}

void IntSetAnalyzer::Bind(const Var& var, const Range& range, bool allow_override) {
  if (dom_.count(var) && !allow_override) {
    const IntSet& old = dom_[var];
    IntSet now = IntSet::FromRange(range);
    if (!ir::StructuralEqual(old.min_value, now.min_value, false) ||
        !ir::StructuralEqual(old.max_value, now.max_value, false)) {
      throw std::logic_error("IntSetAnalyzer: variable " + var->name_hint +
                             " is already bound to a different range");
    }
  }
  dom_[var] = IntSet::FromRange(range);
}

}  // namespace wb::arith
