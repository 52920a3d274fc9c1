#include "topi/broadcast.h"

#include <stdexcept>

#include "tir/op.h"
#include "topi/util.h"

namespace wb::topi {

std::vector<PrimExpr> BroadcastShape(const std::vector<PrimExpr>& a,
                                     const std::vector<PrimExpr>& b) {
  size_t n = std::max(a.size(), b.size());
  std::vector<PrimExpr> out(n);
  for (size_t i = 0; i < n; ++i) {
    // Aligned from the right.
    const PrimExpr* da = i < n - a.size() ? nullptr : &a[i - (n - a.size())];
    const PrimExpr* db = i < n - b.size() ? nullptr : &b[i - (n - b.size())];
    if (!da) {
      out[i] = *db;
    } else if (!db) {
      out[i] = *da;
    } else if (SameDim(*da, *db)) {
      out[i] = *da;
    } else if (tir::IsConstInt(*da, 1)) {
      out[i] = *db;
    } else if (tir::IsConstInt(*db, 1)) {
      out[i] = *da;
    } else {
      throw std::invalid_argument("topi: cannot broadcast dims " + DimString(*da) + " and " +
                                  DimString(*db));
    }
  }
  return out;
}

PrimExpr BroadcastRead(const Tensor& t, const std::vector<PrimExpr>& out_shape,
                       const std::vector<tir::Var>& out_index) {
  size_t offset = out_shape.size() - t.ndim();
  std::vector<PrimExpr> idx;
  for (size_t d = 0; d < t.ndim(); ++d) {
    const PrimExpr& dim = t.shape()[d];
    const PrimExpr& odim = out_shape[d + offset];
    // A stretched dim of 1 is read at 0; a matching dim follows the output index.
    if (tir::IsConstInt(dim, 1) && !tir::IsConstInt(odim, 1)) {
      idx.push_back(tir::make_const(dim->dtype, int64_t(0)));
    } else {
      idx.push_back(out_index[d + offset]);
    }
  }
  return t(idx);
}

const char* BinaryKindName(BinaryKind kind) {
  switch (kind) {
    case BinaryKind::kAdd:
      return "add";
    case BinaryKind::kSubtract:
      return "subtract";
    case BinaryKind::kMultiply:
      return "multiply";
    case BinaryKind::kDivide:
      return "divide";
    case BinaryKind::kFloorDivide:
      return "floor_divide";
    case BinaryKind::kPower:
      return "power";
    case BinaryKind::kMaximum:
      return "maximum";
    case BinaryKind::kMinimum:
      return "minimum";
    case BinaryKind::kEqual:
      return "equal";
    case BinaryKind::kNotEqual:
      return "not_equal";
    case BinaryKind::kLess:
      return "less";
    case BinaryKind::kLessEqual:
      return "less_equal";
    case BinaryKind::kGreater:
      return "greater";
    case BinaryKind::kGreaterEqual:
      return "greater_equal";
    case BinaryKind::kFloorMod:
      return "floor_mod";
    case BinaryKind::kMod:
      return "mod";
    case BinaryKind::kLogicalAnd:
      return "logical_and";
    case BinaryKind::kLogicalOr:
      return "logical_or";
    case BinaryKind::kLogicalXor:
      return "logical_xor";
    case BinaryKind::kAtan2:
      return "atan2";
  }
  return "?";
}

PrimExpr ApplyBinary(BinaryKind kind, const PrimExpr& a, const PrimExpr& b) {
  switch (kind) {
    case BinaryKind::kAdd:
      return tir::add(a, b);
    case BinaryKind::kSubtract:
      return tir::sub(a, b);
    case BinaryKind::kMultiply:
      return tir::mul(a, b);
    case BinaryKind::kDivide:
      return tir::div(a, b);
    case BinaryKind::kFloorDivide:
      // TVM's floordiv on floats is floor(a / b).
      if (a->dtype.is_floating_point()) return Intrin("floor", {tir::div(a, b)});
      return tir::floordiv(a, b);
    case BinaryKind::kPower:
      return Intrin("pow", {a, b});
    case BinaryKind::kMaximum:
      return tir::max(a, b);
    case BinaryKind::kMinimum:
      return tir::min(a, b);
    case BinaryKind::kEqual:
      return tir::equal(a, b);
    case BinaryKind::kNotEqual:
      return tir::not_equal(a, b);
    case BinaryKind::kLess:
      return tir::less(a, b);
    case BinaryKind::kLessEqual:
      return tir::less_equal(a, b);
    case BinaryKind::kGreater:
      return tir::greater(a, b);
    case BinaryKind::kGreaterEqual:
      return tir::greater_equal(a, b);
    case BinaryKind::kFloorMod:
      if (a->dtype.is_floating_point()) return tir::sub(a, tir::mul(Intrin("floor", {tir::div(a, b)}), b));
      return tir::floormod(a, b);
    case BinaryKind::kMod:
      if (a->dtype.is_floating_point()) return Intrin("fmod", {a, b});
      return tir::truncmod(a, b);
    case BinaryKind::kLogicalAnd:
      return tir::logical_and(a, b);
    case BinaryKind::kLogicalOr:
      return tir::logical_or(a, b);
    case BinaryKind::kLogicalXor:
      return tir::not_equal(a, b);
    case BinaryKind::kAtan2:
      return Intrin("atan2", {a, b});
  }
  throw std::logic_error("topi: unknown binary op");
}

Tensor binary(BinaryKind kind, const TensorOrScalar& a, const TensorOrScalar& b) {
  const Tensor* ta = std::get_if<Tensor>(&a);
  const Tensor* tb = std::get_if<Tensor>(&b);
  if (!ta && !tb)
    throw std::invalid_argument("topi: a binary op needs at least one tensor operand");
  std::vector<PrimExpr> shape;
  if (ta && tb) {
    shape = BroadcastShape(ta->shape(), tb->shape());
  } else {
    shape = ta ? ta->shape() : tb->shape();
  }
  std::string name = std::string("T_") + BinaryKindName(kind);
  return te::compute(
      shape,
      [&](const std::vector<tir::Var>& i) {
        PrimExpr x = ta ? BroadcastRead(*ta, shape, i) : std::get<PrimExpr>(a);
        PrimExpr y = tb ? BroadcastRead(*tb, shape, i) : std::get<PrimExpr>(b);
        return ApplyBinary(kind, x, y);
      },
      name, kTagBroadcast);
}

Tensor broadcast_to(const Tensor& t, const std::vector<PrimExpr>& shape) {
  std::vector<PrimExpr> out = BroadcastShape(t.shape(), shape);
  if (out.size() != shape.size()) {
    throw std::invalid_argument(
        "topi.broadcast_to: the target shape has fewer dims than the input");
  }
  return te::compute(
      shape, [&](const std::vector<tir::Var>& i) { return BroadcastRead(t, shape, i); },
      "T_broadcast_to", kTagBroadcast);
}

}  // namespace wb::topi
