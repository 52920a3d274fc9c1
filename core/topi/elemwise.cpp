#include "topi/elemwise.h"

#include <cmath>
#include <stdexcept>

#include "tir/builtin.h"
#include "tir/op.h"
#include "topi/util.h"

namespace wb::topi {

namespace {

std::vector<std::string> PyAxes(const Tensor& x) { return te::AxisNames("i", x.ndim()); }

Tensor Map(const Tensor& x, const std::function<PrimExpr(const PrimExpr&)>& f) {
  return te::compute(
      x.shape(), [&](const std::vector<tir::Var>& i) { return f(x(i)); }, "compute", kTagElemWise,
      {}, PyAxes(x));
}

}  // namespace

const char* UnaryKindName(UnaryKind kind) {
  switch (kind) {
    case UnaryKind::kNegative:
      return "negative";
    case UnaryKind::kExp:
      return "exp";
    case UnaryKind::kLog:
      return "log";
    case UnaryKind::kSqrt:
      return "sqrt";
    case UnaryKind::kRsqrt:
      return "rsqrt";
    case UnaryKind::kTanh:
      return "tanh";
    case UnaryKind::kSigmoid:
      return "sigmoid";
    case UnaryKind::kAbs:
      return "abs";
    case UnaryKind::kErf:
      return "erf";
    case UnaryKind::kFloor:
      return "floor";
    case UnaryKind::kCeil:
      return "ceil";
    case UnaryKind::kTrunc:
      return "trunc";
    case UnaryKind::kSin:
      return "sin";
    case UnaryKind::kCos:
      return "cos";
    case UnaryKind::kTan:
      return "tan";
    case UnaryKind::kSinh:
      return "sinh";
    case UnaryKind::kCosh:
      return "cosh";
    case UnaryKind::kAsin:
      return "asin";
    case UnaryKind::kAcos:
      return "acos";
    case UnaryKind::kAtan:
      return "atan";
    case UnaryKind::kAsinh:
      return "asinh";
    case UnaryKind::kAcosh:
      return "acosh";
    case UnaryKind::kAtanh:
      return "atanh";
    case UnaryKind::kSquare:
      return "square";
    case UnaryKind::kSign:
      return "sign";
    case UnaryKind::kLogicalNot:
      return "logical_not";
    case UnaryKind::kRound:
      return "round";
    case UnaryKind::kIsNaN:
      return "isnan";
    case UnaryKind::kIsInf:
      return "isinf";
    case UnaryKind::kIsFinite:
      return "isfinite";
  }
  return "?";
}

PrimExpr ApplyUnary(UnaryKind kind, const PrimExpr& x) {
  switch (kind) {
    case UnaryKind::kNegative:
      return tir::neg(x);
    case UnaryKind::kExp:
      return Intrin("exp", {x});
    case UnaryKind::kLog:
      return Intrin("log", {x});
    case UnaryKind::kSqrt:
      return Intrin("sqrt", {x});
    case UnaryKind::kRsqrt:
      return Intrin("rsqrt", {x});
    case UnaryKind::kTanh:
      return Intrin("tanh", {x});
    case UnaryKind::kSigmoid:
      return Intrin("sigmoid", {x});
    case UnaryKind::kErf:
      return Intrin("erf", {x});
    case UnaryKind::kFloor:
      return x->dtype.is_floating_point() ? Intrin("floor", {x}) : x;
    case UnaryKind::kCeil:
      return x->dtype.is_floating_point() ? Intrin("ceil", {x}) : x;
    case UnaryKind::kTrunc:
      return x->dtype.is_floating_point() ? Intrin("trunc", {x}) : x;
    case UnaryKind::kRound:
      return x->dtype.is_floating_point() ? Intrin("round", {x}) : x;
    case UnaryKind::kSin:
      return Intrin("sin", {x});
    case UnaryKind::kCos:
      return Intrin("cos", {x});
    case UnaryKind::kTan:
      return Intrin("tan", {x});
    case UnaryKind::kSinh:
      return Intrin("sinh", {x});
    case UnaryKind::kCosh:
      return Intrin("cosh", {x});
    case UnaryKind::kAsin:
      return Intrin("asin", {x});
    case UnaryKind::kAcos:
      return Intrin("acos", {x});
    case UnaryKind::kAtan:
      return Intrin("atan", {x});
    case UnaryKind::kAsinh:
      return Intrin("asinh", {x});
    case UnaryKind::kAcosh:
      return Intrin("acosh", {x});
    case UnaryKind::kAtanh:
      return Intrin("atanh", {x});
    case UnaryKind::kSquare:
      return tir::mul(x, x);
    case UnaryKind::kLogicalNot:
      return tir::logical_not(x);
    case UnaryKind::kIsNaN:
    case UnaryKind::kIsInf:
    case UnaryKind::kIsFinite:
      // Integers are never NaN nor infinite.
      if (!x->dtype.is_floating_point()) return Const(DataType::Bool(), kind == UnaryKind::kIsFinite ? 1 : 0);
      return tir::MakeCall(DataType::Bool(), tir::GetOp(std::string("tirx.") + UnaryKindName(kind)), {x});
    case UnaryKind::kSign: {
      PrimExpr zero = Const(x->dtype, 0);
      return tir::MakeSelect(tir::greater(x, zero), Const(x->dtype, 1),
                             tir::MakeSelect(tir::less(x, zero), Const(x->dtype, -1), zero));
    }
    case UnaryKind::kAbs:
      // TVM's abs: fabs on floats, a select on signed ints, the value itself on unsigned.
      if (x->dtype.is_floating_point()) return Intrin("fabs", {x});
      if (x->dtype.is_uint() || x->dtype.is_bool()) return x;
      return tir::MakeSelect(tir::greater_equal(x, Const(x->dtype, 0)), x, tir::neg(x));
  }
  throw std::logic_error("topi: unknown unary op");
}

Tensor unary(UnaryKind kind, const Tensor& x) {
  return Map(x, [&](const PrimExpr& v) { return ApplyUnary(kind, v); });
}

Tensor clip(const Tensor& x, double a_min, double a_max) {
  DataType t = x.dtype();
  return Map(x, [&](const PrimExpr& v) {
    return tir::max(tir::min(v, Const(t, a_max)), Const(t, a_min));
  });
}

Tensor cast(const Tensor& x, DataType dtype) {
  return Map(x, [&](const PrimExpr& v) { return tir::cast(dtype, v); });
}

Tensor where(const Tensor& condition, const Tensor& x, const Tensor& y) {
  if (x.dtype() != y.dtype()) {
    throw std::invalid_argument("topi.where: x is " + x.dtype().ToString() + " but y is " +
                                y.dtype().ToString());
  }
  std::vector<PrimExpr> shape =
      BroadcastShape(BroadcastShape(condition.shape(), x.shape()), y.shape());
  return te::compute(
      shape,
      [&](const std::vector<tir::Var>& i) {
        PrimExpr c = BroadcastRead(condition, shape, i);
        // TVM's `condition != 0` with the index type's zero: int64 for bool and ints.
        if (c->dtype.is_floating_point()) {
          c = tir::not_equal(c, Const(c->dtype, 0));
        } else {
          c = tir::not_equal(tir::cast(DataType::Int(64), c), Index(0));
        }
        return tir::MakeSelect(c, BroadcastRead(x, shape, i), BroadcastRead(y, shape, i));
      },
      "T_where", kTagBroadcast);
}

Tensor full(const std::vector<PrimExpr>& shape, DataType dtype, const PrimExpr& value) {
  PrimExpr v = tir::cast(dtype, value);
  return te::compute(
      shape, [&](const std::vector<tir::Var>&) { return v; }, "T_full", kTagElemWise);
}

Tensor relu(const Tensor& x) {
  DataType t = x.dtype();
  return Map(x, [&](const PrimExpr& v) { return tir::max(v, Const(t, 0)); });
}

Tensor gelu(const Tensor& x) {
  // As TVM's Relax legalization composes it: x * (0.5 + erf(x * sqrt(0.5)) * 0.5).
  DataType t = x.dtype();
  Tensor scaled = multiply(x, Const(t, std::sqrt(0.5)));
  Tensor erf = unary(UnaryKind::kErf, scaled);
  Tensor half_erf = multiply(erf, Const(t, 0.5));
  return multiply(x, add(Const(t, 0.5), half_erf));
}

Tensor gelu_tanh(const Tensor& x) {
  DataType t = x.dtype();
  Tensor half_x = multiply(Const(t, 0.5), x);
  Tensor scaled = multiply(Const(t, std::sqrt(2.0 / M_PI)), x);
  Tensor cubic = multiply(multiply(Const(t, 0.044715), x), x);
  Tensor inner = multiply(scaled, add(Const(t, 1), cubic));
  return multiply(half_x, add(Const(t, 1), unary(UnaryKind::kTanh, inner)));
}

Tensor silu(const Tensor& x) { return multiply(x, unary(UnaryKind::kSigmoid, x)); }

Tensor leaky_relu(const Tensor& x, double alpha) {
  DataType t = x.dtype();
  return Map(x, [&](const PrimExpr& v) {
    return tir::MakeSelect(tir::greater(v, Const(t, 0)), v, tir::mul(v, Const(t, alpha)));
  });
}

Tensor softplus(const Tensor& x, double beta, double threshold) {
  DataType t = x.dtype();
  return Map(x, [&](const PrimExpr& v) {
    PrimExpr bx = tir::mul(v, Const(t, beta));
    PrimExpr soft = tir::div(Intrin("log", {tir::add(Const(t, 1), Intrin("exp", {bx}))}), Const(t, beta));
    return tir::MakeSelect(tir::greater(bx, Const(t, threshold)), v, soft);
  });
}

Tensor arange(const PrimExpr& start, const PrimExpr& step, const PrimExpr& length, DataType dtype) {
  return te::compute(
      {length},
      [&](const std::vector<tir::Var>& i) {
        return tir::add(tir::cast(dtype, start), tir::mul(tir::cast(dtype, step), tir::cast(dtype, i[0])));
      },
      "T_arange", kTagInjective);
}

namespace {

// Element `i` of a quantization parameter: the scalar, its only element, or the one at i[axis].
PrimExpr QParamAt(const QParam& q, const std::vector<tir::Var>& i, size_t axis) {
  if (q.scalar.defined()) return q.scalar;
  const Tensor& p = q.tensor;
  bool singleton = true;
  for (const PrimExpr& d : p.shape()) {
    const int64_t* c = tir::AsConstInt(d);
    singleton = singleton && c && *c == 1;
  }
  if (singleton) return p(std::vector<PrimExpr>(p.ndim(), Index(0)));
  return p(std::vector<PrimExpr>{i[axis]});
}

size_t QAxis(const Tensor& x, int64_t axis, const char* op) {
  return x.ndim() == 0 ? 0 : static_cast<size_t>(NormalizeAxis(axis, x.ndim(), op));
}

}  // namespace

Tensor quantize(const Tensor& x, const QParam& scale, const QParam& zero_point, int64_t axis, DataType out_dtype) {
  size_t a = QAxis(x, axis, "quantize");
  DataType t = x.dtype();
  return te::compute(
      x.shape(),
      [&](const std::vector<tir::Var>& i) {
        PrimExpr q = Intrin("round", {tir::div(x(i), tir::cast(t, QParamAt(scale, i, a)))});
        q = tir::add(q, tir::cast(t, QParamAt(zero_point, i, a)));
        q = tir::max(tir::min(q, tir::cast(t, te::max_value(out_dtype))), tir::cast(t, te::min_value(out_dtype)));
        return tir::cast(out_dtype, q);
      },
      "quantized", kTagElemWise, {}, PyAxes(x));
}

Tensor dequantize(const Tensor& x, const QParam& scale, const QParam& zero_point, int64_t axis, DataType out_dtype) {
  size_t a = QAxis(x, axis, "dequantize");
  DataType f32 = DataType::Float(32);
  DataType diff = x.dtype().is_floating_point() ? f32 : DataType::Int(32);
  return te::compute(
      x.shape(),
      [&](const std::vector<tir::Var>& i) {
        PrimExpr v = tir::sub(tir::cast(diff, x(i)), tir::cast(diff, QParamAt(zero_point, i, a)));
        v = tir::mul(tir::cast(f32, v), tir::cast(f32, QParamAt(scale, i, a)));
        if (out_dtype == DataType::Float(16)) v = tir::max(tir::min(v, Const(f32, 65504.0)), Const(f32, -65504.0));
        return tir::cast(out_dtype, v);
      },
      "dequantized", kTagElemWise, {}, PyAxes(x));
}

}  // namespace wb::topi
