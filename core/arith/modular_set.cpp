#include "arith/modular_set.h"

#include <stdexcept>

#include "arith/analyzer.h"
#include "arith/int_math.h"
#include "tir/functor.h"

namespace wb::arith {

using ir::TypeIndex;
using namespace tir;

namespace {

ModularSet Everything() { return {1, 0}; }

ModularSet Make(int64_t coeff, int64_t base) {
  if (coeff < 0) coeff = -coeff;
  if (coeff == 0) return {0, base};
  return {coeff, FloorMod(base, coeff)};
}

// Small enough that products and sums of coefficients cannot overflow.
bool Small(int64_t v) { return v > -(int64_t(1) << 31) && v < (int64_t(1) << 31); }

}  // namespace

class ModularSetVisitor : public ExprFunctor<ModularSet(const PrimExpr&)> {
 public:
  explicit ModularSetVisitor(ModularSetAnalyzer* self) : self_(self) {}

  ModularSet VisitExpr(const PrimExpr& e) override {
    if (!e->dtype.is_integer()) return Everything();
    ModularSet m = ExprFunctor::VisitExpr(e);
    if (!Small(m.coeff) || !Small(m.base)) return Everything();
    if (e->dtype.is_uint() && e->dtype.bits() < 63) {
      // The value wraps modulo 2^bits: only congruences modulo a divisor of 2^bits survive.
      int64_t wrap = int64_t(1) << e->dtype.bits();
      if (m.coeff == 0) return {0, FloorMod(m.base, wrap)};
      m.coeff = Gcd(m.coeff, wrap);
      m.base = FloorMod(m.base, m.coeff);
    } else if (e->dtype.is_uint() && m.coeff != 0) {
      m.coeff = m.coeff & -m.coeff;  // the largest power of two that divides it
      m.base = FloorMod(m.base, m.coeff);
    }
    return m;
  }
  ModularSet VisitExpr_(const IntImmNode* op) override { return {0, op->value}; }
  ModularSet VisitExpr_(const FloatImmNode*) override { return Everything(); }
  ModularSet VisitExpr_(const StringImmNode*) override { return Everything(); }
  ModularSet VisitExpr_(const VarNode* op) override {
    auto it = self_->var_map_.find(op);
    if (it != self_->var_map_.end()) return it->second.second;
    // A variable bound to a single value is that constant.
    ConstIntBound b = self_->parent_->const_int_bound(GetRef(op));
    if (b.is_const()) return {0, b.min_value};
    return Everything();
  }
  ModularSet VisitExpr_(const SizeVarNode* op) override {
    return VisitExpr_(static_cast<const VarNode*>(op));
  }
  ModularSet VisitExpr_(const CastNode* op) override {
    // A widening integer cast keeps the value; anything else may wrap.
    if (op->value->dtype.is_int() && op->dtype.is_int() &&
        op->dtype.bits() >= op->value->dtype.bits()) {
      return VisitExpr(op->value);
    }
    return Everything();
  }
  ModularSet VisitExpr_(const AddNode* op) override {
    ModularSet a = VisitExpr(op->a), b = VisitExpr(op->b);
    return Make(Gcd(a.coeff, b.coeff), a.base + b.base);
  }
  ModularSet VisitExpr_(const SubNode* op) override {
    ModularSet a = VisitExpr(op->a), b = VisitExpr(op->b);
    return Make(Gcd(a.coeff, b.coeff), a.base - b.base);
  }
  ModularSet VisitExpr_(const MulNode* op) override {
    // (c1*x + b1)(c2*y + b2) = c1c2xy + c1b2x + c2b1y + b1b2
    ModularSet a = VisitExpr(op->a), b = VisitExpr(op->b);
    int64_t coeff = Gcd(Gcd(a.coeff * b.coeff, a.coeff * b.base), b.coeff * a.base);
    return Make(coeff, a.base * b.base);
  }
  ModularSet DivByConst(const PrimExpr& lhs, int64_t c, bool floor) {
    ModularSet a = VisitExpr(lhs);
    if (c == 0) return Everything();
    if (a.coeff == 0) {
      if (floor) return {0, FloorDiv(a.base, c)};
      return {0, a.base / c};
    }
    // (coeff*k + base) / c = (coeff/c)*k + base/c when c divides both and the division is exact.
    if (c > 0 && a.coeff % c == 0 && a.base % c == 0) {
      if (floor || self_->parent_->CanProveGreaterEqual(lhs, 0)) return Make(a.coeff / c, a.base / c);
    }
    return Everything();
  }
  ModularSet VisitExpr_(const DivNode* op) override {
    if (const int64_t* c = AsConstInt(op->b)) return DivByConst(op->a, *c, false);
    return Everything();
  }
  ModularSet VisitExpr_(const FloorDivNode* op) override {
    if (const int64_t* c = AsConstInt(op->b)) return DivByConst(op->a, *c, true);
    return Everything();
  }
  ModularSet ModByConst(const PrimExpr& lhs, int64_t c, bool floor) {
    ModularSet a = VisitExpr(lhs);
    if (c <= 0) return Everything();
    if (a.coeff == 0) return {0, floor ? FloorMod(a.base, c) : a.base % c};
    // A truncating modulo of a negative value is negative: only floor semantics are periodic.
    if (!floor && !self_->parent_->CanProveGreaterEqual(lhs, 0)) return Everything();
    // c divides every coeff*k: the remainder is the constant base mod c.
    if (a.coeff % c == 0) return {0, FloorMod(a.base, c)};
    // x = coeff*k + base, and gcd(coeff, c) divides both coeff and c, so x mod c stays
    // congruent to base modulo that gcd.
    return Make(Gcd(a.coeff, c), a.base);
  }
  ModularSet VisitExpr_(const ModNode* op) override {
    if (const int64_t* c = AsConstInt(op->b)) return ModByConst(op->a, *c, false);
    return Everything();
  }
  ModularSet VisitExpr_(const FloorModNode* op) override {
    if (const int64_t* c = AsConstInt(op->b)) return ModByConst(op->a, *c, true);
    return Everything();
  }
  ModularSet Union(ModularSet a, ModularSet b) {
    int64_t coeff = Gcd(Gcd(a.coeff, b.coeff), a.base - b.base);
    return Make(coeff, a.base);
  }
  ModularSet VisitExpr_(const MinNode* op) override {
    return Union(VisitExpr(op->a), VisitExpr(op->b));
  }
  ModularSet VisitExpr_(const MaxNode* op) override {
    return Union(VisitExpr(op->a), VisitExpr(op->b));
  }
  ModularSet VisitExpr_(const SelectNode* op) override {
    return Union(VisitExpr(op->true_value), VisitExpr(op->false_value));
  }
  ModularSet VisitExpr_(const EQNode*) override { return Everything(); }
  ModularSet VisitExpr_(const NENode*) override { return Everything(); }
  ModularSet VisitExpr_(const LTNode*) override { return Everything(); }
  ModularSet VisitExpr_(const LENode*) override { return Everything(); }
  ModularSet VisitExpr_(const GTNode*) override { return Everything(); }
  ModularSet VisitExpr_(const GENode*) override { return Everything(); }
  ModularSet VisitExpr_(const AndNode*) override { return Everything(); }
  ModularSet VisitExpr_(const OrNode*) override { return Everything(); }
  ModularSet VisitExpr_(const NotNode*) override { return Everything(); }
  ModularSet VisitExpr_(const BufferLoadNode*) override { return Everything(); }
  ModularSet VisitExpr_(const RampNode*) override { return Everything(); }
  ModularSet VisitExpr_(const BroadcastNode* op) override { return VisitExpr(op->value); }
  ModularSet VisitExpr_(const ShuffleNode*) override { return Everything(); }
  ModularSet VisitExpr_(const LetNode* op) override {
    auto saved = self_->var_map_;
    self_->var_map_[op->var.get()] = {op->var, VisitExpr(op->value)};
    ModularSet m = VisitExpr(op->body);
    self_->var_map_ = std::move(saved);
    return m;
  }
  ModularSet VisitExpr_(const CallNode*) override { return Everything(); }
  ModularSet VisitExpr_(const ReduceNode*) override { return Everything(); }

 private:
  ModularSetAnalyzer* self_;
};

ModularSet ModularSetAnalyzer::operator()(const PrimExpr& expr) {
  ModularSetVisitor visitor(this);
  return visitor(expr);
}

void ModularSetAnalyzer::Update(const Var& var, const ModularSet& info, bool allow_override) {
  auto it = var_map_.find(var.get());
  if (it != var_map_.end() && !allow_override && !(it->second.second == info)) {
    throw std::logic_error("ModularSetAnalyzer: variable " + var->name_hint +
                           " already has a different modular set");
  }
  var_map_[var.get()] = {var, info};
}

std::function<void()> ModularSetAnalyzer::EnterConstraint(const PrimExpr& constraint) {
  auto saved = var_map_;
  std::function<void(const PrimExpr&)> collect = [&](const PrimExpr& cond) {
    if (auto* op = cond.as<AndNode>()) {
      collect(op->a);
      collect(op->b);
      return;
    }
    auto* eq = cond.as<EQNode>();
    if (!eq) return;
    const int64_t* b = AsConstInt(eq->b);
    auto* mod = eq->a.as<BinaryNode>();
    if (!b || !mod) return;
    bool floor = eq->a->type_index() == TypeIndex::kFloorMod;
    if (!floor && eq->a->type_index() != TypeIndex::kMod) return;
    const int64_t* c = AsConstInt(mod->b);
    auto* var = mod->a.as<VarNode>();
    if (!c || *c <= 0 || !var || *b < 0 || *b >= *c) return;
    var_map_[var] = {GetRef(var), Make(*c, *b)};
  };
  collect(constraint);
  return [this, saved = std::move(saved)]() { var_map_ = saved; };
}

}  // namespace wb::arith
