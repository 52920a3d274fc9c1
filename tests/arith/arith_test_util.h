// Shorthand for building integer index expressions in the arith tests.
#pragma once

#include <map>
#include <stdexcept>
#include <string>

#include "arith/analyzer.h"
#include "tir/op.h"

namespace arith_test {

using namespace wb;
using namespace wb::tir;
using ir::TypeIndex;

inline const DataType kI32 = DataType::Int(32);
inline const DataType kU32 = DataType::UInt(32);

inline PrimExpr C(int64_t v) { return MakeIntImm(kI32, v); }
inline Var V(const std::string& name) { return MakeVar(name, kI32); }
inline PrimExpr CU(int64_t v) { return make_const(kU32, v); }
inline Var U(const std::string& name) { return MakeVar(name, kU32); }
inline Range R(int64_t min, int64_t extent) { return ir::MakeRange(C(min), C(extent)); }
// Unfolded constructors, so that the simplifier, not the builder, does the work.
inline PrimExpr Plus(PrimExpr a, PrimExpr b) { return MakeBinary(TypeIndex::kAdd, a, b); }
inline PrimExpr Minus(PrimExpr a, PrimExpr b) { return MakeBinary(TypeIndex::kSub, a, b); }
inline PrimExpr Times(PrimExpr a, PrimExpr b) { return MakeBinary(TypeIndex::kMul, a, b); }
inline PrimExpr FDiv(PrimExpr a, PrimExpr b) { return MakeBinary(TypeIndex::kFloorDiv, a, b); }
inline PrimExpr FMod(PrimExpr a, PrimExpr b) { return MakeBinary(TypeIndex::kFloorMod, a, b); }
inline PrimExpr TDiv(PrimExpr a, PrimExpr b) { return MakeBinary(TypeIndex::kDiv, a, b); }
inline PrimExpr TMod(PrimExpr a, PrimExpr b) { return MakeBinary(TypeIndex::kMod, a, b); }
inline PrimExpr MinOf(PrimExpr a, PrimExpr b) { return MakeBinary(TypeIndex::kMin, a, b); }
inline PrimExpr MaxOf(PrimExpr a, PrimExpr b) { return MakeBinary(TypeIndex::kMax, a, b); }
inline PrimExpr Lt(PrimExpr a, PrimExpr b) { return MakeBinary(TypeIndex::kLT, a, b); }
inline PrimExpr Le(PrimExpr a, PrimExpr b) { return MakeBinary(TypeIndex::kLE, a, b); }
inline PrimExpr Gt(PrimExpr a, PrimExpr b) { return MakeBinary(TypeIndex::kGT, a, b); }
inline PrimExpr Ge(PrimExpr a, PrimExpr b) { return MakeBinary(TypeIndex::kGE, a, b); }
inline PrimExpr Eq(PrimExpr a, PrimExpr b) { return MakeBinary(TypeIndex::kEQ, a, b); }
inline PrimExpr Ne(PrimExpr a, PrimExpr b) { return MakeBinary(TypeIndex::kNE, a, b); }
inline PrimExpr AndOf(PrimExpr a, PrimExpr b) { return MakeBinary(TypeIndex::kAnd, a, b); }
inline PrimExpr OrOf(PrimExpr a, PrimExpr b) { return MakeBinary(TypeIndex::kOr, a, b); }

inline int64_t FloorDivI(int64_t a, int64_t b) {
  int64_t q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0))) --q;
  return q;
}

// Unsigned values wrap modulo 2^bits, as the hardware computes them; signed overflow is
// undefined, so signed values are left as computed.
inline int64_t WrapTo(DataType t, int64_t v) {
  if (!t.is_uint() || t.bits() >= 64) return v;
  return int64_t(uint64_t(v) & ((uint64_t(1) << t.bits()) - 1));
}

int64_t EvalUnwrapped(const PrimExpr& e, const std::map<const VarNode*, int64_t>& env);

// A tiny evaluator for integer PrimExprs: the oracle the simplifier is checked against.
inline int64_t Eval(const PrimExpr& e, const std::map<const VarNode*, int64_t>& env) {
  return WrapTo(e->dtype, EvalUnwrapped(e, env));
}

inline int64_t EvalUnwrapped(const PrimExpr& e, const std::map<const VarNode*, int64_t>& env) {
  if (const int64_t* v = AsConstInt(e)) return *v;
  if (auto* var = e.as<VarNode>()) return env.at(var);
  if (auto* c = e.as<CastNode>()) return Eval(c->value, env);
  if (auto* n = e.as<NotNode>()) return !Eval(n->a, env);
  if (auto* s = e.as<SelectNode>()) {
    return Eval(s->condition, env) ? Eval(s->true_value, env) : Eval(s->false_value, env);
  }
  auto* op = e.as<BinaryNode>();
  if (!op) throw std::runtime_error(std::string("Eval: unexpected node ") + e->type_key());
  int64_t a = Eval(op->a, env), b = Eval(op->b, env);
  auto nonzero = [&]() {
    if (b == 0) throw std::runtime_error("Eval: division by zero");
  };
  switch (e->type_index()) {
    // In uint64_t, so that an unsigned product near 2^64 wraps instead of overflowing.
    case TypeIndex::kAdd: return int64_t(uint64_t(a) + uint64_t(b));
    case TypeIndex::kSub: return int64_t(uint64_t(a) - uint64_t(b));
    case TypeIndex::kMul: return int64_t(uint64_t(a) * uint64_t(b));
    case TypeIndex::kDiv: nonzero(); return a / b;
    case TypeIndex::kMod: nonzero(); return a % b;
    case TypeIndex::kFloorDiv: nonzero(); return FloorDivI(a, b);
    case TypeIndex::kFloorMod: nonzero(); return a - FloorDivI(a, b) * b;
    case TypeIndex::kMin: return std::min(a, b);
    case TypeIndex::kMax: return std::max(a, b);
    case TypeIndex::kEQ: return a == b;
    case TypeIndex::kNE: return a != b;
    case TypeIndex::kLT: return a < b;
    case TypeIndex::kLE: return a <= b;
    case TypeIndex::kGT: return a > b;
    case TypeIndex::kGE: return a >= b;
    case TypeIndex::kAnd: return a && b;
    case TypeIndex::kOr: return a || b;
    default: throw std::runtime_error(std::string("Eval: unexpected node ") + e->type_key());
  }
}

}  // namespace arith_test
