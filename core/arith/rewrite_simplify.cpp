#include "arith/rewrite_simplify.h"

#include <stdexcept>
#include <utility>

#include "arith/analyzer.h"
#include "arith/int_math.h"
#include "ir/structural_equal.h"
#include "tir/functor.h"
#include "tir/op.h"

namespace wb::arith {

using ir::TypeIndex;
using namespace tir;

namespace {

bool Same(const PrimExpr& a, const PrimExpr& b) {
  return a.same_as(b) || ir::StructuralEqual(a, b, /*map_free_vars=*/false);
}

PrimExpr Bool(bool v) { return MakeIntImm(DataType::Bool(), v ? 1 : 0); }

bool IsIndex(const PrimExpr& e) { return e->dtype.is_integer() && e->dtype.is_scalar(); }

// Unsigned arithmetic wraps modulo 2^bits. Rules that only rearrange a sum (x + c1 + c2,
// (x + y) - x) hold in that ring too; rules that move a term across a comparison or out of a
// division hold only over the mathematical integers and must not fire on these types.
bool Wraps(const PrimExpr& e) { return e->dtype.is_uint(); }

// The comparison that is true exactly when `cmp` is false, or null when `cmp` is no comparison;
// written with < or <= as every simplified comparison is.
PrimExpr Negate(const PrimExpr& cmp) {
  auto* op = cmp.as<BinaryNode>();
  switch (cmp->type_index()) {
    case TypeIndex::kLT: return MakeBinary(TypeIndex::kLE, op->b, op->a);
    case TypeIndex::kLE: return MakeBinary(TypeIndex::kLT, op->b, op->a);
    case TypeIndex::kGT: return MakeBinary(TypeIndex::kLE, op->a, op->b);
    case TypeIndex::kGE: return MakeBinary(TypeIndex::kLT, op->a, op->b);
    case TypeIndex::kEQ: return MakeBinary(TypeIndex::kNE, op->a, op->b);
    case TypeIndex::kNE: return MakeBinary(TypeIndex::kEQ, op->a, op->b);
    default: return PrimExpr();
  }
}

}  // namespace

class RewriteMutator : public ExprMutator {
 public:
  explicit RewriteMutator(RewriteSimplifier* self) : self_(self), analyzer_(self->parent_) {}

  PrimExpr VisitExpr(const PrimExpr& e) override {
    PrimExpr r = ExprMutator::VisitExpr(e);
    if (r->dtype.is_bool() && !AsConstInt(r)) {
      for (const PrimExpr& fact : self_->literal_constraints_) {
        if (Same(fact, r)) return Bool(true);
        PrimExpr neg = Negate(fact);
        if (neg.defined() && Same(neg, r)) return Bool(false);
        if (auto* n = r.as<NotNode>(); n && Same(n->a, fact)) return Bool(false);
      }
    }
    return r;
  }

  PrimExpr VisitExpr_(const VarNode* op) override {
    auto it = self_->var_map_.find(op);
    if (it != self_->var_map_.end()) return it->second.second;
    if (IsIndex(GetRef(op))) {
      ConstIntBound b = analyzer_->const_int_bound(GetRef(op));
      if (b.is_const()) return make_const(op->dtype, b.min_value);
    }
    return GetRef(op);
  }
  PrimExpr VisitExpr_(const SizeVarNode* op) override {
    return VisitExpr_(static_cast<const VarNode*>(op));
  }
  PrimExpr VisitExpr_(const CastNode* op) override {
    return tir::cast(op->dtype, VisitExpr(op->value));
  }

  PrimExpr VisitExpr_(const AddNode* op) override {
    return Add(VisitExpr(op->a), VisitExpr(op->b));
  }
  PrimExpr VisitExpr_(const SubNode* op) override {
    return Sub(VisitExpr(op->a), VisitExpr(op->b));
  }
  PrimExpr VisitExpr_(const MulNode* op) override {
    return Mul(VisitExpr(op->a), VisitExpr(op->b));
  }
  PrimExpr VisitExpr_(const DivNode* op) override {
    PrimExpr a = VisitExpr(op->a), b = VisitExpr(op->b);
    // Truncation is floor division for a non-negative dividend and positive divisor.
    if (IsIndex(a) && PositiveConst(b) && analyzer_->CanProveGreaterEqual(a, 0)) {
      return FloorDivide(a, b);
    }
    return tir::truncdiv(a, b);
  }
  PrimExpr VisitExpr_(const ModNode* op) override {
    PrimExpr a = VisitExpr(op->a), b = VisitExpr(op->b);
    if (IsIndex(a) && PositiveConst(b) && analyzer_->CanProveGreaterEqual(a, 0)) {
      return FloorModulo(a, b);
    }
    return tir::truncmod(a, b);
  }
  PrimExpr VisitExpr_(const FloorDivNode* op) override {
    return FloorDivide(VisitExpr(op->a), VisitExpr(op->b));
  }
  PrimExpr VisitExpr_(const FloorModNode* op) override {
    return FloorModulo(VisitExpr(op->a), VisitExpr(op->b));
  }
  PrimExpr VisitExpr_(const MinNode* op) override {
    return MinMax(true, VisitExpr(op->a), VisitExpr(op->b));
  }
  PrimExpr VisitExpr_(const MaxNode* op) override {
    return MinMax(false, VisitExpr(op->a), VisitExpr(op->b));
  }
  PrimExpr VisitExpr_(const EQNode* op) override { return Compare(op->type_index(), op); }
  PrimExpr VisitExpr_(const NENode* op) override { return Compare(op->type_index(), op); }
  PrimExpr VisitExpr_(const LTNode* op) override { return Compare(op->type_index(), op); }
  PrimExpr VisitExpr_(const LENode* op) override { return Compare(op->type_index(), op); }
  PrimExpr VisitExpr_(const GTNode* op) override { return Compare(op->type_index(), op); }
  PrimExpr VisitExpr_(const GENode* op) override { return Compare(op->type_index(), op); }

  PrimExpr VisitExpr_(const AndNode* op) override {
    PrimExpr a = VisitExpr(op->a), b = VisitExpr(op->b);
    if (Same(a, b)) return a;
    PrimExpr na = Negate(a);
    if ((na.defined() && Same(na, b)) || IsNotOf(a, b) || IsNotOf(b, a)) return Bool(false);
    if (PrimExpr tighter = TightenBelowResidue(a, b); tighter.defined()) a = tighter;
    return tir::logical_and(a, b);
  }
  PrimExpr VisitExpr_(const OrNode* op) override {
    PrimExpr a = VisitExpr(op->a), b = VisitExpr(op->b);
    if (Same(a, b)) return a;
    PrimExpr na = Negate(a);
    if ((na.defined() && Same(na, b)) || IsNotOf(a, b) || IsNotOf(b, a)) return Bool(true);
    return tir::logical_or(a, b);
  }
  PrimExpr VisitExpr_(const NotNode* op) override {
    PrimExpr a = VisitExpr(op->a);
    if (const int64_t* v = AsConstInt(a)) return Bool(*v == 0);
    if (auto* n = a.as<NotNode>()) return n->a;
    if (PrimExpr neg = Negate(a); neg.defined()) return VisitExpr(neg);
    if (a.same_as(op->a)) return GetRef(op);
    return MakeNot(a);
  }
  PrimExpr VisitExpr_(const SelectNode* op) override {
    PrimExpr c = VisitExpr(op->condition);
    PrimExpr t = VisitExpr(op->true_value), f = VisitExpr(op->false_value);
    if (const int64_t* v = AsConstInt(c)) return *v ? t : f;
    if (Same(t, f)) return t;
    if (c.same_as(op->condition) && t.same_as(op->true_value) && f.same_as(op->false_value)) {
      return GetRef(op);
    }
    return MakeSelect(c, t, f);
  }

 private:
  static bool PositiveConst(const PrimExpr& e) {
    const int64_t* v = AsConstInt(e);
    return v && *v > 0;
  }
  static bool IsNotOf(const PrimExpr& n, const PrimExpr& x) {
    auto* op = n.as<NotNode>();
    return op && Same(op->a, x);
  }
  static const int64_t* ConstOf(const PrimExpr& e) { return AsConstInt(e); }

  // `x < c1 && x % c2 < c3`: the largest x below c1 whose residue is below c3 bounds x (TVM's
  // rule): `i < 16256 && i % 128 < 127` is `i < 16255 && i % 128 < 127`. The new bound for `a`,
  // or null.
  static PrimExpr TightenBelowResidue(const PrimExpr& a, const PrimExpr& b) {
    auto* lt = a.as<LTNode>();
    auto* rlt = b.as<LTNode>();
    if (!lt || !rlt || Wraps(lt->a)) return {};
    auto* mod = rlt->a.as<FloorModNode>();
    const int64_t* c1 = ConstOf(lt->b);
    if (!mod || !c1 || !Same(mod->a, lt->a)) return {};
    const int64_t* c2 = ConstOf(mod->b);
    const int64_t* c3 = ConstOf(rlt->b);
    if (!c2 || !c3 || *c2 <= 0) return {};
    int64_t residue = ((*c1 % *c2) + *c2) % *c2;
    int64_t bound = 0;
    if (residue == 0) {
      if (*c3 >= *c2 || __builtin_add_overflow(*c1 - *c2, *c3, &bound)) return {};
    } else if (residue > *c3) {
      if (__builtin_add_overflow(*c1 - residue, *c3, &bound)) return {};
    } else {
      return {};
    }
    return MakeBinary(TypeIndex::kLT, lt->a, Const(lt->a, bound));
  }

  PrimExpr Add(PrimExpr a, PrimExpr b) {
    if (!IsIndex(a) || !IsIndex(b)) return tir::add(a, b);
    if (ConstOf(a) && !ConstOf(b)) std::swap(a, b);  // constants to the right
    if (const int64_t* c2 = ConstOf(b)) {
      if (auto* x = a.as<AddNode>(); x && ConstOf(x->b)) return Add(x->a, Const(a, WrappingAdd(*ConstOf(x->b), *c2)));
      if (auto* x = a.as<SubNode>(); x && ConstOf(x->b)) return Add(x->a, Const(a, WrappingSub(*c2, *ConstOf(x->b))));
    }
    if (auto* s = b.as<SubNode>(); s && Same(s->b, a)) return s->a;  // x + (y - x)
    // max(x, y) + min(x, y) -> x + y: one of them is x and the other y, whatever the order.
    // (Their difference is |x - y| and has no such rule.)
    if ((a->type_index() == TypeIndex::kMax && b->type_index() == TypeIndex::kMin) ||
        (a->type_index() == TypeIndex::kMin && b->type_index() == TypeIndex::kMax)) {
      auto* x = a.as<BinaryNode>();
      auto* y = b.as<BinaryNode>();
      if ((Same(x->a, y->a) && Same(x->b, y->b)) || (Same(x->a, y->b) && Same(x->b, y->a))) {
        return tir::add(x->a, x->b);
      }
    }
    if (auto* s = a.as<SubNode>(); s && Same(s->b, b)) return s->a;  // (y - x) + x
    return tir::add(a, b);
  }

  PrimExpr Sub(PrimExpr a, PrimExpr b) {
    if (!IsIndex(a) || !IsIndex(b)) return tir::sub(a, b);
    if (Same(a, b)) return Const(a, 0);
    if (auto* s = a.as<AddNode>()) {
      if (Same(s->a, b)) return s->b;  // (x + y) - x
      if (Same(s->b, b)) return s->a;  // (x + y) - y
    }
    if (const int64_t* c2 = ConstOf(b)) return Add(a, Const(a, WrappingSub(0, *c2)));
    return tir::sub(a, b);
  }

  PrimExpr Mul(PrimExpr a, PrimExpr b) {
    if (!IsIndex(a) || !IsIndex(b)) return tir::mul(a, b);
    if (ConstOf(a) && !ConstOf(b)) std::swap(a, b);
    if (const int64_t* c2 = ConstOf(b)) {
      if (auto* m = a.as<MulNode>(); m && ConstOf(m->b)) return Mul(m->a, Const(a, WrappingMul(*ConstOf(m->b), *c2)));
    }
    return tir::mul(a, b);
  }

  // A symbolic tile: (x*n + y) // n -> x and (x*n + y) % n -> y when 0 <= y < n is provable
  // (a split by a symbolic factor), and (x*n) // n -> x, (x*n) % n -> 0 for n != 0.
  PrimExpr SymbolicDivMod(const PrimExpr& a, const PrimExpr& b, bool is_div) {
    auto times_b = [&](const PrimExpr& e) -> const PrimExpr* {
      auto* m = e.as<MulNode>();
      if (!m) return nullptr;
      if (Same(m->b, b)) return &m->a;
      if (Same(m->a, b)) return &m->b;
      return nullptr;
    };
    ConstIntBound nb = analyzer_->const_int_bound(b);
    if (nb.min_value <= 0 && nb.max_value >= 0) return PrimExpr();
    if (const PrimExpr* x = times_b(a)) return is_div ? *x : Const(a, 0);
    auto* s = a.as<AddNode>();
    if (!s || nb.min_value <= 0) return PrimExpr();
    for (int side = 0; side < 2; ++side) {
      const PrimExpr* x = times_b(side == 0 ? s->a : s->b);
      const PrimExpr& y = side == 0 ? s->b : s->a;
      if (x && analyzer_->CanProveGreaterEqual(y, 0) && DiffBound(y, b).max_value < 0) {
        return is_div ? *x : y;
      }
    }
    return PrimExpr();
  }

  PrimExpr FloorDivide(const PrimExpr& a, const PrimExpr& b) {
    if (IsIndex(a) && !Wraps(a) && !AsConstInt(b)) {
      if (PrimExpr r = SymbolicDivMod(a, b, true); r.defined()) return r;
    }
    if (!IsIndex(a) || !PositiveConst(b)) return tir::floordiv(a, b);
    int64_t c = *ConstOf(b);
    if (c == 1) return a;
    ConstIntBound bound = analyzer_->const_int_bound(a);
    if (bound.min_value != kNegInf && bound.max_value != kPosInf &&
        FloorDiv(bound.min_value, c) == FloorDiv(bound.max_value, c)) {
      return Const(a, FloorDiv(bound.min_value, c));
    }
    if (Wraps(a)) return tir::floordiv(a, b);  // x*c1 may wrap: c1/c does not come out
    if (PrimExpr r = DivideScaledSum(a, c); r.defined()) return r;
    // (x*c1) // c -> x*(c1/c);  (x*c1 + y) // c -> x*(c1/c) + y // c   when c divides c1.
    if (auto* m = a.as<MulNode>(); m && ConstOf(m->b) && *ConstOf(m->b) % c == 0) {
      return Mul(m->a, Const(a, *ConstOf(m->b) / c));
    }
    if (auto* s = a.as<AddNode>()) {
      for (int side = 0; side < 2; ++side) {
        const PrimExpr& x = side == 0 ? s->a : s->b;
        const PrimExpr& y = side == 0 ? s->b : s->a;
        int64_t k = 0;
        if (auto* m = x.as<MulNode>(); m && ConstOf(m->b) && *ConstOf(m->b) % c == 0) {
          return Add(Mul(m->a, Const(a, *ConstOf(m->b) / c)), FloorDivide(y, b));
        }
        if (const int64_t* cx = ConstOf(x); cx && *cx % c == 0) k = *cx / c;
        if (k != 0) return Add(FloorDivide(y, b), Const(a, k));
      }
    }
    return tir::floordiv(a, b);
  }

  // (x*c1 + y) // c for a constant c1 that c does not divide: with y's remainder r = y % c,
  // x*(c1 % c) + r may stay within one multiple of c (the quotient is x*(c1/c) + y/c plus that
  // constant), or, when c1 divides c and r < c1, the terms x*c1 + r never cross a multiple of c
  // between multiples of c1 (the quotient is x // (c/c1) + y/c).
  PrimExpr DivideScaledSum(const PrimExpr& a, int64_t c) {
    PrimExpr x, y;
    int64_t c1 = 0;
    auto scaled = [&](const PrimExpr& e) {
      auto* m = e.as<MulNode>();
      if (!m || !ConstOf(m->b)) return false;
      x = m->a;
      c1 = *ConstOf(m->b);
      return true;
    };
    if (!scaled(a)) {
      auto* s = a.as<AddNode>();
      if (!s) return PrimExpr();
      if (scaled(s->a)) {
        y = s->b;
      } else if (scaled(s->b)) {
        y = s->a;
      } else {
        return PrimExpr();
      }
    }
    PrimExpr cexpr = Const(a, c);
    PrimExpr y_rem = y.defined() ? analyzer_->Simplify(tir::floormod(y, cexpr)) : Const(a, 0);
    PrimExpr y_div;
    if (y.defined() && !analyzer_->CanProveEqual(tir::floordiv(y, cexpr), Const(a, 0))) {
      y_div = FloorDivide(y, cexpr);
    }
    auto with_y_div = [&](PrimExpr e) { return y_div.defined() ? Add(e, y_div) : e; };
    ConstIntBound residue = analyzer_->const_int_bound(
        tir::add(tir::mul(x, Const(a, FloorMod(c1, c))), y_rem));
    if (residue.min_value != kNegInf && residue.max_value != kPosInf &&
        FloorDiv(residue.min_value, c) == FloorDiv(residue.max_value, c)) {
      PrimExpr q = Mul(x, Const(a, FloorDiv(c1, c)));
      int64_t k = FloorDiv(residue.min_value, c);
      return with_y_div(k == 0 ? q : Add(q, Const(a, k)));
    }
    if (c1 > 0 && c % c1 == 0 && analyzer_->CanProveLess(y_rem, c1)) {
      return with_y_div(FloorDivide(x, Const(a, c / c1)));
    }
    return PrimExpr();
  }

  PrimExpr FloorModulo(const PrimExpr& a, const PrimExpr& b) {
    if (IsIndex(a) && !Wraps(a) && !AsConstInt(b)) {
      if (PrimExpr r = SymbolicDivMod(a, b, false); r.defined()) return r;
    }
    if (!IsIndex(a) || !PositiveConst(b)) return tir::floormod(a, b);
    int64_t c = *ConstOf(b);
    if (c == 1) return Const(a, 0);
    ConstIntBound bound = analyzer_->const_int_bound(a);
    if (bound.min_value >= 0 && bound.max_value < c) return a;
    if (Wraps(a)) return tir::floormod(a, b);  // a multiple of c may wrap to a non-multiple
    ModularSet m = analyzer_->modular_set(a);
    if (m.coeff % c == 0) return Const(a, FloorMod(m.base, c));
    // (x*c1 + y) % c -> y % c when c divides c1.
    if (auto* s = a.as<AddNode>()) {
      for (int side = 0; side < 2; ++side) {
        const PrimExpr& x = side == 0 ? s->a : s->b;
        const PrimExpr& y = side == 0 ? s->b : s->a;
        if (analyzer_->modular_set(x).coeff % c == 0 && analyzer_->modular_set(x).base % c == 0) {
          return FloorModulo(y, b);
        }
      }
    }
    return tir::floormod(a, b);
  }

  // The mathematical a - b, in which to decide how a and b are ordered. An unsigned a - b
  // wraps (every value of it is >= 0), so there the difference is taken in int64.
  PrimExpr Diff(const PrimExpr& a, const PrimExpr& b) {
    if (Wraps(a) || Wraps(b)) {
      DataType i64 = DataType::Int(64);
      return analyzer_->canonical_simplify(tir::sub(tir::cast(i64, a), tir::cast(i64, b)));
    }
    return analyzer_->canonical_simplify(tir::sub(a, b));
  }

  // bound of canonical(a - b), the basis of every ordering decision.
  ConstIntBound DiffBound(const PrimExpr& a, const PrimExpr& b) {
    return analyzer_->const_int_bound(Diff(a, b));
  }

  PrimExpr MinMax(bool is_min, const PrimExpr& a, const PrimExpr& b) {
    PrimExpr folded = is_min ? tir::min(a, b) : tir::max(a, b);
    if (!folded.as<BinaryNode>() || !IsIndex(a) || !IsIndex(b)) return folded;
    if (Same(a, b)) return a;
    ConstIntBound d = DiffBound(a, b);
    if (d.max_value <= 0) return is_min ? a : b;
    if (d.min_value >= 0) return is_min ? b : a;
    TypeIndex kind = is_min ? TypeIndex::kMin : TypeIndex::kMax;
    TypeIndex dual = is_min ? TypeIndex::kMax : TypeIndex::kMin;
    // Absorption: min(x, max(x, y)) -> x, max(x, min(x, y)) -> x (either operand order).
    for (int side = 0; side < 2; ++side) {
      const PrimExpr& x = side == 0 ? a : b;
      const PrimExpr& other = side == 0 ? b : a;
      if (other->type_index() != dual) continue;
      auto* inner = other.as<BinaryNode>();
      if (Same(inner->a, x) || Same(inner->b, x)) return x;
    }
    // min(min(x, y), x) -> min(x, y): an operand already inside the same kind is redundant.
    if (a->type_index() == kind) {
      auto* inner = a.as<BinaryNode>();
      if (Same(inner->a, b) || Same(inner->b, b)) return a;
    }
    if (b->type_index() == kind) {
      auto* inner = b.as<BinaryNode>();
      if (Same(inner->a, a) || Same(inner->b, a)) return b;
    }
    // min(min(x, c1), c2) -> min(x, min(c1, c2)), and the same for max.
    if (const int64_t* c2 = ConstOf(b)) {
      if (a->type_index() == kind) {
        auto* inner = a.as<BinaryNode>();
        if (const int64_t* c1 = ConstOf(inner->b)) {
          return MinMax(is_min, inner->a, Const(a, is_min ? std::min(*c1, *c2) : std::max(*c1, *c2)));
        }
      }
    }
    return folded;
  }

  // Simplified comparisons are written with < and <= only, as TVM's simplifier writes them
  // (`x >= 2` is `2 <= x`, `x > y` is `y < x`); the rules below see a constant on the right.
  PrimExpr Compare(TypeIndex kind, const BinaryNode* op) {
    PrimExpr a = VisitExpr(op->a), b = VisitExpr(op->b);
    if (ConstOf(a) && !ConstOf(b)) {
      std::swap(a, b);
      kind = Mirrored(kind);
    }
    PrimExpr out = CompareConstRight(kind, a, b);
    if (out->type_index() == TypeIndex::kGE || out->type_index() == TypeIndex::kGT) {
      auto* c = out.as<BinaryNode>();
      return MakeBinary(out->type_index() == TypeIndex::kGE ? TypeIndex::kLE : TypeIndex::kLT,
                        c->b, c->a);
    }
    return out;
  }

  static TypeIndex Mirrored(TypeIndex kind) {
    switch (kind) {
      case TypeIndex::kLT: return TypeIndex::kGT;
      case TypeIndex::kLE: return TypeIndex::kGE;
      case TypeIndex::kGT: return TypeIndex::kLT;
      case TypeIndex::kGE: return TypeIndex::kLE;
      default: return kind;
    }
  }

  PrimExpr CompareConstRight(TypeIndex kind, const PrimExpr& a, const PrimExpr& b) {
    PrimExpr folded = tir::BinaryOp(kind, a, b);
    if (AsConstInt(folded) || !IsIndex(a) || !IsIndex(b)) return folded;
    if (Same(a, b)) {
      return Bool(kind == TypeIndex::kEQ || kind == TypeIndex::kLE || kind == TypeIndex::kGE);
    }
    PrimExpr diff = Diff(a, b);
    ConstIntBound d = analyzer_->const_int_bound(diff);
    switch (kind) {
      case TypeIndex::kLT:
        if (d.max_value < 0) return Bool(true);
        if (d.min_value >= 0) return Bool(false);
        break;
      case TypeIndex::kLE:
        if (d.max_value <= 0) return Bool(true);
        if (d.min_value > 0) return Bool(false);
        break;
      case TypeIndex::kGT:
        if (d.min_value > 0) return Bool(true);
        if (d.max_value <= 0) return Bool(false);
        break;
      case TypeIndex::kGE:
        if (d.min_value >= 0) return Bool(true);
        if (d.max_value < 0) return Bool(false);
        break;
      case TypeIndex::kEQ:
      case TypeIndex::kNE: {
        bool eq = kind == TypeIndex::kEQ;
        if (d.is_const() && d.min_value == 0) return Bool(eq);
        if (d.min_value > 0 || d.max_value < 0) return Bool(!eq);
        ModularSet m = analyzer_->modular_set(diff);
        if (m.coeff != 1 && m.base != 0) return Bool(!eq);
        // a != b where a >= b is known: b < a (and a < b where a <= b), as TVM writes it.
        if (!eq && d.min_value >= 0) return MakeBinary(TypeIndex::kLT, b, a);
        if (!eq && d.max_value <= 0) return MakeBinary(TypeIndex::kLT, a, b);
        break;
      }
      default:
        break;
    }
    // x + c1 < c2 -> x < c2 - c1, so that facts and loop conditions meet in one form. Not for
    // unsigned types: x + c1 and x * c1 may wrap, and c2 - c1 may be "negative".
    if (const int64_t* c2 = ConstOf(b); c2 && !Wraps(a)) {
      // x * c1 < c2 -> x < ceil(c2 / c1) for c1 > 0, and the like for the other comparisons.
      if (auto* m = a.as<MulNode>(); m && ConstOf(m->b) && *ConstOf(m->b) > 0) {
        int64_t c1 = *ConstOf(m->b);
        int64_t floor_q = FloorDiv(*c2, c1), ceil_q = floor_q + (*c2 % c1 != 0 ? 1 : 0);
        switch (kind) {
          case TypeIndex::kLT: return MakeBinary(kind, m->a, Const(a, ceil_q));
          case TypeIndex::kLE: return MakeBinary(kind, m->a, Const(a, floor_q));
          case TypeIndex::kGT: return MakeBinary(kind, m->a, Const(a, floor_q));
          case TypeIndex::kGE: return MakeBinary(kind, m->a, Const(a, ceil_q));
          case TypeIndex::kEQ:
          case TypeIndex::kNE:
            if (*c2 % c1 != 0) return Bool(kind == TypeIndex::kNE);
            return MakeBinary(kind, m->a, Const(a, *c2 / c1));
          default: break;
        }
      }
      // x // c1 < c2 -> x < c1 * c2 for c1 > 0, and the like (TVM's rules), where the products
      // do not overflow.
      if (auto* d = a.as<FloorDivNode>(); d && ConstOf(d->b) && *ConstOf(d->b) > 0) {
        int64_t c1 = *ConstOf(d->b), low = 0, next = 0, high = 0;
        bool fits = !__builtin_mul_overflow(c1, *c2, &low) &&
                    !__builtin_add_overflow(*c2, int64_t(1), &next) &&
                    !__builtin_mul_overflow(next, c1, &high);
        if (fits) {
          switch (kind) {
            case TypeIndex::kLT:
              return MakeBinary(kind, d->a, Const(a, low));
            case TypeIndex::kGE:
              return MakeBinary(kind, d->a, Const(a, low));
            case TypeIndex::kLE:
              return MakeBinary(kind, d->a, Const(a, high - 1));
            case TypeIndex::kGT:
              return MakeBinary(kind, d->a, Const(a, high - 1));
            default:
              break;
          }
        }
      }
      // Only where c2 -+ c1 itself does not overflow: the moved constant must mean the same.
      int64_t moved = 0;
      if (auto* s = a.as<AddNode>(); s && ConstOf(s->b) && !__builtin_sub_overflow(*c2, *ConstOf(s->b), &moved)) {
        return MakeBinary(kind, s->a, Const(a, moved));
      }
      if (auto* s = a.as<SubNode>(); s && ConstOf(s->b) && !__builtin_add_overflow(*c2, *ConstOf(s->b), &moved)) {
        return MakeBinary(kind, s->a, Const(a, moved));
      }
    }
    return folded;
  }

  static PrimExpr Const(const PrimExpr& like, int64_t v) { return make_const(like->dtype, v); }

  RewriteSimplifier* self_;
  Analyzer* analyzer_;
};

PrimExpr RewriteSimplifier::operator()(const PrimExpr& expr) {
  RewriteMutator mutator(this);
  return mutator(expr);
}

void RewriteSimplifier::Update(const Var& var, const PrimExpr& value, bool allow_override) {
  auto it = var_map_.find(var.get());
  if (it != var_map_.end() && !allow_override &&
      !ir::StructuralEqual(it->second.second, value, false)) {
    throw std::logic_error("RewriteSimplifier: variable " + var->name_hint +
                           " is already bound to a different expression");
  }
  var_map_[var.get()] = {var, value};
}

std::function<void()> RewriteSimplifier::EnterConstraint(const PrimExpr& constraint) {
  size_t saved = literal_constraints_.size();
  std::vector<PrimExpr> conjuncts;
  std::function<void(const PrimExpr&)> split = [&](const PrimExpr& e) {
    if (auto* op = e.as<AndNode>()) {
      split(op->a);
      split(op->b);
    } else {
      conjuncts.push_back(e);
    }
  };
  split((*this)(constraint));
  for (PrimExpr& c : conjuncts) literal_constraints_.push_back(std::move(c));
  return [this, saved]() { literal_constraints_.resize(saved); };
}

}  // namespace wb::arith
