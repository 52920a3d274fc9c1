// Neural-network ONNX ops: Gemm and MatMul, 1-D and 2-D Conv (onto conv1d / conv2d),
// ConvTranspose and pooling (1-D as 2-D over a unit height), the normalizations, Resize,
// quantization and the softmax family, mapped onto relax.matmul, relax.nn.*, relax.image.*,
// relax.quantize / dequantize and relax.mean / relax.max as TVM's ONNX frontend maps them.
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

// Einsum onto relax.einsum (its equation the subscripts).
std::vector<Operand> ConvertEinsum(NodeContext& ctx) {
  std::vector<Expr> operands;
  for (size_t i = 0; i < ctx.NumInputs(); ++i) operands.push_back(ctx.Expr(i));
  std::string equation = ctx.AttrString("equation", "");
  if (equation.empty()) ctx.Fail("the equation is missing");
  return {Value(Expr(ctx.Op("relax.einsum", {relax::MakeTuple(operands)}, {{"subscripts", ir::MakeString(equation)}})))};
}

// The spatial attributes of Conv and the pools, with auto_pad resolved on static shapes.
struct Window {
  std::vector<int64_t> kernel, strides, dilations, pads;  // pads: begins then ends
};

std::string ListText(const std::vector<int64_t>& values) {
  std::string out = "[";
  for (size_t i = 0; i < values.size(); ++i) out += (i ? ", " : "") + std::to_string(values[i]);
  return out + "]";
}

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

// 1-D windows run as 2-D ones over a unit height: (N, C, W) -> (N, C, 1, W) and back.
Window As2D(const Window& w) {
  return {{1, w.kernel[0]}, {1, w.strides[0]}, {1, w.dilations[0]}, {0, w.pads[0], 0, w.pads[1]}};
}
Expr UnitHeight(NodeContext& ctx, const Expr& x) {
  return ctx.Op("relax.expand_dims", {x}, {{"axis", relax::IntArray({2})}});
}
Expr DropHeight(NodeContext& ctx, const Expr& x) {
  return ctx.Op("relax.squeeze", {x}, {{"axis", relax::IntArray({2})}});
}

// The static spatial dims of a convolution's weight; 1-D or 2-D.
std::vector<int64_t> KernelOf(NodeContext& ctx, const char* op) {
  int64_t rank = ctx.Rank(0);
  if ((rank != 3 && rank != 4) || ctx.Rank(1) != rank) {
    ctx.Fail(std::string("only 1-D and 2-D ") + op + " (3-D or 4-D data and weight) is supported, got rank " +
             std::to_string(rank));
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

// The bias as (1, C, 1[, 1]) added to a rank-`rank` result.
Expr AddChannelBias(NodeContext& ctx, Expr y, size_t bias_input, int64_t rank = 4) {
  if (!ctx.HasInput(bias_input)) return y;
  std::vector<PrimExpr> bias_shape = ctx.Shape(bias_input);
  if (bias_shape.size() != 1) ctx.Fail("the bias must be 1-D, got rank " + std::to_string(bias_shape.size()));
  std::vector<PrimExpr> dims(rank, I64(1));
  dims[1] = bias_shape[0];
  Expr bias = ctx.Op("relax.reshape", {ctx.Expr(bias_input), ShapeOf(dims)});
  return ctx.Op("relax.add", {y, bias});
}

// Conv: 1-D onto relax.nn.conv1d, 2-D onto relax.nn.conv2d.
std::vector<Operand> ConvertConv(NodeContext& ctx) {
  std::vector<int64_t> kernel = KernelOf(ctx, "convolution");
  Window w = ReadWindow(ctx, ctx.AttrInts("kernel_shape", kernel));
  bool one_d = kernel.size() == 1;
  Expr y = ctx.Op(one_d ? "relax.nn.conv1d" : "relax.nn.conv2d", {ctx.Expr(0), ctx.Expr(1)},
                  {{"strides", relax::IntArray(w.strides)},
                   {"padding", relax::IntArray(w.pads)},
                   {"dilation", relax::IntArray(w.dilations)},
                   {"groups", ir::MakeInt(ctx.AttrInt("group", 1))}});
  return {Value(AddChannelBias(ctx, y, 2, one_d ? 3 : 4))};
}

// ConvTranspose onto relax.nn.conv2d_transpose (ONNX's weight is (C, M / group, kH, kW), TVM's
// IOHW). output_shape, when given, fixes the total padding of each axis; as the ONNX spec says,
// SAME_UPPER puts the larger half at the end, NOTSET and SAME_LOWER at the start.
std::vector<Operand> ConvertConvTranspose(NodeContext& ctx) {
  std::vector<int64_t> kernel = KernelOf(ctx, "transposed convolution");
  size_t n = kernel.size();
  bool one_d = n == 1;
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
  if (one_d) {
    kernel = {1, kernel[0]};
    strides = {1, strides[0]};
    dilations = {1, dilations[0]};
    out_pad = {0, out_pad[0]};
    pads = {0, pads[0], 0, pads[1]};
  }
  Expr data = ctx.Expr(0), weight = ctx.Expr(1);
  if (one_d) {
    data = UnitHeight(ctx, data);
    weight = UnitHeight(ctx, weight);
  }
  Expr y = ctx.Op("relax.nn.conv2d_transpose", {data, weight},
                  {{"strides", relax::IntArray(strides)},
                   {"padding", relax::IntArray(pads)},
                   {"output_padding", relax::IntArray(out_pad)},
                   {"dilation", relax::IntArray(dilations)},
                   {"groups", ir::MakeInt(ctx.AttrInt("group", 1))}});
  y = AddChannelBias(ctx, y, 2);
  return {Value(one_d ? DropHeight(ctx, y) : y)};
}

Converter Pool(const char* relax_name, bool average) {
  std::string name = relax_name;
  return [name, average](NodeContext& ctx) -> std::vector<Operand> {
    int64_t rank = ctx.Rank(0);
    if (rank != 3 && rank != 4) ctx.Fail("only 1-D and 2-D pooling (3-D or 4-D data) is supported");
    if (ctx.node().output_size() > 1 && !ctx.node().output(1).empty()) ctx.Fail("the Indices output is not supported");
    std::vector<int64_t> kernel = ctx.AttrInts("kernel_shape", {});
    if (kernel.size() != static_cast<size_t>(rank - 2)) {
      ctx.Fail("kernel_shape must have " + std::to_string(rank - 2) + " values");
    }
    if (ctx.AttrInt("storage_order", 0) != 0) ctx.Fail("storage_order 1 is not supported");
    bool one_d = rank == 3;
    Window w = ReadWindow(ctx, kernel);
    if (one_d) w = As2D(w);
    ir::AttrMap attrs{{"pool_size", relax::IntArray(w.kernel)},
                      {"strides", relax::IntArray(w.strides)},
                      {"dilation", relax::IntArray(w.dilations)},
                      {"padding", relax::IntArray(w.pads)},
                      {"ceil_mode", ir::MakeBool(ctx.AttrInt("ceil_mode", 0) != 0)}};
    if (average) attrs["count_include_pad"] = ir::MakeBool(ctx.AttrInt("count_include_pad", 0) != 0);
    if (!one_d) return {Value(Expr(ctx.Op(name, {ctx.Expr(0)}, attrs)))};
    return {Value(DropHeight(ctx, ctx.Op(name, {UnitHeight(ctx, ctx.Expr(0))}, attrs)))};
  };
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

// QuantizeLinear and DequantizeLinear onto relax.quantize / relax.dequantize, per tensor (a
// scalar or one-element scale) or per `axis` (a 1-D scale). QuantizeLinear's output dtype is its
// zero point's (uint8 without one); a missing zero point is 0.
Converter QDQ(bool quantize) {
  return [quantize](NodeContext& ctx) -> std::vector<Operand> {
    if (ctx.AttrInt("block_size", 0) != 0) ctx.Fail("block_size " + std::to_string(ctx.AttrInt("block_size", 0)) + " (blocked quantization) is not supported");
    if (ctx.AttrInt("saturate", 1) != 1) ctx.Fail("saturate 0 is not supported");
    int64_t rank = ctx.Rank(0);
    int64_t srank = ctx.Rank(1);
    if (srank > 1) ctx.Fail("the scale must be a scalar or 1-D, got rank " + std::to_string(srank));
    int64_t axis = rank == 0 ? 0 : NormalizeAxis(ctx.AttrInt("axis", 1), rank, ctx);
    DataType out = quantize ? (ctx.HasInput(2) ? ctx.DType(2) : DataType::UInt(8)) : ctx.DType(1);
    if (quantize && !out.is_integer()) ctx.Fail("only integer outputs are supported, got " + out.ToString());
    Expr zero = ctx.HasInput(2) ? ctx.Expr(2) : Expr(ScalarConstant(quantize ? out : ctx.DType(0), 0));
    return {Value(Expr(ctx.Op(quantize ? "relax.quantize" : "relax.dequantize", {ctx.Expr(0), ctx.Expr(1), zero},
                              {{"out_dtype", relax::DTypeAttr(out)}, {"axis", ir::MakeInt(axis)}})))};
  };
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

void RegisterNN(ConverterTable& t) {
  t["ConvTranspose"] = ConvertConvTranspose;
  t["QuantizeLinear"] = QDQ(true);
  t["Gemm"] = ConvertGemm;
  t["MatMul"] = ConvertMatMul;
  t["Einsum"] = ConvertEinsum;
  t["Conv"] = ConvertConv;
  t["MaxPool"] = Pool("relax.nn.max_pool2d", false);
  t["AveragePool"] = Pool("relax.nn.avg_pool2d", true);
  t["GlobalAveragePool"] = GlobalPool("relax.mean");
  t["GlobalMaxPool"] = GlobalPool("relax.max");
  t["BatchNormalization"] = ConvertBatchNorm;
  t["LayerNormalization"] = ConvertLayerNorm;
  t["InstanceNormalization"] = ConvertInstanceNorm;
  t["GroupNormalization"] = ConvertGroupNorm;
  t["Resize"] = ConvertResize;
  t["DequantizeLinear"] = QDQ(false);
  t["Softmax"] = SoftmaxLike("relax.nn.softmax");
  t["LogSoftmax"] = SoftmaxLike("relax.nn.log_softmax");
}

}  // namespace wb::frontend::onnx
