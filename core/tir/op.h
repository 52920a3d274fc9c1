// Arithmetic on PrimExprs as TVM's operator functions do it: operand types are matched (an int
// operand meeting a float is cast, a narrower int widened) and constants are folded (`3 + 4`,
// `x + 0`, `x * 1`). The printer uses WouldFold to know when TVMScript's operator sugar would
// not give back the same node.
#pragma once

#include "tir/expr.h"

namespace wb::tir {

PrimExpr add(PrimExpr a, PrimExpr b, Span span = {});
PrimExpr sub(PrimExpr a, PrimExpr b, Span span = {});
PrimExpr mul(PrimExpr a, PrimExpr b, Span span = {});
PrimExpr div(PrimExpr a, PrimExpr b, Span span = {});  // float division / truncdiv
PrimExpr truncdiv(PrimExpr a, PrimExpr b, Span span = {});
PrimExpr truncmod(PrimExpr a, PrimExpr b, Span span = {});
PrimExpr floordiv(PrimExpr a, PrimExpr b, Span span = {});
PrimExpr floormod(PrimExpr a, PrimExpr b, Span span = {});
PrimExpr min(PrimExpr a, PrimExpr b, Span span = {});
PrimExpr max(PrimExpr a, PrimExpr b, Span span = {});
PrimExpr equal(PrimExpr a, PrimExpr b, Span span = {});
PrimExpr not_equal(PrimExpr a, PrimExpr b, Span span = {});
PrimExpr less(PrimExpr a, PrimExpr b, Span span = {});
PrimExpr less_equal(PrimExpr a, PrimExpr b, Span span = {});
PrimExpr greater(PrimExpr a, PrimExpr b, Span span = {});
PrimExpr greater_equal(PrimExpr a, PrimExpr b, Span span = {});
PrimExpr logical_and(PrimExpr a, PrimExpr b, Span span = {});
PrimExpr logical_or(PrimExpr a, PrimExpr b, Span span = {});
PrimExpr logical_not(PrimExpr a, Span span = {});
PrimExpr neg(PrimExpr a, Span span = {});
// Builds the node of `kind` through the folding function above.
PrimExpr BinaryOp(ir::TypeIndex kind, PrimExpr a, PrimExpr b, Span span = {});

// A cast that folds constants and drops no-op casts (TVM's tvm::cast).
PrimExpr cast(DataType dtype, PrimExpr value, Span span = {});
// A literal of `dtype` (IntImm or FloatImm, broadcast for vectors).
PrimExpr make_const(DataType dtype, double value, Span span = {});
PrimExpr make_const(DataType dtype, int64_t value, Span span = {});

// Casts operands to a common type as TVM's BinaryOpMatchTypes does. Returns false (and leaves
// them) when the types cannot be matched (e.g. handle with int).
bool MatchTypes(PrimExpr& a, PrimExpr& b);

// True when the folding constructor for `kind` applied to exactly (a, b) would not produce a
// `kind` node with operands a and b (it folds a constant, simplifies an identity, or inserts a
// cast). The printer then writes `T.Add(a, b)` instead of `a + b`.
bool WouldFold(ir::TypeIndex kind, const PrimExpr& a, const PrimExpr& b);

// The neutral value of an index type.
inline PrimExpr Zero(DataType t) { return make_const(t, int64_t(0)); }

}  // namespace wb::tir
