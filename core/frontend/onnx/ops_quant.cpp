// Quantized ONNX ops: QuantizeLinear and DequantizeLinear onto relax.quantize / relax.dequantize
// (as TVM's ONNX frontend maps them), DynamicQuantizeLinear by its formula, and the integer
// kernels MatMulInteger, ConvInteger, QLinearMatMul and QLinearConv; onnxruntime's QLinearAdd and
// QLinearMul (domain com.microsoft) as TVM's frontend has them: dequantize, add or multiply in
// float32, quantize.
//
// The integer kernels compute exactly in int32: the 8-bit operands are widened and their zero
// points subtracted first (so a convolution's zero padding is the zero point's padding, as the
// spec has it), then relax.matmul / relax.nn.conv{1,2,3}d accumulate with out_dtype int32. The
// QLinear ops then requantize: the accumulator as float32 times the two input scales, then
// relax.quantize with the output's scale and zero point (round half to even, saturated).
// Scales and zero points are per tensor (a scalar or one element) or 1-D where the spec allows
// it: per row of QLinearMatMul's / MatMulInteger's A, per column of B, per output channel of a
// convolution's weight.
#include "frontend/onnx/importer.h"
#include "tir/op.h"

namespace wb::frontend::onnx {
namespace {

using relax::Expr;

const DataType kI32 = DataType::Int(32);
const DataType kF32 = DataType::Float(32);

PrimExpr I64(int64_t v) { return tir::MakeIntImm(DataType::Int(64), v); }

std::string DimsText(const std::vector<PrimExpr>& dims) {
  std::string out = "(";
  for (size_t i = 0; i < dims.size(); ++i) {
    const int64_t* c = tir::AsConstInt(dims[i]);
    out += (i ? ", " : "") + (c ? std::to_string(*c) : std::string("?"));
  }
  return out + (dims.size() == 1 ? ",)" : ")");
}

bool IsEightBit(DataType t) { return t == DataType::Int(8) || t == DataType::UInt(8); }

// Input i's element type must be int8 or uint8.
DataType EightBit(NodeContext& ctx, size_t i, const std::string& what) {
  DataType t = ctx.DType(i);
  if (!IsEightBit(t)) ctx.Fail(what + " must be int8 or uint8, got " + t.ToString());
  return t;
}

// A scale (float32) or zero point (the operand's dtype) of input `i`, shaped to broadcast against
// a rank-`rank` operand: per tensor (a scalar or one element) as it is, or 1-D with `extent`
// values along `axis` of the operand (then reshaped to that axis). `per_axis` says what a 1-D one
// is, for the message; empty when only per tensor is allowed.
Expr QParamAlong(NodeContext& ctx, size_t i, Expr value, int64_t rank, int64_t axis, const PrimExpr& extent,
                 const std::string& what, const std::string& per_axis) {
  std::vector<PrimExpr> shape = ctx.Shape(i);
  int64_t count = 1;
  for (const PrimExpr& d : shape) {
    const int64_t* c = tir::AsConstInt(d);
    count = c && count >= 0 ? count * *c : -1;
  }
  if (shape.size() <= 1 && count == 1) return value;
  const int64_t* want = tir::AsConstInt(extent);
  const int64_t* got = shape.size() == 1 ? tir::AsConstInt(shape[0]) : nullptr;
  if (per_axis.empty() || shape.size() != 1 || !want || !got || *want != *got) {
    std::string allowed = per_axis.empty() ? "a scalar (per tensor)"
                                           : "a scalar (per tensor) or 1-D with " +
                                                 (want ? std::to_string(*want) : std::string("the operand's")) +
                                                 " values (" + per_axis + ")";
    ctx.Fail(what + " must be " + allowed + ", got shape " + DimsText(shape));
  }
  std::vector<PrimExpr> dims(static_cast<size_t>(rank), I64(1));
  dims[static_cast<size_t>(axis)] = extent;
  return ctx.Op("relax.reshape", {value, relax::MakeShapeExpr(dims)});
}

Expr AsType(NodeContext& ctx, const Expr& x, DataType t) {
  return ctx.Op("relax.astype", {x}, {{"dtype", relax::DTypeAttr(t)}});
}

// Input `data` widened to int32 less its zero point (input `zero`, when present), the zero point
// shaped by QParamAlong's rules.
Expr Centered(NodeContext& ctx, size_t data, size_t zero, int64_t rank, int64_t axis, const PrimExpr& extent,
              const std::string& what, const std::string& per_axis) {
  Expr x = AsType(ctx, ctx.Expr(data), kI32);
  if (!ctx.HasInput(zero)) return x;
  if (ctx.DType(zero) != ctx.DType(data)) {
    ctx.Fail(what + " has dtype " + ctx.DType(zero).ToString() + " where its operand has " +
             ctx.DType(data).ToString());
  }
  Expr z = QParamAlong(ctx, zero, AsType(ctx, ctx.Expr(zero), kI32), rank, axis, extent, what, per_axis);
  return ctx.Op("relax.subtract", {x, z});
}

void CheckScale(NodeContext& ctx, size_t i, const std::string& what) {
  if (ctx.DType(i) != kF32) ctx.Fail(what + " must be float32, got " + ctx.DType(i).ToString());
}

// QuantizeLinear / DequantizeLinear, per tensor (a scalar or one-element scale) or per `axis` (a
// 1-D scale). QuantizeLinear's output dtype is its zero point's (uint8 without one); a missing
// zero point is 0. For data of rank 0 or 1 the default axis 1 means axis 0, as in TVM.
Converter QDQ(bool quantize) {
  return [quantize](NodeContext& ctx) -> std::vector<Operand> {
    if (ctx.AttrInt("block_size", 0) != 0) {
      ctx.Fail("block_size " + std::to_string(ctx.AttrInt("block_size", 0)) + " (blocked quantization) is not supported");
    }
    if (ctx.AttrInt("saturate", 1) != 1) ctx.Fail("saturate 0 is not supported");
    int64_t rank = ctx.Rank(0);
    int64_t srank = ctx.Rank(1);
    if (srank > 1) ctx.Fail("the scale must be a scalar or 1-D, got rank " + std::to_string(srank));
    int64_t axis = ctx.AttrInt("axis", 1);
    if (rank <= 1 && axis == 1) axis = 0;
    axis = rank == 0 ? 0 : NormalizeAxis(axis, rank, ctx);
    DataType out = quantize ? (ctx.HasInput(2) ? ctx.DType(2) : DataType::UInt(8)) : ctx.DType(1);
    if (quantize && !out.is_integer()) ctx.Fail("only integer outputs are supported, got " + out.ToString());
    Expr zero = ctx.HasInput(2) ? ctx.Expr(2) : Expr(ScalarConstant(quantize ? out : ctx.DType(0), 0));
    return {Value(Expr(ctx.Op(quantize ? "relax.quantize" : "relax.dequantize", {ctx.Expr(0), ctx.Expr(1), zero},
                              {{"out_dtype", relax::DTypeAttr(out)}, {"axis", ir::MakeInt(axis)}})))};
  };
}

// DynamicQuantizeLinear: uint8 with the scale and zero point that map [min(x, 0), max(x, 0)] onto
// [0, 255]: scale = (max - min) / 255, zero point = saturate(round(0 - min / scale)).
std::vector<Operand> ConvertDynamicQuantizeLinear(NodeContext& ctx) {
  if (ctx.DType(0) != kF32) ctx.Fail("the input must be float32, got " + ctx.DType(0).ToString());
  Expr x = ctx.Expr(0);
  Expr zero = ScalarConstant(kF32, 0);
  Expr hi = ctx.Op("relax.maximum", {zero, ctx.Op("relax.max", {x})});
  Expr lo = ctx.Op("relax.minimum", {zero, ctx.Op("relax.min", {x})});
  Expr scale = ctx.Op("relax.divide", {ctx.Op("relax.subtract", {hi, lo}), ScalarConstant(kF32, 255)});
  Expr zp_float = ctx.Op("relax.subtract", {zero, ctx.Op("relax.divide", {lo, scale})});
  auto bound = [](double v) { return relax::MakePrimValue(tir::MakeFloatImm(kF32, v)); };
  Expr zp = AsType(ctx, ctx.Op("relax.round", {ctx.Op("relax.clip", {zp_float, bound(0), bound(255)})}),
                   DataType::UInt(8));
  Expr y = ctx.Op("relax.quantize", {x, scale, zp},
                  {{"out_dtype", relax::DTypeAttr(DataType::UInt(8))}, {"axis", ir::MakeInt(0)}});
  return {Value(y), Value(scale), Value(zp)};
}

// A's rows and B's columns (1 for a vector, which has only per-tensor parameters). Per-row
// parameters become (M, 1), per-column ones stay (N,): both broadcast against A, B and the
// product whatever their batch dims.
PrimExpr RowsOf(const std::vector<PrimExpr>& shape) { return shape.size() >= 2 ? shape[shape.size() - 2] : I64(1); }
PrimExpr ColumnsOf(const std::vector<PrimExpr>& shape) { return shape.size() >= 2 ? shape.back() : I64(1); }

// The int32 product (A - a_zero_point) @ (B - b_zero_point) of inputs a, b with zero points at
// inputs az, bz (absent: 0): per tensor, or per row of A (M values) and per column of B (N).
Expr IntegerMatMul(NodeContext& ctx, size_t a, size_t az, size_t b, size_t bz) {
  EightBit(ctx, a, "A");
  EightBit(ctx, b, "B");
  std::vector<PrimExpr> as = ctx.Shape(a), bs = ctx.Shape(b);
  Expr ac = Centered(ctx, a, az, 2, 0, RowsOf(as), "a_zero_point", as.size() >= 2 ? "per row of A" : "");
  Expr bc = Centered(ctx, b, bz, 1, 0, ColumnsOf(bs), "b_zero_point", bs.size() >= 2 ? "per column of B" : "");
  return ctx.Op("relax.matmul", {ac, bc}, {{"out_dtype", relax::DTypeAttr(kI32)}});
}

std::vector<Operand> ConvertMatMulInteger(NodeContext& ctx) { return {Value(IntegerMatMul(ctx, 0, 2, 1, 3))}; }

// QLinearMatMul(a, a_scale, a_zero_point, b, b_scale, b_zero_point, y_scale, y_zero_point).
std::vector<Operand> ConvertQLinearMatMul(NodeContext& ctx) {
  for (size_t i : {1, 4, 6}) CheckScale(ctx, i, i == 1 ? "a_scale" : i == 4 ? "b_scale" : "y_scale");
  DataType out = EightBit(ctx, 7, "y_zero_point");
  Expr acc = IntegerMatMul(ctx, 0, 2, 3, 5);
  std::vector<PrimExpr> as = ctx.Shape(0), bs = ctx.Shape(3);
  Expr sa = QParamAlong(ctx, 1, ctx.Expr(1), 2, 0, RowsOf(as), "a_scale", as.size() >= 2 ? "per row of A" : "");
  Expr sb = QParamAlong(ctx, 4, ctx.Expr(4), 1, 0, ColumnsOf(bs), "b_scale", bs.size() >= 2 ? "per column of B" : "");
  Expr real = ctx.Op("relax.multiply", {ctx.Op("relax.multiply", {AsType(ctx, acc, kF32), sa}), sb});
  QParamAlong(ctx, 6, ctx.Expr(6), 1, 0, I64(1), "y_scale", "");
  QParamAlong(ctx, 7, ctx.Expr(7), 1, 0, I64(1), "y_zero_point", "");
  return {Value(Expr(ctx.Op("relax.quantize", {real, ctx.Expr(6), ctx.Expr(7)},
                            {{"out_dtype", relax::DTypeAttr(out)}, {"axis", ir::MakeInt(-1)}})))};
}

// The int32 convolution of input x (zero point xz, per tensor) with weight w (zero point wz, per
// tensor or per output channel), with Conv's attributes (auto_pad on static shapes), 1-D to 3-D.
Expr IntegerConv(NodeContext& ctx, size_t x, size_t xz, size_t w, size_t wz) {
  EightBit(ctx, x, "x");
  EightBit(ctx, w, "w");
  int64_t rank = ctx.Rank(x);
  std::vector<PrimExpr> ws = ctx.Shape(w);
  if (rank < 3 || rank > 5 || static_cast<int64_t>(ws.size()) != rank) {
    ctx.Fail("only 1-D to 3-D convolution (3-D to 5-D x and w) is supported, got rank " + std::to_string(rank) +
             " and " + std::to_string(ws.size()));
  }
  std::vector<int64_t> kernel;
  for (size_t k = 2; k < ws.size(); ++k) {
    const int64_t* d = tir::AsConstInt(ws[k]);
    if (!d) ctx.Fail("the kernel's spatial dims must be static");
    kernel.push_back(*d);
  }
  Window win = ReadWindow(ctx, ctx.AttrInts("kernel_shape", kernel));
  Expr xc = Centered(ctx, x, xz, rank, 1, I64(1), "x_zero_point", "");
  Expr wc = Centered(ctx, w, wz, rank, 0, ws[0], "w_zero_point", "per output channel");
  return ctx.Op("relax.nn.conv" + std::to_string(rank - 2) + "d", {xc, wc},
                {{"strides", relax::IntArray(win.strides)},
                 {"padding", relax::IntArray(win.pads)},
                 {"dilation", relax::IntArray(win.dilations)},
                 {"groups", ir::MakeInt(ctx.AttrInt("group", 1))},
                 {"out_dtype", relax::DTypeAttr(kI32)}});
}

std::vector<Operand> ConvertConvInteger(NodeContext& ctx) { return {Value(IntegerConv(ctx, 0, 2, 1, 3))}; }

// QLinearConv(x, x_scale, x_zero_point, w, w_scale, w_zero_point, y_scale, y_zero_point[, B]):
// B is int32 in the accumulator's scale (x_scale * w_scale), added before requantizing.
std::vector<Operand> ConvertQLinearConv(NodeContext& ctx) {
  for (size_t i : {1, 4, 6}) CheckScale(ctx, i, i == 1 ? "x_scale" : i == 4 ? "w_scale" : "y_scale");
  DataType out = EightBit(ctx, 7, "y_zero_point");
  Expr acc = IntegerConv(ctx, 0, 2, 3, 5);
  int64_t rank = ctx.Rank(0);
  PrimExpr channels = ctx.Shape(3)[0];
  if (ctx.HasInput(8)) {
    if (ctx.DType(8) != kI32) ctx.Fail("the bias B must be int32, got " + ctx.DType(8).ToString());
    std::vector<PrimExpr> bs = ctx.Shape(8);
    const int64_t* n = bs.size() == 1 ? tir::AsConstInt(bs[0]) : nullptr;
    const int64_t* m = tir::AsConstInt(channels);
    if (!n || !m || *n != *m) ctx.Fail("the bias B must be 1-D with one value per output channel, got shape " + DimsText(bs));
    std::vector<PrimExpr> dims(static_cast<size_t>(rank), I64(1));
    dims[1] = channels;
    acc = ctx.Op("relax.add", {acc, ctx.Op("relax.reshape", {ctx.Expr(8), relax::MakeShapeExpr(dims)})});
  }
  QParamAlong(ctx, 1, ctx.Expr(1), rank, 1, I64(1), "x_scale", "");
  Expr sw = QParamAlong(ctx, 4, ctx.Expr(4), rank, 1, channels, "w_scale", "per output channel");
  Expr real = ctx.Op("relax.multiply", {ctx.Op("relax.multiply", {AsType(ctx, acc, kF32), ctx.Expr(1)}), sw});
  QParamAlong(ctx, 6, ctx.Expr(6), 1, 0, I64(1), "y_scale", "");
  QParamAlong(ctx, 7, ctx.Expr(7), 1, 0, I64(1), "y_zero_point", "");
  return {Value(Expr(ctx.Op("relax.quantize", {real, ctx.Expr(6), ctx.Expr(7)},
                            {{"out_dtype", relax::DTypeAttr(out)}, {"axis", ir::MakeInt(1)}})))};
}

// QLinearAdd / QLinearMul(a, a_scale, a_zero_point, b, b_scale, b_zero_point, c_scale
// [, c_zero_point]), broadcasting as Add / Mul: C has A's dtype, its zero point 0 when absent.
// Scales and zero points are per tensor.
Converter QLinearBinary(const char* relax_op) {
  return [relax_op](NodeContext& ctx) -> std::vector<Operand> {
    DataType out = EightBit(ctx, 0, "A");
    EightBit(ctx, 3, "B");
    for (size_t i : {1, 4, 6}) CheckScale(ctx, i, i == 1 ? "A_scale" : i == 4 ? "B_scale" : "C_scale");
    auto zero_point = [&](size_t z, size_t data, const std::string& what) -> Expr {
      if (!ctx.HasInput(z)) return ScalarConstant(ctx.DType(data), 0);
      if (ctx.DType(z) != ctx.DType(data)) {
        ctx.Fail(what + " has dtype " + ctx.DType(z).ToString() + " where its operand has " +
                 ctx.DType(data).ToString());
      }
      return QParamAlong(ctx, z, ctx.Expr(z), 1, 0, I64(1), what, "");
    };
    auto dequantized = [&](size_t x, size_t scale, size_t zero, const std::string& name) -> Expr {
      Expr s = QParamAlong(ctx, scale, ctx.Expr(scale), 1, 0, I64(1), name + "_scale", "");
      return ctx.Op("relax.dequantize", {ctx.Expr(x), s, zero_point(zero, x, name + "_zero_point")},
                    {{"out_dtype", relax::DTypeAttr(kF32)}, {"axis", ir::MakeInt(-1)}});
    };
    Expr real = ctx.Op(relax_op, {dequantized(0, 1, 2, "A"), dequantized(3, 4, 5, "B")});
    Expr cs = QParamAlong(ctx, 6, ctx.Expr(6), 1, 0, I64(1), "C_scale", "");
    Expr cz = ctx.HasInput(7) ? zero_point(7, 0, "C_zero_point") : Expr(ScalarConstant(out, 0));
    return {Value(Expr(ctx.Op("relax.quantize", {real, cs, cz},
                              {{"out_dtype", relax::DTypeAttr(out)}, {"axis", ir::MakeInt(-1)}})))};
  };
}

}  // namespace

void RegisterQuantization(ConverterTable& t) {
  t["QuantizeLinear"] = QDQ(true);
  t["DequantizeLinear"] = QDQ(false);
  t["DynamicQuantizeLinear"] = ConvertDynamicQuantizeLinear;
  t["MatMulInteger"] = ConvertMatMulInteger;
  t["QLinearMatMul"] = ConvertQLinearMatMul;
  t["ConvInteger"] = ConvertConvInteger;
  t["QLinearConv"] = ConvertQLinearConv;
  t["com.microsoft.QLinearAdd"] = QLinearBinary("relax.add");
  t["com.microsoft.QLinearMul"] = QLinearBinary("relax.multiply");
}

}  // namespace wb::frontend::onnx
