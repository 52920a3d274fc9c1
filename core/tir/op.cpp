#include "tir/op.h"

#include <cmath>
#include <limits>

#include "arith/int_math.h"

namespace wb::tir {

using arith::WrappingAdd;
using arith::WrappingMul;
using arith::WrappingSub;
using ir::TypeIndex;

namespace {

const FloatImmNode* AsFloat(const PrimExpr& e) { return e.as<FloatImmNode>(); }

bool IsIndexLike(DataType t) { return t.is_integer() || t.is_bool(); }

// Wraps an integer result to the bit width of `t`, as the hardware would.
int64_t Wrap(DataType t, int64_t v) {
  int bits = t.bits();
  if (bits >= 64 || bits <= 0) return v;
  uint64_t mask = (uint64_t(1) << bits) - 1;
  uint64_t u = uint64_t(v) & mask;
  if (t.is_int() && (u >> (bits - 1))) u |= ~mask;
  return int64_t(u);
}

PrimExpr IntConst(DataType t, int64_t v, const Span& span) { return MakeIntImm(t, Wrap(t, v), span); }

// A folded float result. Folding rounds through the type's precision (as TVM's float32
// folding does); literals written in the source keep the double they were written as.
PrimExpr FoldedFloat(DataType t, double v, const Span& span) {
  if (t.bits() == 32) v = static_cast<float>(v);
  return MakeFloatImm(t, v, span);
}

PrimExpr FloatConst(DataType t, double v, const Span& span) { return MakeFloatImm(t, v, span); }

int64_t FloorDivInt(int64_t a, int64_t b) {
  int64_t q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0))) --q;
  return q;
}

int64_t FloorModInt(int64_t a, int64_t b) { return a - FloorDivInt(a, b) * b; }

// The folded result of kind(a, b) when both are scalar constants or an identity applies; null
// when the node must be built. Operands already have matching types.
PrimExpr TryFold(TypeIndex kind, const PrimExpr& a, const PrimExpr& b, const Span& span) {
  DataType t = a->dtype;
  if (!t.is_scalar()) return PrimExpr();
  const int64_t* ia = AsConstInt(a);
  const int64_t* ib = AsConstInt(b);
  const FloatImmNode* fa = AsFloat(a);
  const FloatImmNode* fb = AsFloat(b);
  auto is_i = [](const int64_t* p, int64_t v) { return p && *p == v; };
  auto is_f = [](const FloatImmNode* p, double v) { return p && p->value == v; };
  switch (kind) {
    case TypeIndex::kAdd:
      if (ia && ib) return IntConst(t, WrappingAdd(*ia, *ib), span);
      if (fa && fb) return FoldedFloat(t, fa->value + fb->value, span);
      if (is_i(ia, 0) || is_f(fa, 0)) return b;
      if (is_i(ib, 0) || is_f(fb, 0)) return a;
      return PrimExpr();
    case TypeIndex::kSub:
      if (ia && ib) return IntConst(t, WrappingSub(*ia, *ib), span);
      if (fa && fb) return FoldedFloat(t, fa->value - fb->value, span);
      if (is_i(ib, 0) || is_f(fb, 0)) return a;
      return PrimExpr();
    case TypeIndex::kMul:
      if (ia && ib) return IntConst(t, WrappingMul(*ia, *ib), span);
      if (fa && fb) return FoldedFloat(t, fa->value * fb->value, span);
      if (is_i(ia, 1) || is_f(fa, 1)) return b;
      if (is_i(ia, 0) || is_f(fa, 0)) return a;
      if (is_i(ib, 1) || is_f(fb, 1)) return a;
      if (is_i(ib, 0) || is_f(fb, 0)) return b;
      return PrimExpr();
    case TypeIndex::kDiv:
      if (ia && ib && *ib != 0) return IntConst(t, *ia / *ib, span);
      if (fa && fb && fb->value != 0) return FoldedFloat(t, fa->value / fb->value, span);
      if (is_i(ia, 0) || is_f(fa, 0)) return a;
      if (is_i(ib, 1) || is_f(fb, 1)) return a;
      return PrimExpr();
    case TypeIndex::kMod:
      if (ia && ib && *ib != 0) return IntConst(t, *ia % *ib, span);
      if (is_i(ia, 0)) return a;
      if (is_i(ib, 1)) return IntConst(t, 0, span);
      return PrimExpr();
    case TypeIndex::kFloorDiv:
      if (ia && ib && *ib != 0) return IntConst(t, FloorDivInt(*ia, *ib), span);
      if (fa && fb && fb->value != 0) return FoldedFloat(t, std::floor(fa->value / fb->value), span);
      if (is_i(ia, 0) || is_f(fa, 0)) return a;
      if (is_i(ib, 1) || is_f(fb, 1)) return a;
      return PrimExpr();
    case TypeIndex::kFloorMod:
      if (ia && ib && *ib != 0) return IntConst(t, FloorModInt(*ia, *ib), span);
      if (is_i(ia, 0)) return a;
      if (is_i(ib, 1)) return IntConst(t, 0, span);
      return PrimExpr();
    case TypeIndex::kMin:
      if (ia && ib) return IntConst(t, std::min(*ia, *ib), span);
      if (fa && fb) return FoldedFloat(t, std::min(fa->value, fb->value), span);
      return PrimExpr();
    case TypeIndex::kMax:
      if (ia && ib) return IntConst(t, std::max(*ia, *ib), span);
      if (fa && fb) return FoldedFloat(t, std::max(fa->value, fb->value), span);
      return PrimExpr();
    case TypeIndex::kEQ:
    case TypeIndex::kNE:
    case TypeIndex::kLT:
    case TypeIndex::kLE:
    case TypeIndex::kGT:
    case TypeIndex::kGE: {
      double x, y;
      if (ia && ib) {
        x = double(*ia), y = double(*ib);
        if (kind == TypeIndex::kEQ) return MakeIntImm(DataType::Bool(), *ia == *ib, span);
        if (kind == TypeIndex::kNE) return MakeIntImm(DataType::Bool(), *ia != *ib, span);
        if (kind == TypeIndex::kLT) return MakeIntImm(DataType::Bool(), *ia < *ib, span);
        if (kind == TypeIndex::kLE) return MakeIntImm(DataType::Bool(), *ia <= *ib, span);
        if (kind == TypeIndex::kGT) return MakeIntImm(DataType::Bool(), *ia > *ib, span);
        return MakeIntImm(DataType::Bool(), *ia >= *ib, span);
      }
      if (fa && fb) {
        x = fa->value, y = fb->value;
        bool r = kind == TypeIndex::kEQ   ? x == y
                 : kind == TypeIndex::kNE ? x != y
                 : kind == TypeIndex::kLT ? x < y
                 : kind == TypeIndex::kLE ? x <= y
                 : kind == TypeIndex::kGT ? x > y
                                          : x >= y;
        return MakeIntImm(DataType::Bool(), r, span);
      }
      return PrimExpr();
    }
    case TypeIndex::kAnd:
      if (ia) return *ia ? b : a;
      if (ib) return *ib ? a : b;
      return PrimExpr();
    case TypeIndex::kOr:
      if (ia) return *ia ? a : b;
      if (ib) return *ib ? b : a;
      return PrimExpr();
    default:
      return PrimExpr();
  }
}

PrimExpr Build(TypeIndex kind, PrimExpr a, PrimExpr b, Span span) {
  if (kind == TypeIndex::kAnd || kind == TypeIndex::kOr) {
    // Logical operands are booleans; no numeric promotion.
  } else {
    MatchTypes(a, b);
  }
  if (PrimExpr folded = TryFold(kind, a, b, span); folded.defined()) return folded;
  return MakeBinary(kind, std::move(a), std::move(b), std::move(span));
}

}  // namespace

bool MatchTypes(PrimExpr& a, PrimExpr& b) {
  DataType ta = a->dtype, tb = b->dtype;
  if (ta == tb) return true;
  // Broadcast a scalar against a vector.
  if (ta.lanes() != tb.lanes()) {
    if (ta.is_scalar() && !tb.is_scalar()) {
      a = MakeBroadcast(a, tb.lanes());
    } else if (tb.is_scalar() && !ta.is_scalar()) {
      b = MakeBroadcast(b, ta.lanes());
    } else {
      return false;
    }
    ta = a->dtype, tb = b->dtype;
    if (ta == tb) return true;
  }
  if (ta.is_handle() || tb.is_handle()) return false;
  if (ta.is_floating_point() && !tb.is_floating_point()) {
    b = cast(ta, b);
  } else if (!ta.is_floating_point() && tb.is_floating_point()) {
    a = cast(tb, a);
  } else if (ta.is_floating_point() && tb.is_floating_point()) {
    if (ta.bits() >= tb.bits()) b = cast(ta, b); else a = cast(tb, a);
  } else if (ta.is_bool() || tb.is_bool()) {
    if (ta.is_bool()) a = cast(tb, a); else b = cast(ta, b);
  } else if (ta.is_int() == tb.is_int() || ta.bits() != tb.bits()) {
    if (ta.bits() >= tb.bits()) b = cast(ta, b); else a = cast(tb, a);
  } else {
    // Same width, one signed, one unsigned: TVM widens to the unsigned type.
    if (ta.is_uint()) b = cast(ta, b); else a = cast(tb, a);
  }
  return true;
}

bool WouldFold(TypeIndex kind, const PrimExpr& a, const PrimExpr& b) {
  if (!a.defined() || !b.defined()) return true;
  if (kind != TypeIndex::kAnd && kind != TypeIndex::kOr && a->dtype != b->dtype) return true;
  return TryFold(kind, a, b, Span()).defined();
}

PrimExpr add(PrimExpr a, PrimExpr b, Span s) { return Build(TypeIndex::kAdd, a, b, s); }
PrimExpr sub(PrimExpr a, PrimExpr b, Span s) { return Build(TypeIndex::kSub, a, b, s); }
PrimExpr mul(PrimExpr a, PrimExpr b, Span s) { return Build(TypeIndex::kMul, a, b, s); }
PrimExpr div(PrimExpr a, PrimExpr b, Span s) { return Build(TypeIndex::kDiv, a, b, s); }
PrimExpr truncdiv(PrimExpr a, PrimExpr b, Span s) { return Build(TypeIndex::kDiv, a, b, s); }
PrimExpr truncmod(PrimExpr a, PrimExpr b, Span s) { return Build(TypeIndex::kMod, a, b, s); }
PrimExpr floordiv(PrimExpr a, PrimExpr b, Span s) { return Build(TypeIndex::kFloorDiv, a, b, s); }
PrimExpr floormod(PrimExpr a, PrimExpr b, Span s) { return Build(TypeIndex::kFloorMod, a, b, s); }
PrimExpr min(PrimExpr a, PrimExpr b, Span s) { return Build(TypeIndex::kMin, a, b, s); }
PrimExpr max(PrimExpr a, PrimExpr b, Span s) { return Build(TypeIndex::kMax, a, b, s); }
PrimExpr equal(PrimExpr a, PrimExpr b, Span s) { return Build(TypeIndex::kEQ, a, b, s); }
PrimExpr not_equal(PrimExpr a, PrimExpr b, Span s) { return Build(TypeIndex::kNE, a, b, s); }
PrimExpr less(PrimExpr a, PrimExpr b, Span s) { return Build(TypeIndex::kLT, a, b, s); }
PrimExpr less_equal(PrimExpr a, PrimExpr b, Span s) { return Build(TypeIndex::kLE, a, b, s); }
PrimExpr greater(PrimExpr a, PrimExpr b, Span s) { return Build(TypeIndex::kGT, a, b, s); }
PrimExpr greater_equal(PrimExpr a, PrimExpr b, Span s) { return Build(TypeIndex::kGE, a, b, s); }
PrimExpr logical_and(PrimExpr a, PrimExpr b, Span s) { return Build(TypeIndex::kAnd, a, b, s); }
PrimExpr logical_or(PrimExpr a, PrimExpr b, Span s) { return Build(TypeIndex::kOr, a, b, s); }

PrimExpr logical_not(PrimExpr a, Span span) {
  if (const int64_t* v = AsConstInt(a)) return MakeIntImm(DataType::Bool(), !*v, span);
  return MakeNot(std::move(a), std::move(span));
}

PrimExpr neg(PrimExpr a, Span span) {
  if (const int64_t* v = AsConstInt(a)) return IntConst(a->dtype, -*v, span);
  if (auto* f = AsFloat(a)) return FloatConst(a->dtype, -f->value, span);
  return mul(a, make_const(a->dtype, int64_t(-1)), std::move(span));
}

PrimExpr BinaryOp(TypeIndex kind, PrimExpr a, PrimExpr b, Span span) {
  return Build(kind, std::move(a), std::move(b), std::move(span));
}

PrimExpr cast(DataType dtype, PrimExpr value, Span span) {
  if (value->dtype == dtype) return value;
  if (dtype.is_scalar()) {
    if (const int64_t* v = AsConstInt(value)) {
      if (dtype.is_floating_point()) return FloatConst(dtype, double(*v), span);
      if (dtype.is_bool()) return MakeIntImm(dtype, *v != 0, span);
      if (IsIndexLike(dtype)) return IntConst(dtype, *v, span);
    }
    if (auto* f = AsFloat(value)) {
      if (dtype.is_floating_point()) return FloatConst(dtype, f->value, span);
      if (dtype.is_bool()) return MakeIntImm(dtype, f->value != 0, span);
      if (dtype.is_integer()) return IntConst(dtype, int64_t(f->value), span);
    }
  } else if (value->dtype.is_scalar()) {
    return MakeBroadcast(cast(dtype.element_of(), value, span), dtype.lanes(), span);
  }
  return MakeCast(dtype, std::move(value), std::move(span));
}

PrimExpr make_const(DataType dtype, double value, Span span) {
  PrimExpr scalar;
  DataType elem = dtype.element_of();
  if (elem.is_floating_point()) {
    scalar = FloatConst(elem, value, span);
  } else {
    scalar = IntConst(elem, static_cast<int64_t>(value), span);
  }
  return dtype.is_scalar() ? scalar : MakeBroadcast(scalar, dtype.lanes(), span);
}

PrimExpr make_const(DataType dtype, int64_t value, Span span) {
  PrimExpr scalar;
  DataType elem = dtype.element_of();
  if (elem.is_floating_point()) {
    scalar = FloatConst(elem, double(value), span);
  } else {
    scalar = IntConst(elem, value, span);
  }
  return dtype.is_scalar() ? scalar : MakeBroadcast(scalar, dtype.lanes(), span);
}

}  // namespace wb::tir
