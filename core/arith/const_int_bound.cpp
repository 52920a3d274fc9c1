#include "arith/const_int_bound.h"

#include <algorithm>
#include <stdexcept>

#include "arith/analyzer.h"
#include "ir/structural_equal.h"
#include "tir/functor.h"
#include "tir/op.h"

namespace wb::arith {

using ir::TypeIndex;
using namespace tir;

namespace {

ConstIntBound Everything(DataType t) {
  ConstIntBound b;
  if (t.is_bool()) return {0, 1};
  if (t.is_uint()) {
    b.min_value = 0;
    if (t.bits() < 63) b.max_value = (int64_t(1) << t.bits()) - 1;
  } else if (t.is_int() && t.bits() < 64) {
    b.min_value = -(int64_t(1) << (t.bits() - 1));
    b.max_value = (int64_t(1) << (t.bits() - 1)) - 1;
  }
  return b;
}

ConstIntBound Intersect(ConstIntBound a, ConstIntBound b) {
  return {std::max(a.min_value, b.min_value), std::min(a.max_value, b.max_value)};
}

ConstIntBound Union(ConstIntBound a, ConstIntBound b) {
  return {std::min(a.min_value, b.min_value), std::max(a.max_value, b.max_value)};
}

// The bound of op(x, y) for x, y in the given intervals, for an op monotone in each argument on
// each sign-constant quadrant: the extremes are at the corners.
template <typename F>
ConstIntBound Corners(ConstIntBound a, ConstIntBound b, F op) {
  int64_t v[4] = {op(a.min_value, b.min_value), op(a.min_value, b.max_value),
                  op(a.max_value, b.min_value), op(a.max_value, b.max_value)};
  return {*std::min_element(v, v + 4), *std::max_element(v, v + 4)};
}

// Division where the divisor interval may contain zero: TVM assumes the program never divides
// by zero, so zero is cut off the divisor's interval when it sits at an end.
template <typename F>
ConstIntBound DivBound(ConstIntBound a, ConstIntBound b, F div) {
  if (b.min_value == 0) b.min_value = 1;
  if (b.max_value == 0) b.max_value = -1;
  if (b.min_value > 0 || b.max_value < 0) return Corners(a, b, div);
  // The divisor straddles zero: |a / b| <= |a|.
  int64_t m = std::max(InfAwareNeg(a.min_value), a.max_value);
  return {InfAwareNeg(m), m};
}

}  // namespace

class ConstIntBoundVisitor : public ExprFunctor<ConstIntBound(const PrimExpr&)> {
 public:
  explicit ConstIntBoundVisitor(ConstIntBoundAnalyzer* self) : self_(self) {}

  ConstIntBound VisitExpr(const PrimExpr& e) override {
    ConstIntBound b = ExprFunctor::VisitExpr(e);
    if (e->dtype.is_uint()) {
      // Unsigned arithmetic wraps: a mathematical range that leaves the type's range says
      // nothing about the wrapped value (0u - 1u is the largest value, not -1).
      ConstIntBound all = Everything(e->dtype);
      if (b.min_value < all.min_value || b.max_value > all.max_value) b = all;
    } else if (e->dtype.is_integer() || e->dtype.is_bool()) {
      // Signed overflow is undefined, so (as in TVM) the range is simply clipped to the type.
      b = Intersect(b, Everything(e->dtype));
    }
    for (const auto& fact : self_->facts_) {
      if (fact.expr->type_index() == e->type_index() &&
          ir::StructuralEqual(fact.expr, e, /*map_free_vars=*/false)) {
        b = Intersect(b, fact.bound);
      }
    }
    return b;
  }

  ConstIntBound VisitExpr_(const IntImmNode* op) override { return {op->value, op->value}; }
  ConstIntBound VisitExpr_(const FloatImmNode* op) override { return {}; }
  ConstIntBound VisitExpr_(const StringImmNode* op) override { return {}; }
  ConstIntBound VisitExpr_(const VarNode* op) override {
    auto it = self_->var_map_.find(op);
    if (it != self_->var_map_.end()) return it->second.second;
    return Everything(op->dtype);
  }
  ConstIntBound VisitExpr_(const SizeVarNode* op) override {
    ConstIntBound b = VisitExpr_(static_cast<const VarNode*>(op));
    b.min_value = std::max<int64_t>(b.min_value, 0);
    return b;
  }
  ConstIntBound VisitExpr_(const CastNode* op) override {
    ConstIntBound target = Everything(op->dtype);
    if (!op->value->dtype.is_integer() && !op->value->dtype.is_bool()) return target;
    ConstIntBound b = VisitExpr(op->value);
    // Only a value that fits the target type keeps its bound; otherwise it may wrap.
    if (b.min_value >= target.min_value && b.max_value <= target.max_value) return b;
    return target;
  }
  ConstIntBound VisitExpr_(const AddNode* op) override {
    ConstIntBound a = VisitExpr(op->a), b = VisitExpr(op->b);
    return {InfAwareAdd(a.min_value, b.min_value), InfAwareAdd(a.max_value, b.max_value)};
  }
  ConstIntBound VisitExpr_(const SubNode* op) override {
    ConstIntBound a = VisitExpr(op->a), b = VisitExpr(op->b);
    return {InfAwareAdd(a.min_value, InfAwareNeg(b.max_value)),
            InfAwareAdd(a.max_value, InfAwareNeg(b.min_value))};
  }
  ConstIntBound VisitExpr_(const MulNode* op) override {
    return Corners(VisitExpr(op->a), VisitExpr(op->b), InfAwareMul);
  }
  ConstIntBound VisitExpr_(const DivNode* op) override {
    if (!op->dtype.is_integer()) return {};
    return DivBound(VisitExpr(op->a), VisitExpr(op->b), InfAwareTruncDiv);
  }
  ConstIntBound VisitExpr_(const FloorDivNode* op) override {
    if (!op->dtype.is_integer()) return {};
    return DivBound(VisitExpr(op->a), VisitExpr(op->b), InfAwareFloorDiv);
  }
  ConstIntBound VisitExpr_(const ModNode* op) override {
    ConstIntBound a = VisitExpr(op->a), b = VisitExpr(op->b);
    if (b.min_value <= 0) return Everything(op->dtype);
    int64_t m = b.max_value == kPosInf ? kPosInf : b.max_value - 1;
    if (a.min_value >= 0) {
      if (a.max_value < b.min_value) return a;
      return {0, std::min(a.max_value, m)};
    }
    return {std::max(a.min_value, InfAwareNeg(m)), std::min(std::max<int64_t>(a.max_value, 0), m)};
  }
  ConstIntBound VisitExpr_(const FloorModNode* op) override {
    ConstIntBound a = VisitExpr(op->a), b = VisitExpr(op->b);
    if (b.min_value <= 0) {
      if (b.max_value < 0) {
        int64_t m = b.min_value == kNegInf ? kNegInf : b.min_value + 1;
        return {m, 0};
      }
      return Everything(op->dtype);
    }
    int64_t m = b.max_value == kPosInf ? kPosInf : b.max_value - 1;
    if (a.min_value >= 0) {
      if (a.max_value < b.min_value) return a;
      return {0, std::min(a.max_value, m)};
    }
    return {0, m};
  }
  ConstIntBound VisitExpr_(const MinNode* op) override {
    ConstIntBound a = VisitExpr(op->a), b = VisitExpr(op->b);
    return {std::min(a.min_value, b.min_value), std::min(a.max_value, b.max_value)};
  }
  ConstIntBound VisitExpr_(const MaxNode* op) override {
    ConstIntBound a = VisitExpr(op->a), b = VisitExpr(op->b);
    return {std::max(a.min_value, b.min_value), std::max(a.max_value, b.max_value)};
  }
  ConstIntBound VisitExpr_(const EQNode*) override { return {0, 1}; }
  ConstIntBound VisitExpr_(const NENode*) override { return {0, 1}; }
  ConstIntBound VisitExpr_(const LTNode*) override { return {0, 1}; }
  ConstIntBound VisitExpr_(const LENode*) override { return {0, 1}; }
  ConstIntBound VisitExpr_(const GTNode*) override { return {0, 1}; }
  ConstIntBound VisitExpr_(const GENode*) override { return {0, 1}; }
  ConstIntBound VisitExpr_(const AndNode*) override { return {0, 1}; }
  ConstIntBound VisitExpr_(const OrNode*) override { return {0, 1}; }
  ConstIntBound VisitExpr_(const NotNode*) override { return {0, 1}; }
  ConstIntBound VisitExpr_(const SelectNode* op) override {
    return Union(VisitExpr(op->true_value), VisitExpr(op->false_value));
  }
  ConstIntBound VisitExpr_(const BufferLoadNode* op) override { return Everything(op->dtype); }
  ConstIntBound VisitExpr_(const RampNode* op) override {
    ConstIntBound base = VisitExpr(op->base), stride = VisitExpr(op->stride);
    ConstIntBound last = Corners(stride, {0, op->lanes - 1}, InfAwareMul);
    return {InfAwareAdd(base.min_value, last.min_value), InfAwareAdd(base.max_value, last.max_value)};
  }
  ConstIntBound VisitExpr_(const BroadcastNode* op) override { return VisitExpr(op->value); }
  ConstIntBound VisitExpr_(const ShuffleNode* op) override { return Everything(op->dtype); }
  ConstIntBound VisitExpr_(const LetNode* op) override {
    auto saved = self_->var_map_;
    if (op->value->dtype.is_integer()) {
      self_->var_map_[op->var.get()] = {op->var, VisitExpr(op->value)};
    }
    ConstIntBound b = VisitExpr(op->body);
    self_->var_map_ = std::move(saved);
    return b;
  }
  ConstIntBound VisitExpr_(const CallNode* op) override { return Everything(op->dtype); }
  ConstIntBound VisitExpr_(const ReduceNode* op) override { return Everything(op->dtype); }

 private:
  ConstIntBoundAnalyzer* self_;
};

ConstIntBound ConstIntBoundAnalyzer::operator()(const PrimExpr& expr) {
  ConstIntBoundVisitor visitor(this);
  return visitor(expr);
}

void ConstIntBoundAnalyzer::Bind(const Var& var, const Range& range, bool allow_override) {
  ConstIntBound lo = (*this)(range->min);
  // The last value is min + extent - 1; its largest possible value bounds the variable.
  ConstIntBound last = (*this)(tir::sub(tir::add(range->min, range->extent),
                                        tir::make_const(range->extent->dtype, int64_t(1))));
  Update(var, {lo.min_value, last.max_value}, allow_override);
}

void ConstIntBoundAnalyzer::Update(const Var& var, const ConstIntBound& bound,
                                   bool allow_override) {
  auto it = var_map_.find(var.get());
  if (it != var_map_.end() && !allow_override && !(it->second.second == bound)) {
    throw std::logic_error("ConstIntBoundAnalyzer: variable " + var->name_hint +
                           " is already bound to a different range");
  }
  var_map_[var.get()] = {var, bound};
}

void ConstIntBoundAnalyzer::CollectFacts(const PrimExpr& cond, std::vector<Fact>* out) {
  auto add_diff = [&](const PrimExpr& a, const PrimExpr& b, ConstIntBound bound) {
    if (!a->dtype.is_integer() || !b->dtype.is_integer()) return;
    if (a->dtype.is_uint() || b->dtype.is_uint()) {
      // An unsigned a - b wraps, so no fact about it holds; only a comparison with a constant
      // bounds the other side (its value is the mathematical one).
      if (const int64_t* c = AsConstInt(b)) {
        out->push_back({a, {InfAwareAdd(bound.min_value, *c), InfAwareAdd(bound.max_value, *c)}});
      } else if (const int64_t* c = AsConstInt(a)) {
        out->push_back({b, {InfAwareAdd(*c, InfAwareNeg(bound.max_value)),
                            InfAwareAdd(*c, InfAwareNeg(bound.min_value))}});
      }
      return;
    }
    out->push_back({parent_->canonical_simplify(tir::sub(a, b)), bound});
    ConstIntBound neg{InfAwareNeg(bound.max_value), InfAwareNeg(bound.min_value)};
    out->push_back({parent_->canonical_simplify(tir::sub(b, a)), neg});
  };
  switch (cond->type_index()) {
    case TypeIndex::kAnd: {
      auto* op = cond.as<AndNode>();
      CollectFacts(op->a, out);
      CollectFacts(op->b, out);
      return;
    }
    case TypeIndex::kNot: {
      const PrimExpr& a = cond.as<NotNode>()->a;
      auto* bin = a.as<BinaryNode>();
      switch (a->type_index()) {
        case TypeIndex::kLT: return CollectFacts(tir::greater_equal(bin->a, bin->b), out);
        case TypeIndex::kLE: return CollectFacts(tir::greater(bin->a, bin->b), out);
        case TypeIndex::kGT: return CollectFacts(tir::less_equal(bin->a, bin->b), out);
        case TypeIndex::kGE: return CollectFacts(tir::less(bin->a, bin->b), out);
        case TypeIndex::kNE: return CollectFacts(tir::equal(bin->a, bin->b), out);
        default: return;
      }
    }
    case TypeIndex::kLT: {
      auto* op = cond.as<BinaryNode>();
      return add_diff(op->a, op->b, {kNegInf, -1});
    }
    case TypeIndex::kLE: {
      auto* op = cond.as<BinaryNode>();
      return add_diff(op->a, op->b, {kNegInf, 0});
    }
    case TypeIndex::kGT: {
      auto* op = cond.as<BinaryNode>();
      return add_diff(op->a, op->b, {1, kPosInf});
    }
    case TypeIndex::kGE: {
      auto* op = cond.as<BinaryNode>();
      return add_diff(op->a, op->b, {0, kPosInf});
    }
    case TypeIndex::kEQ: {
      auto* op = cond.as<BinaryNode>();
      return add_diff(op->a, op->b, {0, 0});
    }
    default:
      return;
  }
}

std::function<void()> ConstIntBoundAnalyzer::EnterConstraint(const PrimExpr& constraint) {
  std::vector<Fact> facts;
  CollectFacts(constraint, &facts);
  auto saved_vars = var_map_;
  size_t saved_facts = facts_.size();
  // Peel `x + c`, `x - c` and `x * c` (c > 0) so that a fact on a variable's canonical form
  // (`i - 4 < 0`) also bounds the variable itself.
  for (size_t i = 0; i < facts.size(); ++i) {
    Fact fact = facts[i];
    facts_.push_back(fact);
    for (;;) {
      if (auto* var = fact.expr.as<VarNode>()) {
        Var v = GetRef(var);
        auto it = var_map_.find(var);
        ConstIntBound cur = it != var_map_.end() ? it->second.second : ConstIntBound{};
        var_map_[var] = {v, Intersect(cur, fact.bound)};
        break;
      }
      // An unsigned x + c may wrap, so a fact on it says nothing about x.
      if (fact.expr->dtype.is_uint()) break;
      auto* bin = fact.expr.as<BinaryNode>();
      const int64_t* c = bin ? AsConstInt(bin->b) : nullptr;
      if (!c) break;
      if (fact.expr->type_index() == TypeIndex::kAdd) {
        fact = {bin->a, {InfAwareAdd(fact.bound.min_value, -*c),
                         InfAwareAdd(fact.bound.max_value, -*c)}};
      } else if (fact.expr->type_index() == TypeIndex::kSub) {
        fact = {bin->a, {InfAwareAdd(fact.bound.min_value, *c),
                         InfAwareAdd(fact.bound.max_value, *c)}};
      } else if (fact.expr->type_index() == TypeIndex::kMul && *c > 0) {
        // c*x >= lo  =>  x >= ceil(lo / c);  c*x <= hi  =>  x <= floor(hi / c).
        int64_t lo = fact.bound.min_value, hi = fact.bound.max_value;
        fact = {bin->a, {lo == kNegInf ? kNegInf : -FloorDiv(-lo, *c),
                         hi == kPosInf ? kPosInf : FloorDiv(hi, *c)}};
      } else {
        break;
      }
      facts_.push_back(fact);
    }
  }
  return [this, saved_vars = std::move(saved_vars), saved_facts]() {
    var_map_ = saved_vars;
    facts_.resize(saved_facts);
  };
}

}  // namespace wb::arith
