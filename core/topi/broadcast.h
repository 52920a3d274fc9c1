// Element-wise binary operators with numpy broadcasting (TVM's topi/broadcast.h): shapes are
// matched from the right, a dim of 1 stretches to the other's size, symbolic dims broadcast
// when they are the same expression. Each op is one stage "T_<op>" over axes ax0, ax1, ...;
// an operand that is a scalar expression (a constant, a scalar parameter) is used inline.
#pragma once

#include <string>
#include <variant>
#include <vector>

#include "te/tensor.h"

namespace wb::topi {

using ir::DataType;
using ir::PrimExpr;
using te::Tensor;

// A tensor or a scalar expression: what a binary op's operand may be.
using TensorOrScalar = std::variant<Tensor, PrimExpr>;

// The broadcast of two shapes; std::invalid_argument when two dims differ and neither is 1
// (or when symbolic dims are not provably equal).
std::vector<PrimExpr> BroadcastShape(const std::vector<PrimExpr>& a,
                                     const std::vector<PrimExpr>& b);
// The element of `t` read at the output position `out_index` of a broadcast to `out_shape`.
PrimExpr BroadcastRead(const Tensor& t, const std::vector<PrimExpr>& out_shape,
                       const std::vector<tir::Var>& out_index);

enum class BinaryKind {
  kAdd,
  kSubtract,
  kMultiply,
  kDivide,
  kFloorDivide,
  kPower,
  kMaximum,
  kMinimum,
  kEqual,
  kNotEqual,
  kLess,
  kLessEqual,
  kGreater,
  kGreaterEqual,
  kFloorMod,  // the remainder with the divisor's sign (Python's %)
  kMod,       // the remainder with the dividend's sign (C's fmod / truncmod)
  kLogicalAnd,
  kLogicalOr,
  kLogicalXor,
  kAtan2,  // the arc tangent of x1 / x2 in the quadrant of (x2, x1) (C's atan2)
};
// "add", "subtract", ... (the Relax op's name without "relax.").
const char* BinaryKindName(BinaryKind kind);
// The scalar operation itself, for one element.
PrimExpr ApplyBinary(BinaryKind kind, const PrimExpr& a, const PrimExpr& b);

// The stage "T_<name>" computing `kind` elementwise with broadcasting. At least one operand
// must be a tensor.
Tensor binary(BinaryKind kind, const TensorOrScalar& a, const TensorOrScalar& b);

inline Tensor add(const TensorOrScalar& a, const TensorOrScalar& b) {
  return binary(BinaryKind::kAdd, a, b);
}
inline Tensor subtract(const TensorOrScalar& a, const TensorOrScalar& b) {
  return binary(BinaryKind::kSubtract, a, b);
}
inline Tensor multiply(const TensorOrScalar& a, const TensorOrScalar& b) {
  return binary(BinaryKind::kMultiply, a, b);
}
inline Tensor divide(const TensorOrScalar& a, const TensorOrScalar& b) {
  return binary(BinaryKind::kDivide, a, b);
}

// broadcast_to: `t` stretched to `shape` ("T_broadcast_to").
Tensor broadcast_to(const Tensor& t, const std::vector<PrimExpr>& shape);

}  // namespace wb::topi
