// Element-wise operators (TVM's topi/math.py and nn/elemwise.py): one stage "compute" over axes
// i0, i1, ..., as TVM's Python topi writes them (`te.compute(x.shape, lambda *i: ...)`), except
// where, full and the activations built from several stages.
#pragma once

#include <string>
#include <vector>

#include "te/tensor.h"
#include "topi/broadcast.h"

namespace wb::topi {

// kFloor, kCeil, kTrunc and kRound (ties to even) are the identity on integers; kSign gives -1, 0 or 1 in x's dtype.
enum class UnaryKind {
  kNegative, kExp, kLog, kSqrt, kRsqrt, kTanh, kSigmoid, kAbs, kErf,
  kFloor, kCeil, kTrunc, kSin, kCos, kTan, kSinh, kCosh, kAsin, kAcos, kAtan,
  kAsinh, kAcosh, kAtanh, kSquare, kSign, kLogicalNot, kRound,
  kIsNaN, kIsInf, kIsFinite,  // bool results
};
const char* UnaryKindName(UnaryKind kind);
PrimExpr ApplyUnary(UnaryKind kind, const PrimExpr& x);

Tensor unary(UnaryKind kind, const Tensor& x);
// max(min(x, a_max), a_min), the bounds converted to x's dtype.
Tensor clip(const Tensor& x, double a_min, double a_max);
// x converted to `dtype` (topi.cast).
Tensor cast(const Tensor& x, DataType dtype);
// Select(condition, x, y) with broadcasting of all three ("T_where").
Tensor where(const Tensor& condition, const Tensor& x, const Tensor& y);
// A tensor of `shape` filled with `value` converted to `dtype` ("T_full").
Tensor full(const std::vector<PrimExpr>& shape, DataType dtype, const PrimExpr& value);
// start + step * i for i in [0, length), in dtype ("T_arange").
Tensor arange(const PrimExpr& start, const PrimExpr& step, const PrimExpr& length, DataType dtype);

// Activations.
Tensor relu(const Tensor& x);
// x * 0.5 * (1 + erf(x / sqrt(2))).
Tensor gelu(const Tensor& x);
// The tanh approximation 0.5 * x * (1 + tanh(sqrt(2 / pi) * x * (1 + 0.044715 * x * x))), in
// the stages TVM's legalization composes (T_multiply ... compute ... T_multiply_5).
Tensor gelu_tanh(const Tensor& x);
// x * sigmoid(x).
Tensor silu(const Tensor& x);
// x where x > 0, alpha * x elsewhere (TVM's topi.nn.leaky_relu).
Tensor leaky_relu(const Tensor& x, double alpha);
// log(1 + exp(beta * x)) / beta, and x itself where beta * x > threshold (TVM's topi.nn.softplus).
Tensor softplus(const Tensor& x, double beta, double threshold);

// A quantization parameter (scale or zero point): a tensor, per tensor (every dim 1, or rank 0)
// or 1-D along the axis; or a scalar folded into the kernel (TVM's scalar constants).
struct QParam {
  Tensor tensor;
  PrimExpr scalar;  // used when defined
  QParam(Tensor t) : tensor(std::move(t)) {}      // NOLINT(google-explicit-constructor)
  QParam(PrimExpr s) : scalar(std::move(s)) {}    // NOLINT(google-explicit-constructor)
};
// quantize: saturate(round(x / scale) + zero_point) in out_dtype (round ties to even);
// dequantize: (x - zero_point) * scale, the difference in int32 (float32 for float data) as
// TVM computes it, the product in float32, then out_dtype ("quantized" / "dequantized").
Tensor quantize(const Tensor& x, const QParam& scale, const QParam& zero_point, int64_t axis, DataType out_dtype);
Tensor dequantize(const Tensor& x, const QParam& scale, const QParam& zero_point, int64_t axis, DataType out_dtype);

}  // namespace wb::topi
