// Legalization of the element-wise families: the broadcasting binary ops (relax.add ...
// relax.greater_equal), the unary math ops, clip, astype and where.
#include <cmath>
#include <optional>
#include <string>

#include "relax/op/registry.h"
#include "runtime/half.h"
#include "tir/op.h"
#include "topi/broadcast.h"
#include "topi/elemwise.h"
#include "transform/relax/legalize/common.h"

namespace wb::transform::legalize {

namespace {

// `value` (a literal) as a 0-d constant of `dtype`: floats truncate toward zero into integers,
// as numpy converts; nullopt for a dtype without a byte encoding here.
std::optional<relax::Constant> ConvertScalarConstant(const ir::PrimExpr& value, ir::DataType dtype) {
  if (!value.defined()) return std::nullopt;
  double v = 0;
  if (const int64_t* i = tir::AsConstInt(value)) {
    v = double(*i);
  } else if (auto* f = value.as<tir::FloatImmNode>()) {
    v = f->value;
  } else {
    return std::nullopt;
  }
  // A value an integer dtype cannot hold is left to the cast kernel.
  if (dtype.is_integer() && !(std::isfinite(v) && std::fabs(v) < 9.2e18)) return std::nullopt;
  std::string bytes;
  auto put = [&](auto x) { bytes.assign(reinterpret_cast<const char*>(&x), sizeof(x)); };
  if (dtype == ir::DataType::Float(32)) put(float(v));
  else if (dtype == ir::DataType::Float(64)) put(v);
  else if (dtype == ir::DataType::Float(16)) put(runtime::FloatToHalfBits(float(v)));
  else if (dtype == ir::DataType::Int(64)) put(int64_t(v));
  else if (dtype == ir::DataType::Int(32)) put(int32_t(int64_t(v)));
  else if (dtype == ir::DataType::Int(16)) put(int16_t(int64_t(v)));
  else if (dtype == ir::DataType::Int(8)) put(int8_t(int64_t(v)));
  else if (dtype == ir::DataType::UInt(8)) put(uint8_t(int64_t(v)));
  else if (dtype.is_bool()) put(uint8_t(v != 0));
  else return std::nullopt;
  return relax::MakeConstant(dtype, {}, bytes);
}

topi::TensorOrScalar Operand(TECall& te, const Expr& arg) {
  if (ir::PrimExpr s = te.Scalar(arg); s.defined()) return s;
  return te.Tensor(arg);
}

LegalizeFunc Binary(topi::BinaryKind kind) {
  return [kind](BlockBuilder& bb, const Call& call) -> Expr {
    TECall te(bb);
    topi::TensorOrScalar a = Operand(te, call->args[0]);
    topi::TensorOrScalar b = Operand(te, call->args[1]);
    if (!std::holds_alternative<te::Tensor>(a) && !std::holds_alternative<te::Tensor>(b)) {
      throw LegalizeError("both operands are scalars");
    }
    return te.Emit(topi::binary(kind, a, b), topi::BinaryKindName(kind));
  };
}

LegalizeFunc Unary(topi::UnaryKind kind) {
  return [kind](BlockBuilder& bb, const Call& call) -> Expr {
    TECall te(bb);
    return te.Emit(topi::unary(kind, te.Tensor(call, 0)), topi::UnaryKindName(kind));
  };
}

double BoundOf(TECall& te, const Expr& arg, const char* which) {
  ir::PrimExpr v = te.Scalar(arg);
  if (const int64_t* i = v.defined() ? tir::AsConstInt(v) : nullptr) return double(*i);
  if (auto* f = v.defined() ? v.as<tir::FloatImmNode>() : nullptr) return f->value;
  throw LegalizeError(std::string("the ") + which + " bound of clip is not a constant");
}

}  // namespace

void RegisterBinary(LegalizeTable& table) {
  using K = topi::BinaryKind;
  for (K k : {K::kAdd, K::kSubtract, K::kMultiply, K::kDivide, K::kFloorDivide, K::kPower,
              K::kMaximum, K::kMinimum, K::kEqual, K::kNotEqual, K::kLess, K::kLessEqual,
              K::kGreater, K::kGreaterEqual, K::kFloorMod, K::kMod, K::kLogicalAnd, K::kLogicalOr,
              K::kLogicalXor, K::kAtan2}) {
    table[std::string("relax.") + topi::BinaryKindName(k)] = Binary(k);
  }
}

void RegisterUnary(LegalizeTable& table) {
  using K = topi::UnaryKind;
  for (K k : {K::kNegative, K::kExp,   K::kLog,   K::kSqrt,  K::kRsqrt, K::kTanh,   K::kSigmoid,
              K::kAbs,      K::kErf,   K::kFloor, K::kCeil,  K::kTrunc, K::kSin,    K::kCos,
              K::kTan,      K::kSinh,  K::kCosh,  K::kAsin,  K::kAcos,  K::kAtan,   K::kAsinh,
              K::kAcosh,    K::kAtanh, K::kSquare, K::kSign,  K::kLogicalNot, K::kRound,
              K::kIsNaN,    K::kIsInf, K::kIsFinite}) {
    table[std::string("relax.") + topi::UnaryKindName(k)] = Unary(k);
  }
  table["relax.clip"] = [](BlockBuilder& bb, const Call& call) -> Expr {
    TECall te(bb);
    te::Tensor x = te.Tensor(call, 0);
    TECall bounds(bb);  // the bounds are folded into the kernel, not passed to it
    double lo = BoundOf(bounds, call->args[1], "min");
    double hi = BoundOf(bounds, call->args[2], "max");
    return te.Emit(topi::clip(x, lo, hi), "clip");
  };
  for (bool quantize : {true, false}) {
    table[quantize ? "relax.quantize" : "relax.dequantize"] = [quantize](BlockBuilder& bb, const Call& call) -> Expr {
      TECall te(bb);
      te::Tensor x = te.Tensor(call, 0);
      // A scalar constant parameter is folded into the kernel, as TVM's legalization does.
      auto param = [&](size_t k) -> topi::QParam {
        if (call->args[k].as<relax::ConstantNode>()) {
          ir::PrimExpr s = te.Scalar(call->args[k]);
          if (s.defined()) return s;
        }
        return te.Tensor(call, k);
      };
      topi::QParam scale = param(1);
      topi::QParam zero = param(2);
      int64_t axis = relax::AttrInt(call, "axis");
      ir::DataType out = relax::AttrDataType(call, "out_dtype");
      try {
        return quantize ? te.Emit(topi::quantize(x, scale, zero, axis, out), "quantize")
                        : te.Emit(topi::dequantize(x, scale, zero, axis, out), "dequantize");
      } catch (const std::invalid_argument& e) {
        throw LegalizeError(e.what());
      }
    };
  }
  table["relax.astype"] = [](BlockBuilder& bb, const Call& call) -> Expr {
    TECall te(bb);
    // A scalar constant converts now, to a constant (TVM's Python-native conversion).
    if (call->args[0].as<relax::ConstantNode>()) {
      if (std::optional<relax::Constant> c = ConvertScalarConstant(te.Scalar(call->args[0]),
                                                                   relax::AttrDataType(call, "dtype"))) {
        return *c;
      }
    }
    te::Tensor x = te.Tensor(call, 0);
    return te.Emit(topi::cast(x, relax::AttrDataType(call, "dtype")), "cast");
  };
  table["relax.where"] = [](BlockBuilder& bb, const Call& call) -> Expr {
    TECall te(bb);
    te::Tensor c = te.Tensor(call, 0);
    te::Tensor x = te.Tensor(call, 1);
    te::Tensor y = te.Tensor(call, 2);
    return te.Emit(topi::where(c, x, y), "where");
  };
}

}  // namespace wb::transform::legalize
