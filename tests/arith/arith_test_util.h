// Shorthand for building integer index expressions in the arith tests.
#pragma once

#include <string>

#include "arith/analyzer.h"
#include "tir/op.h"

namespace arith_test {

using namespace wb;
using namespace wb::tir;
using ir::TypeIndex;

inline const DataType kI32 = DataType::Int(32);

inline PrimExpr C(int64_t v) { return MakeIntImm(kI32, v); }
inline Var V(const std::string& name) { return MakeVar(name, kI32); }
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

}  // namespace arith_test
