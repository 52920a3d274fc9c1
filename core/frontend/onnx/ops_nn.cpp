// Neural-network ONNX ops: Gemm and MatMul, Conv over 1 to 3 spatial axes (onto conv1d / conv2d /
// conv3d) and ConvTranspose likewise, pooling over 1 to 3 axes (Lp pools through average pools), the
// normalizations (LRN and MeanVarianceNormalization by their formulas), Resize and
// the softmax family with Hardmax, mapped onto relax.matmul, relax.nn.*, relax.image.* and
// relax.mean / relax.max as TVM's ONNX frontend maps them.
#include <algorithm>
#include <cmath>

#include "frontend/onnx/importer.h"
#include "tir/op.h"

namespace wb::frontend::onnx {
namespace {

using relax::Expr;

PrimExpr I64(int64_t v) { return tir::MakeIntImm(DataType::Int(64), v); }

Expr ShapeOf(const std::vector<PrimExpr>& dims) { return relax::MakeShapeExpr(dims); }

std::vector<Operand> ConvertGemm(NodeContext& ctx) {
  Expr a = ctx.Expr(0), b = ctx.Expr(1);
  if (ctx.Rank(0) != 2 || ctx.Rank(1) != 2) ctx.Fail("A and B must be matrices");
  if (ctx.AttrInt("transA", 0)) a = ctx.Op("relax.permute_dims", {a}, {{"axes", relax::IntArray({1, 0})}});
  if (ctx.AttrInt("transB", 0)) b = ctx.Op("relax.permute_dims", {b}, {{"axes", relax::IntArray({1, 0})}});
  DataType dtype = ctx.DType(0);
  Expr y = ctx.Op("relax.matmul", {a, b});
  double alpha = ctx.AttrFloat("alpha", 1.0f);
  double beta = ctx.AttrFloat("beta", 1.0f);
  if (alpha != 1.0) y = ctx.Op("relax.multiply", {y, ScalarConstant(dtype, alpha)});
  if (ctx.HasInput(2)) {
    Expr c = ctx.Expr(2);
    if (beta != 1.0) c = ctx.Op("relax.multiply", {c, ScalarConstant(dtype, beta)});
    y = ctx.Op("relax.add", {y, c});
  }
  return {Value(y)};
}

std::vector<Operand> ConvertMatMul(NodeContext& ctx) {
  return {Value(Expr(ctx.Op("relax.matmul", {ctx.Expr(0), ctx.Expr(1)})))};
}

std::string ListText(const std::vector<int64_t>& values) {
  std::string out = "[";
  for (size_t i = 0; i < values.size(); ++i) out += (i ? ", " : "") + std::to_string(values[i]);
  return out + "]";
}

// Einsum onto relax.einsum (its equation the subscripts).
std::vector<Operand> ConvertEinsum(NodeContext& ctx) {
  std::vector<Expr> operands;
  for (size_t i = 0; i < ctx.NumInputs(); ++i) operands.push_back(ctx.Expr(i));
  std::string equation = ctx.AttrString("equation", "");
  if (equation.empty()) ctx.Fail("the equation is missing");
  return {Value(Expr(ctx.Op("relax.einsum", {relax::MakeTuple(operands)}, {{"subscripts", ir::MakeString(equation)}})))};
}


// The static spatial dims of a convolution's weight; 1-D to `max_spatial`-D.
std::vector<int64_t> KernelOf(NodeContext& ctx, const char* op, int64_t max_spatial) {
  int64_t rank = ctx.Rank(0);
  if (rank < 3 || rank > max_spatial + 2 || ctx.Rank(1) != rank) {
    ctx.Fail(std::string("only 1-D to ") + std::to_string(max_spatial) + "-D " + op + " (3-D to " +
             std::to_string(max_spatial + 2) + "-D data and weight) is supported, got rank " + std::to_string(rank) +
             " and " + std::to_string(ctx.Rank(1)));
  }
  std::vector<PrimExpr> wshape = ctx.Shape(1);
  std::vector<int64_t> kernel;
  for (size_t k = 2; k < wshape.size(); ++k) {
    const int64_t* d = tir::AsConstInt(wshape[k]);
    if (!d) ctx.Fail("the kernel's spatial dims must be static");
    kernel.push_back(*d);
  }
  return kernel;
}

// The bias as (1, C, 1...) added to a rank-`rank` result.
Expr AddChannelBias(NodeContext& ctx, Expr y, size_t bias_input, int64_t rank) {
  if (!ctx.HasInput(bias_input)) return y;
  std::vector<PrimExpr> bias_shape = ctx.Shape(bias_input);
  if (bias_shape.size() != 1) ctx.Fail("the bias must be 1-D, got rank " + std::to_string(bias_shape.size()));
  std::vector<PrimExpr> dims(rank, I64(1));
  dims[1] = bias_shape[0];
  Expr bias = ctx.Op("relax.reshape", {ctx.Expr(bias_input), ShapeOf(dims)});
  return ctx.Op("relax.add", {y, bias});
}

// Conv: 1-D, 2-D and 3-D onto relax.nn.conv1d / conv2d / conv3d.
std::vector<Operand> ConvertConv(NodeContext& ctx) {
  std::vector<int64_t> kernel = KernelOf(ctx, "convolution", 3);
  Window w = ReadWindow(ctx, ctx.AttrInts("kernel_shape", kernel));
  std::string name = "relax.nn.conv" + std::to_string(kernel.size()) + "d";
  Expr y = ctx.Op(name, {ctx.Expr(0), ctx.Expr(1)},
                  {{"strides", relax::IntArray(w.strides)},
                   {"padding", relax::IntArray(w.pads)},
                   {"dilation", relax::IntArray(w.dilations)},
                   {"groups", ir::MakeInt(ctx.AttrInt("group", 1))}});
  return {Value(AddChannelBias(ctx, y, 2, static_cast<int64_t>(kernel.size()) + 2))};
}

// ConvTranspose onto relax.nn.conv1d_transpose / conv2d_transpose / conv3d_transpose (ONNX's
// weight is (C, M / group, taps...), TVM's IOW / IOHW / IODHW). output_shape, when given, fixes the total padding of each axis; as the ONNX spec says,
// SAME_UPPER puts the larger half at the end, NOTSET and SAME_LOWER at the start.
std::vector<Operand> ConvertConvTranspose(NodeContext& ctx) {
  std::vector<int64_t> kernel = KernelOf(ctx, "transposed convolution", 3);
  size_t n = kernel.size();
  kernel = ctx.AttrInts("kernel_shape", kernel);
  std::vector<int64_t> strides = ctx.AttrInts("strides", std::vector<int64_t>(n, 1));
  std::vector<int64_t> dilations = ctx.AttrInts("dilations", std::vector<int64_t>(n, 1));
  std::vector<int64_t> out_pad = ctx.AttrInts("output_padding", std::vector<int64_t>(n, 0));
  std::vector<int64_t> pads = ctx.AttrInts("pads", std::vector<int64_t>(2 * n, 0));
  if (kernel.size() != n || strides.size() != n || dilations.size() != n || out_pad.size() != n ||
      pads.size() != 2 * n) {
    ctx.Fail("kernel_shape, strides, dilations and output_padding must have one value per spatial axis, pads two");
  }
  std::string auto_pad = ctx.AttrString("auto_pad", "NOTSET");
  std::optional<std::vector<int64_t>> output_shape = ctx.AttrIntsIfAny("output_shape");
  if (auto_pad == "VALID") std::fill(pads.begin(), pads.end(), 0);
  if (auto_pad == "SAME_UPPER" || auto_pad == "SAME_LOWER" || output_shape) {
    std::vector<PrimExpr> shape = ctx.Shape(0);
    if (output_shape && output_shape->size() != n) ctx.Fail("output_shape must have one value per spatial axis");
    for (size_t k = 0; k < n; ++k) {
      const int64_t* in = tir::AsConstInt(shape[2 + k]);
      if (!in) ctx.Fail("output_shape and auto_pad SAME need static spatial dims");
      int64_t want = output_shape ? (*output_shape)[k] : *in * strides[k];
      int64_t total = strides[k] * (*in - 1) + out_pad[k] + (kernel[k] - 1) * dilations[k] + 1 - want;
      if (total < 0) ctx.Fail("output_shape " + std::to_string(want) + " is larger than the convolution gives");
      int64_t small = total / 2, large = total - small;
      pads[k] = auto_pad == "SAME_UPPER" ? small : large;
      pads[k + n] = auto_pad == "SAME_UPPER" ? large : small;
    }
  } else if (auto_pad != "NOTSET" && auto_pad != "VALID") {
    ctx.Fail("unknown auto_pad '" + auto_pad + "'");
  }
  Expr y = ctx.Op("relax.nn.conv" + std::to_string(n) + "d_transpose", {ctx.Expr(0), ctx.Expr(1)},
                  {{"strides", relax::IntArray(strides)},
                   {"padding", relax::IntArray(pads)},
                   {"output_padding", relax::IntArray(out_pad)},
                   {"dilation", relax::IntArray(dilations)},
                   {"groups", ir::MakeInt(ctx.AttrInt("group", 1))}});
  return {Value(AddChannelBias(ctx, y, 2, static_cast<int64_t>(n) + 2))};
}

// A 1-D, 2-D or 3-D pool (`kind` max or avg) of `data` (input 0's shape) with the node's window
// attributes; count_include_pad only for average pooling.
Expr PoolOf(NodeContext& ctx, const std::string& kind, Expr data, std::optional<bool> count_include_pad) {
  int64_t rank = ctx.Rank(0);
  if (rank < 3 || rank > 5) {
    ctx.Fail("only 1-D to 3-D pooling (3-D to 5-D data) is supported, got rank " + std::to_string(rank));
  }
  std::vector<int64_t> kernel = ctx.AttrInts("kernel_shape", {});
  if (kernel.size() != static_cast<size_t>(rank - 2)) {
    ctx.Fail("kernel_shape must have " + std::to_string(rank - 2) + " values");
  }
  Window w = ReadWindow(ctx, kernel);
  ir::AttrMap attrs{{"pool_size", relax::IntArray(w.kernel)},
                    {"strides", relax::IntArray(w.strides)},
                    {"dilation", relax::IntArray(w.dilations)},
                    {"padding", relax::IntArray(w.pads)},
                    {"ceil_mode", ir::MakeBool(ctx.AttrInt("ceil_mode", 0) != 0)},
                    {"count_include_pad", ir::MakeBool(count_include_pad.value_or(false))}};
  return ctx.Op("relax.nn." + kind + "_pool" + std::to_string(rank - 2) + "d", {data}, attrs);
}

std::vector<int64_t> StaticDims(NodeContext& ctx, const std::vector<PrimExpr>& dims, const std::string& what) {
  std::vector<int64_t> out;
  for (const PrimExpr& d : dims) {
    const int64_t* c = tir::AsConstInt(d);
    if (!c) ctx.Fail("the Indices output needs static dims; " + what + " has a symbolic one");
    out.push_back(*c);
  }
  return out;
}

// MaxPool's Indices: for every output element, the flat index into the input of its window's
// first maximum in window order, as onnxruntime computes it: row-major over N, C and the spatial
// dims, or with storage_order 1 column-major over the spatial dims (N and C still outermost).
// Built from the pooled values: for each kernel offset, the strided slice of the input that the
// windows place at that offset is compared with the maximum, and walking the offsets from last to
// first, a match takes that offset's index, so the first match wins. The spatial part of each
// offset's index is a constant (1, 1, O...), with a validity mask where the offset falls in the
// padding; the batch-and-channel part (N, C, 1...) is added at the end. Static shapes only.
Expr MaxPoolIndices(NodeContext& ctx, const Expr& pooled, const Window& w, bool column_major) {
  std::vector<int64_t> in = StaticDims(ctx, ctx.Shape(0), "the input");
  const auto* pt = relax::GetType(pooled).as<relax::TensorTypeNode>();
  std::vector<int64_t> out = StaticDims(ctx, *pt->shape, "the output");
  size_t n = w.kernel.size();
  // The input padded so that every window of every output (ceil_mode's included) lies inside.
  std::vector<int64_t> width(2 * (n + 2), 0);
  std::vector<int64_t> padded(in.begin(), in.end());
  for (size_t k = 0; k < n; ++k) {
    int64_t reach = (out[2 + k] - 1) * w.strides[k] + (w.kernel[k] - 1) * w.dilations[k] + 1;
    width[2 * (k + 2)] = w.pads[k];
    width[2 * (k + 2) + 1] = std::max(w.pads[k + n], reach - w.pads[k] - in[2 + k]);
    padded[2 + k] = in[2 + k] + width[2 * (k + 2)] + width[2 * (k + 2) + 1];
  }
  Expr x = ctx.Expr(0);
  bool any_pad = std::any_of(width.begin(), width.end(), [](int64_t v) { return v != 0; });
  if (any_pad) {
    x = ctx.Op("relax.nn.pad", {x},
               {{"pad_width", relax::IntArray(width)}, {"pad_value", ir::MakeFloat(0)},
                {"pad_mode", ir::MakeString("constant")}});
  }
  // Strides of the spatial dims in the flat index.
  std::vector<int64_t> stride(n, 1);
  for (size_t k = 0; k < n; ++k) {
    for (size_t m = column_major ? 0 : k + 1; m < (column_major ? k : n); ++m) stride[k] *= in[2 + m];
  }
  int64_t spatial = 1, outputs = 1;
  for (size_t k = 0; k < n; ++k) {
    spatial *= in[2 + k];
    outputs *= out[2 + k];
  }
  std::vector<int64_t> window_shape{1, 1};
  window_shape.insert(window_shape.end(), out.begin() + 2, out.end());
  std::vector<int64_t> offset(n, 0);
  std::vector<Expr> index, valid, slices;
  int64_t offsets = 1;
  for (int64_t k : w.kernel) offsets *= k;
  for (int64_t o = 0; o < offsets; ++o) {
    // offset = the o-th kernel position in row-major order.
    for (size_t k = n, rest = static_cast<size_t>(o); k-- > 0;) {
      offset[k] = static_cast<int64_t>(rest % static_cast<size_t>(w.kernel[k]));
      rest /= static_cast<size_t>(w.kernel[k]);
    }
    std::vector<double> idx(static_cast<size_t>(outputs)), ok(static_cast<size_t>(outputs));
    bool all_ok = true;
    for (int64_t e = 0; e < outputs; ++e) {
      int64_t flat = 0;
      bool inside = true;
      for (size_t k = n, rest = static_cast<size_t>(e); k-- > 0;) {
        int64_t pos = static_cast<int64_t>(rest % static_cast<size_t>(out[2 + k]));
        rest /= static_cast<size_t>(out[2 + k]);
        int64_t h = pos * w.strides[k] + offset[k] * w.dilations[k] - w.pads[k];
        inside = inside && h >= 0 && h < in[2 + k];
        flat += h * stride[k];
      }
      idx[static_cast<size_t>(e)] = inside ? static_cast<double>(flat) : -1.0;
      ok[static_cast<size_t>(e)] = inside ? 1.0 : 0.0;
      all_ok = all_ok && inside;
    }
    index.push_back(MakeConstantOf(DataType::Int(64), window_shape, idx));
    valid.push_back(all_ok ? Expr() : Expr(MakeConstantOf(DataType::Bool(), window_shape, ok)));
    std::vector<int64_t> axes, begin, end, step;
    for (size_t k = 0; k < n; ++k) {
      axes.push_back(static_cast<int64_t>(k + 2));
      begin.push_back(offset[k] * w.dilations[k]);
      end.push_back(offset[k] * w.dilations[k] + (out[2 + k] - 1) * w.strides[k] + 1);
      step.push_back(w.strides[k]);
    }
    slices.push_back(ctx.Op("relax.strided_slice", {x, PrimTuple(axes), PrimTuple(begin), PrimTuple(end), PrimTuple(step)}));
  }
  Expr result = index.back();
  for (size_t o = index.size() - 1; o-- > 0;) {
    Expr match = ctx.Op("relax.equal", {slices[o], pooled});
    if (valid[o].defined()) match = ctx.Op("relax.logical_and", {match, valid[o]});
    result = ctx.Op("relax.where", {match, index[o], result});
  }
  // The batch-and-channel part: (n * C + c) * spatial.
  std::vector<int64_t> nc_shape(n + 2, 1);
  nc_shape[0] = in[0];
  nc_shape[1] = in[1];
  std::vector<double> base(static_cast<size_t>(in[0] * in[1]));
  for (size_t i = 0; i < base.size(); ++i) base[i] = static_cast<double>(static_cast<int64_t>(i) * spatial);
  return ctx.Op("relax.add", {result, MakeConstantOf(DataType::Int(64), nc_shape, base)});
}

Converter Pool(bool average) {
  return [average](NodeContext& ctx) -> std::vector<Operand> {
    bool indices = !average && ctx.node().output_size() > 1 && !ctx.node().output(1).empty();
    int64_t storage_order = ctx.AttrInt("storage_order", 0);
    if (storage_order != 0 && storage_order != 1) {
      ctx.Fail("storage_order must be 0 or 1, got " + std::to_string(storage_order));
    }
    std::optional<bool> include;
    if (average) include = ctx.AttrInt("count_include_pad", 0) != 0;
    Expr pooled = PoolOf(ctx, average ? "avg" : "max", ctx.Expr(0), include);
    if (!indices) return {Value(pooled)};
    Window w = ReadWindow(ctx, ctx.AttrInts("kernel_shape", {}));
    return {Value(pooled), Value(MaxPoolIndices(ctx, pooled, w, storage_order == 1))};
  };
}

// |x|^p, written as a product for p = 1 and 2.
Expr AbsPower(NodeContext& ctx, const Expr& x, int64_t p) {
  if (p == 1) return ctx.Op("relax.abs", {x});
  if (p == 2) return ctx.Op("relax.multiply", {x, x});
  return ctx.Op("relax.power", {ctx.Op("relax.abs", {x}), ScalarConstant(ctx.DType(0), static_cast<double>(p))});
}

Expr Root(NodeContext& ctx, const Expr& x, int64_t p) {
  if (p == 1) return x;
  if (p == 2) return ctx.Op("relax.sqrt", {x});
  return ctx.Op("relax.power", {x, ScalarConstant(ctx.DType(0), 1.0 / static_cast<double>(p))});
}

int64_t LpOrder(NodeContext& ctx) {
  if (!ctx.DType(0).is_floating_point()) ctx.Fail("the input must be a floating-point tensor");
  int64_t p = ctx.AttrInt("p", 2);
  if (p <= 0) ctx.Fail("p must be positive, got " + std::to_string(p));
  return p;
}

// LpPool: the p-th root of the window sums of |x|^p, the sums as average pools (padding counted)
// times the window size. ceil_mode windows run past the padding, where that product is no sum.
std::vector<Operand> ConvertLpPool(NodeContext& ctx) {
  int64_t p = LpOrder(ctx);
  if (ctx.AttrInt("ceil_mode", 0) != 0) ctx.Fail("ceil_mode 1 is not supported");
  for (int64_t d : ctx.AttrInts("dilations", {})) {
    if (d != 1) ctx.Fail("dilations other than 1 are not supported");
  }
  int64_t window = 1;
  for (int64_t k : ctx.AttrInts("kernel_shape", {})) window *= k;
  Expr avg = PoolOf(ctx, "avg", AbsPower(ctx, ctx.Expr(0), p), true);
  Expr sum = ctx.Op("relax.multiply", {avg, ScalarConstant(ctx.DType(0), static_cast<double>(window))});
  return {Value(Root(ctx, sum, p))};
}

// GlobalLpPool: the p-norm over all spatial axes, kept as 1.
std::vector<Operand> ConvertGlobalLpPool(NodeContext& ctx) {
  int64_t p = LpOrder(ctx);
  int64_t rank = ctx.Rank(0);
  if (rank < 3) ctx.Fail("the data must have spatial axes");
  std::vector<int64_t> axes;
  for (int64_t k = 2; k < rank; ++k) axes.push_back(k);
  Expr sum = ctx.Op("relax.sum", {AbsPower(ctx, ctx.Expr(0), p)},
                    {{"axis", relax::IntArray(axes)}, {"keepdims", ir::MakeBool(true)}});
  return {Value(Root(ctx, sum, p))};
}

// LRN: x / (bias + alpha / size * S)^beta, S the sum of squares over the channel window
// [c - floor((size-1)/2), c + ceil((size-1)/2)], computed as an average pool (padding counted)
// of x² viewed as (N, 1, C, rest) times the window size.
std::vector<Operand> ConvertLRN(NodeContext& ctx) {
  if (!ctx.DType(0).is_floating_point()) ctx.Fail("the input must be a floating-point tensor");
  int64_t rank = ctx.Rank(0);
  if (rank < 2) ctx.Fail("the input must have a channel axis, got rank " + std::to_string(rank));
  int64_t size = ctx.AttrInt("size", 0);
  if (size <= 0) ctx.Fail("size must be positive, got " + std::to_string(size));
  double alpha = ctx.AttrFloat("alpha", 1e-4f), beta = ctx.AttrFloat("beta", 0.75f), bias = ctx.AttrFloat("bias", 1.0f);
  DataType dtype = ctx.DType(0);
  std::vector<PrimExpr> shape = ctx.Shape(0);
  PrimExpr rest = I64(1);
  for (int64_t k = 2; k < rank; ++k) rest = tir::mul(rest, shape[k]);
  Expr x = ctx.Expr(0);
  Expr sq = ctx.Op("relax.reshape", {ctx.Op("relax.multiply", {x, x}), ShapeOf({shape[0], I64(1), shape[1], rest})});
  int64_t before = (size - 1) / 2, after = size - 1 - before;
  Expr avg = ctx.Op("relax.nn.avg_pool2d", {sq},
                    {{"pool_size", relax::IntArray({size, 1})},
                     {"strides", relax::IntArray({1, 1})},
                     {"dilation", relax::IntArray({1, 1})},
                     {"padding", relax::IntArray({before, 0, after, 0})},
                     {"ceil_mode", ir::MakeBool(false)},
                     {"count_include_pad", ir::MakeBool(true)}});
  Expr sum = ctx.Op("relax.reshape", {avg, ShapeOf(shape)});
  // alpha / size * (avg * size) is alpha * avg.
  Expr base = ctx.Op("relax.add", {ScalarConstant(dtype, bias), ctx.Op("relax.multiply", {sum, ScalarConstant(dtype, alpha)})});
  return {Value(Expr(ctx.Op("relax.divide", {x, ctx.Op("relax.power", {base, ScalarConstant(dtype, beta)})})))};
}

// MeanVarianceNormalization by ONNX's function body: (x - E[x]) / (sqrt(E[x²] - E[x]²) + 1e-9)
// over `axes` (default 0, 2, 3).
std::vector<Operand> ConvertMVN(NodeContext& ctx) {
  if (!ctx.DType(0).is_floating_point()) ctx.Fail("the input must be a floating-point tensor");
  int64_t rank = ctx.Rank(0);
  std::vector<int64_t> axes = ctx.AttrInts("axes", {0, 2, 3});
  for (int64_t& a : axes) a = NormalizeAxis(a, rank, ctx);
  DataType dtype = ctx.DType(0);
  Expr x = ctx.Expr(0);
  ir::AttrMap attrs{{"axis", relax::IntArray(axes)}, {"keepdims", ir::MakeBool(true)}};
  Expr mean = ctx.Op("relax.mean", {x}, attrs);
  Expr mean_sq = ctx.Op("relax.mean", {ctx.Op("relax.multiply", {x, x})}, attrs);
  Expr var = ctx.Op("relax.subtract", {mean_sq, ctx.Op("relax.multiply", {mean, mean})});
  Expr std = ctx.Op("relax.add", {ctx.Op("relax.sqrt", {var}), ScalarConstant(dtype, 1e-9)});
  return {Value(Expr(ctx.Op("relax.divide", {ctx.Op("relax.subtract", {x, mean}), std})))};
}

// Hardmax: 1 at the first maximum along `axis`, 0 elsewhere (argmax compared with the positions
// along the axis). Before opset 13 the input is coerced to 2-D at `axis` (default 1), as Softmax.
std::vector<Operand> ConvertHardmax(NodeContext& ctx) {
  int64_t rank = ctx.Rank(0);
  bool coerced = ctx.opset() < 13;
  int64_t axis = NormalizeAxis(ctx.AttrInt("axis", coerced ? 1 : -1), rank, ctx);
  std::vector<PrimExpr> shape = ctx.Shape(0);
  Expr x = ctx.Expr(0);
  std::vector<PrimExpr> work = shape;
  if (coerced && axis != rank - 1) {
    PrimExpr outer = I64(1), inner = I64(1);
    for (int64_t k = 0; k < rank; ++k) (k < axis ? outer : inner) = tir::mul(k < axis ? outer : inner, shape[k]);
    work = {outer, inner};
    x = ctx.Op("relax.reshape", {x, ShapeOf(work)});
    axis = 1;
  }
  Expr arg = ctx.Op("relax.argmax", {x}, {{"axis", ir::MakeInt(axis)}, {"keepdims", ir::MakeBool(true)}});
  std::vector<PrimExpr> column(work.size(), I64(1));
  column[axis] = work[axis];
  Expr positions = ctx.Op("relax.arange", {relax::MakePrimValue(I64(0)), relax::MakePrimValue(work[axis]),
                                           relax::MakePrimValue(I64(1))},
                          {{"dtype", relax::DTypeAttr(DataType::Int(64))}});
  positions = ctx.Op("relax.reshape", {positions, ShapeOf(column)});
  Expr y = ctx.Op("relax.astype", {ctx.Op("relax.equal", {arg, positions})}, {{"dtype", relax::DTypeAttr(ctx.DType(0))}});
  if (work.size() != shape.size()) y = ctx.Op("relax.reshape", {y, ShapeOf(shape)});
  return {Value(y)};
}

Converter GlobalPool(const char* relax_name) {
  std::string name = relax_name;
  return [name](NodeContext& ctx) -> std::vector<Operand> {
    int64_t rank = ctx.Rank(0);
    if (rank < 3) ctx.Fail("the data must have spatial axes");
    std::vector<int64_t> axes;
    for (int64_t k = 2; k < rank; ++k) axes.push_back(k);
    return {Value(Expr(ctx.Op(name, {ctx.Expr(0)}, {{"axis", relax::IntArray(axes)}, {"keepdims", ir::MakeBool(true)}})))};
  };
}

std::vector<Operand> ConvertBatchNorm(NodeContext& ctx) {
  if (ctx.AttrInt("training_mode", 0) != 0) ctx.Fail("training_mode 1 is not supported");
  for (int k = 1; k < ctx.node().output_size(); ++k) {
    if (!ctx.node().output(k).empty()) ctx.Fail("the running mean and variance outputs are not supported");
  }
  Expr bn = ctx.Op("relax.nn.batch_norm",
                   {ctx.Expr(0), ctx.Expr(1), ctx.Expr(2), ctx.Expr(3), ctx.Expr(4)},
                   {{"axis", ir::MakeInt(1)},
                    {"epsilon", ir::MakeFloat(ctx.AttrFloat("epsilon", 1e-5f))},
                    {"momentum", ir::MakeFloat(ctx.AttrFloat("momentum", 0.9f))},
                    {"training", ir::MakeBool(false)}});
  return {Value(Expr(ctx.Emit(relax::MakeTupleGetItem(bn, 0))))};
}

std::vector<Operand> ConvertLayerNorm(NodeContext& ctx) {
  for (int k = 1; k < ctx.node().output_size(); ++k) {
    if (!ctx.node().output(k).empty()) ctx.Fail("the Mean and InvStdDev outputs are not supported");
  }
  int64_t rank = ctx.Rank(0);
  int64_t axis = NormalizeAxis(ctx.AttrInt("axis", -1), rank, ctx);
  std::vector<int64_t> axes;
  for (int64_t k = axis; k < rank; ++k) axes.push_back(k);
  Expr beta;
  if (ctx.HasInput(2)) {
    beta = ctx.Expr(2);
  } else {
    beta = ctx.Op("relax.zeros", {ShapeOf(ctx.Shape(1))}, {{"dtype", relax::DTypeAttr(ctx.DType(1))}});
  }
  return {Value(Expr(ctx.Op("relax.nn.layer_norm", {ctx.Expr(0), ctx.Expr(1), beta},
                            {{"axes", relax::IntArray(axes)},
                             {"epsilon", ir::MakeFloat(ctx.AttrFloat("epsilon", 1e-5f))}})))};
}

// Softmax and LogSoftmax. Before opset 13 they coerce the input to 2-D at `axis` (default 1)
// and normalize the trailing block; from 13 they normalize along `axis` (default -1).
Converter SoftmaxLike(const char* relax_name) {
  std::string name = relax_name;
  return [name](NodeContext& ctx) -> std::vector<Operand> {
    int64_t rank = ctx.Rank(0);
    bool coerced = ctx.opset() < 13;
    int64_t axis = NormalizeAxis(ctx.AttrInt("axis", coerced ? 1 : -1), rank, ctx);
    if (!coerced || axis == rank - 1) {
      return {Value(Expr(ctx.Op(name, {ctx.Expr(0)}, {{"axis", ir::MakeInt(axis)}})))};
    }
    std::vector<PrimExpr> shape = ctx.Shape(0);
    PrimExpr outer = I64(1), inner = I64(1);
    for (int64_t k = 0; k < rank; ++k) (k < axis ? outer : inner) = tir::mul(k < axis ? outer : inner, shape[k]);
    Expr flat = ctx.Op("relax.reshape", {ctx.Expr(0), ShapeOf({outer, inner})});
    Expr y = ctx.Op(name, {flat}, {{"axis", ir::MakeInt(1)}});
    return {Value(Expr(ctx.Op("relax.reshape", {y, ShapeOf(shape)})))};
  };
}

// InstanceNormalization onto relax.nn.instance_norm: each (sample, channel) normalized over the
// spatial axes, then scaled and shifted per channel.
std::vector<Operand> ConvertInstanceNorm(NodeContext& ctx) {
  int64_t rank = ctx.Rank(0);
  if (rank < 3) ctx.Fail("the input must have spatial axes, got rank " + std::to_string(rank));
  std::vector<int64_t> axes;
  for (int64_t k = 2; k < rank; ++k) axes.push_back(k);
  return {Value(Expr(ctx.Op("relax.nn.instance_norm", {ctx.Expr(0), ctx.Expr(1), ctx.Expr(2)},
                            {{"channel_axis", ir::MakeInt(1)},
                             {"axes", relax::IntArray(axes)},
                             {"epsilon", ir::MakeFloat(ctx.AttrFloat("epsilon", 1e-5f))}})))};
}

// GroupNormalization (opset 18) onto relax.nn.group_norm: its scale and bias hold one value per
// group, repeated here to one per channel as the op takes them.
std::vector<Operand> ConvertGroupNorm(NodeContext& ctx) {
  int64_t rank = ctx.Rank(0);
  if (rank < 2) ctx.Fail("the input must have a channel axis, got rank " + std::to_string(rank));
  int64_t groups = ctx.AttrInt("num_groups", 0);
  if (groups <= 0) ctx.Fail("num_groups must be positive, got " + std::to_string(groups));
  if (ctx.AttrInt("stash_type", 1) != 1) {
    ctx.Fail("stash_type " + std::to_string(ctx.AttrInt("stash_type", 1)) + " is not supported (only 1, float32)");
  }
  const int64_t* channels = tir::AsConstInt(ctx.Shape(0)[1]);
  if (!channels) ctx.Fail("the channel dim must be static");
  if (*channels % groups != 0) {
    ctx.Fail(std::to_string(*channels) + " channels are not divisible by num_groups " + std::to_string(groups));
  }
  auto per_channel = [&](size_t i) {
    Expr v = ctx.Expr(i);
    const int64_t* n = ctx.Rank(i) == 1 ? tir::AsConstInt(ctx.Shape(i)[0]) : nullptr;
    if (!n || (*n != groups && *n != *channels)) {
      ctx.Fail(std::string(i == 1 ? "scale" : "bias") + " must hold num_groups (" + std::to_string(groups) +
               ") values");
    }
    if (*n == *channels) return v;
    return Expr(ctx.Op("relax.repeat", {v}, {{"repeats", ir::MakeInt(*channels / groups)}, {"axis", ir::MakeInt(0)}}));
  };
  std::vector<int64_t> axes;
  for (int64_t k = 2; k < rank; ++k) axes.push_back(k);
  return {Value(Expr(ctx.Op("relax.nn.group_norm", {ctx.Expr(0), per_channel(1), per_channel(2)},
                            {{"num_groups", ir::MakeInt(groups)},
                             {"channel_axis", ir::MakeInt(1)},
                             {"axes", relax::IntArray(axes)},
                             {"epsilon", ir::MakeFloat(ctx.AttrFloat("epsilon", 1e-5f))}})))};
}

// Resize onto relax.image.resize2d (4-D data, the spatial axes resized): nearest (its
// nearest_mode the rounding) and linear, with the coordinate transformations half_pixel,
// pytorch_half_pixel, align_corners and asymmetric. The output size comes from `sizes` or from
// `scales` (floor(dim * scale)); scales must give whole sizes, where the op's in/out ratio is the
// scale ONNX maps coordinates with.
std::vector<Operand> ConvertResize(NodeContext& ctx) {
  int64_t rank = ctx.Rank(0);
  if (rank != 4) ctx.Fail("only 4-D data (NCHW) is supported, got rank " + std::to_string(rank));
  std::string mode = ctx.AttrString("mode", "nearest");
  if (mode != "nearest" && mode != "linear") ctx.Fail("mode '" + mode + "' is not supported (nearest, linear)");
  std::string coord = ctx.AttrString("coordinate_transformation_mode", "half_pixel");
  if (coord != "half_pixel" && coord != "pytorch_half_pixel" && coord != "align_corners" && coord != "asymmetric") {
    ctx.Fail("coordinate_transformation_mode '" + coord +
             "' is not supported (half_pixel, pytorch_half_pixel, align_corners, asymmetric)");
  }
  std::string nearest = ctx.AttrString("nearest_mode", "round_prefer_floor");
  if (mode == "nearest" && nearest != "round_prefer_floor" && nearest != "round_prefer_ceil" && nearest != "floor" &&
      nearest != "ceil") {
    ctx.Fail("nearest_mode '" + nearest + "' is not supported");
  }
  if (ctx.AttrInt("antialias", 0) != 0) ctx.Fail("antialias 1 is not supported");
  std::string policy = ctx.AttrString("keep_aspect_ratio_policy", "stretch");
  if (policy != "stretch") ctx.Fail("keep_aspect_ratio_policy '" + policy + "' is not supported (only stretch)");
  std::vector<int64_t> axes = ctx.AttrInts("axes", {0, 1, 2, 3});
  for (int64_t& a : axes) a = NormalizeAxis(a, rank, ctx);
  std::vector<PrimExpr> in = ctx.Shape(0);
  std::vector<PrimExpr> out = in;
  auto has_values = [&](size_t i) {
    if (!ctx.HasInput(i)) return false;
    if (const KnownInts* k = ctx.Known(i)) return !k->values.empty();
    const auto* c = ctx.Input(i).expr.as<relax::ConstantNode>();
    if (!c) ctx.Fail("input " + std::to_string(i) + " ('" + ctx.node().input(static_cast<int>(i)) + "') must be a constant");
    return !ConstantValues(*c).empty();
  };
  if (ctx.NumInputs() > 3 && has_values(3)) {
    std::vector<int64_t> sizes = ctx.ConstInts(3, "the sizes");
    if (sizes.size() != axes.size()) ctx.Fail("sizes must have one value per axis");
    for (size_t k = 0; k < axes.size(); ++k) {
      const int64_t* d = tir::AsConstInt(in[axes[k]]);
      if (!d || *d != sizes[k]) out[axes[k]] = I64(sizes[k]);
    }
  } else if (ctx.NumInputs() > 2 && has_values(2)) {
    std::vector<double> scales = ConstantValues(*ctx.Input(2).expr.as<relax::ConstantNode>());
    if (scales.size() != axes.size()) ctx.Fail("scales must have one value per axis");
    for (size_t k = 0; k < axes.size(); ++k) {
      double sc = scales[k];
      if (sc <= 0) ctx.Fail("scales must be positive, got " + std::to_string(sc));
      if (sc == 1.0) continue;
      const int64_t* d = tir::AsConstInt(in[axes[k]]);
      if (d) {
        double size = *d * sc;
        if (size != std::floor(size)) {
          ctx.Fail("scale " + std::to_string(sc) + " on a dim of " + std::to_string(*d) +
                   " gives a fractional size; give sizes instead");
        }
        out[axes[k]] = I64(static_cast<int64_t>(size));
      } else if (sc == std::floor(sc)) {
        out[axes[k]] = tir::mul(in[axes[k]], I64(static_cast<int64_t>(sc)));
      } else {
        ctx.Fail("a fractional scale (" + std::to_string(sc) + ") needs a static dim");
      }
    }
  } else {
    ctx.Fail("neither scales nor sizes is given");
  }
  if (out[0].get() != in[0].get() || out[1].get() != in[1].get()) {
    ctx.Fail("only the spatial axes (2 and 3) can be resized");
  }
  ir::AttrMap attrs{{"layout", ir::MakeString("NCHW")},
                    {"method", ir::MakeString(mode == "nearest" ? "nearest_neighbor" : "linear")},
                    {"coordinate_transformation_mode", ir::MakeString(coord)}};
  if (mode == "nearest") attrs["rounding_method"] = ir::MakeString(nearest);
  return {Value(Expr(ctx.Op("relax.image.resize2d", {ctx.Expr(0), ShapeOf({out[2], out[3]})}, attrs)))};
}

}  // namespace

Window ReadWindow(NodeContext& ctx, const std::vector<int64_t>& kernel) {
  size_t n = kernel.size();
  Window w;
  w.kernel = kernel;
  w.strides = ctx.AttrInts("strides", std::vector<int64_t>(n, 1));
  w.dilations = ctx.AttrInts("dilations", std::vector<int64_t>(n, 1));
  w.pads = ctx.AttrInts("pads", std::vector<int64_t>(2 * n, 0));
  if (w.strides.size() != n || w.dilations.size() != n || w.pads.size() != 2 * n) {
    ctx.Fail("strides, dilations and pads must have one value per spatial axis (pads two)");
  }
  for (size_t k = 0; k < n; ++k) {
    if (w.strides[k] <= 0 || w.dilations[k] <= 0 || kernel[k] <= 0) {
      ctx.Fail("strides, dilations and kernel sizes must be positive, got strides " + ListText(w.strides) +
               ", dilations " + ListText(w.dilations) + ", kernel " + ListText(kernel));
    }
  }
  std::string auto_pad = ctx.AttrString("auto_pad", "NOTSET");
  if (auto_pad == "NOTSET") return w;
  if (auto_pad == "VALID") {
    std::fill(w.pads.begin(), w.pads.end(), 0);
    return w;
  }
  if (auto_pad != "SAME_UPPER" && auto_pad != "SAME_LOWER") ctx.Fail("unknown auto_pad '" + auto_pad + "'");
  std::vector<PrimExpr> shape = ctx.Shape(0);
  if (shape.size() < n) ctx.Fail("the input has fewer dims than the " + std::to_string(n) + " spatial axes");
  for (size_t k = 0; k < n; ++k) {
    const int64_t* in = tir::AsConstInt(shape[shape.size() - n + k]);
    if (!in) ctx.Fail("auto_pad " + auto_pad + " needs static spatial dims");
    int64_t out = (*in + w.strides[k] - 1) / w.strides[k];
    int64_t total = std::max<int64_t>(0, (out - 1) * w.strides[k] + (kernel[k] - 1) * w.dilations[k] + 1 - *in);
    int64_t small = total / 2, large = total - small;
    w.pads[k] = auto_pad == "SAME_UPPER" ? small : large;
    w.pads[k + n] = auto_pad == "SAME_UPPER" ? large : small;
  }
  return w;
}

void RegisterNN(ConverterTable& t) {
  t["ConvTranspose"] = ConvertConvTranspose;
  t["Gemm"] = ConvertGemm;
  t["MatMul"] = ConvertMatMul;
  t["Einsum"] = ConvertEinsum;
  t["Conv"] = ConvertConv;
  t["MaxPool"] = Pool(false);
  t["AveragePool"] = Pool(true);
  t["GlobalAveragePool"] = GlobalPool("relax.mean");
  t["GlobalMaxPool"] = GlobalPool("relax.max");
  t["LpPool"] = ConvertLpPool;
  t["GlobalLpPool"] = ConvertGlobalLpPool;
  t["LRN"] = ConvertLRN;
  t["MeanVarianceNormalization"] = ConvertMVN;
  t["Hardmax"] = ConvertHardmax;
  t["BatchNormalization"] = ConvertBatchNorm;
  t["LayerNormalization"] = ConvertLayerNorm;
  t["InstanceNormalization"] = ConvertInstanceNorm;
  t["GroupNormalization"] = ConvertGroupNorm;
  t["Resize"] = ConvertResize;
  t["Softmax"] = SoftmaxLike("relax.nn.softmax");
  t["LogSoftmax"] = SoftmaxLike("relax.nn.log_softmax");
}

}  // namespace wb::frontend::onnx
