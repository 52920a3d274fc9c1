// Element-wise ONNX ops: arithmetic and comparisons with numpy broadcasting, unary math, Clip,
// Where, Cast / CastLike, IsNaN / IsInf, Shrink, the activations and the pass-throughs (Identity, Dropout in inference). On integer values known at
// import time (shapes and their arithmetic) the binary ops, Where and Cast compute the result
// here instead of emitting a call.
#include <cctype>
#include <cmath>

#include "frontend/onnx/importer.h"
#include "tir/op.h"

namespace wb::frontend::onnx {
namespace {

using relax::Expr;

// Numpy broadcasting of two known shapes; ImportError when they do not broadcast.
std::vector<int64_t> BroadcastKnownShape(const std::vector<int64_t>& a, const std::vector<int64_t>& b,
                                         const NodeContext& ctx) {
  size_t n = std::max(a.size(), b.size());
  std::vector<int64_t> out(n);
  for (size_t k = 0; k < n; ++k) {
    int64_t da = k < n - a.size() ? 1 : a[k - (n - a.size())];
    int64_t db = k < n - b.size() ? 1 : b[k - (n - b.size())];
    if (da != db && da != 1 && db != 1) {
      ctx.Fail("the shapes of the operands do not broadcast (" + std::to_string(da) + " against " +
               std::to_string(db) + ")");
    }
    out[k] = da == 1 ? db : da;
  }
  return out;
}

// The element of `k` that output element `flat` reads under broadcasting to `out`.
const PrimExpr& BroadcastElement(const KnownInts& k, const std::vector<int64_t>& out, int64_t flat) {
  int64_t index = 0, stride = 1;
  for (size_t d = out.size(); d-- > 0;) {
    int64_t coord = flat % out[d];
    flat /= out[d];
    size_t kd = d + k.shape.size();
    if (kd >= out.size()) {
      kd -= out.size();
      int64_t extent = k.shape[kd];
      index += (extent == 1 ? 0 : coord) * stride;
      stride *= extent;
    }
  }
  return k.values[index];
}

int64_t Count(const std::vector<int64_t>& shape) {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  return n;
}

using PrimBinary = PrimExpr (*)(PrimExpr, PrimExpr, Span);

// Integer division as ONNX defines it for integer tensors: truncating.
PrimExpr TruncDiv(PrimExpr a, PrimExpr b, Span span) { return tir::truncdiv(a, b, span); }

struct BinaryOp {
  const char* relax_name;
  PrimBinary fold;  // null: never folded
  bool compare;
};

std::vector<Operand> ConvertBinary(NodeContext& ctx, const BinaryOp& op) {
  const KnownInts* a = ctx.Known(0);
  const KnownInts* b = ctx.Known(1);
  if (a && b && op.fold) {
    KnownInts out;
    out.shape = BroadcastKnownShape(a->shape, b->shape, ctx);
    out.dtype = op.compare ? DataType::Bool() : a->dtype;
    for (int64_t i = 0, n = Count(out.shape); i < n; ++i) {
      PrimExpr x = BroadcastElement(*a, out.shape, i);
      PrimExpr y = BroadcastElement(*b, out.shape, i);
      if (!op.compare && a->dtype.is_bool()) ctx.Fail("arithmetic on bool tensors");
      out.values.push_back(op.fold(x, y, {}));
    }
    return {Value(std::move(out))};
  }
  Expr lhs = ctx.Expr(0), rhs = ctx.Expr(1);
  DataType lt = ctx.DType(0), rt = ctx.DType(1);
  if (std::string(op.relax_name) == "relax.power" && lt != rt) {
    // Pow's exponent may have another type than its base.
    rhs = ctx.Op("relax.astype", {rhs}, {{"dtype", relax::DTypeAttr(lt)}});
  } else if (lt != rt) {
    ctx.Fail("the operands have different element types, " + lt.ToString() + " and " + rt.ToString());
  }
  return {Value(Expr(ctx.Op(op.relax_name, {lhs, rhs})))};
}

// Max, Min, Sum, Mean: one or more operands, folded left to right.
std::vector<Operand> ConvertVariadic(NodeContext& ctx, const char* relax_name, bool mean) {
  size_t n = ctx.NumInputs();
  if (n == 0) ctx.Fail("needs at least one input");
  Expr acc = ctx.Expr(0);
  for (size_t i = 1; i < n; ++i) acc = ctx.Op(relax_name, {acc, ctx.Expr(i)});
  if (mean && n > 1) {
    acc = ctx.Op("relax.divide", {acc, ScalarConstant(ctx.DType(0), static_cast<double>(n))});
  }
  return {Value(acc)};
}

Converter Binary(BinaryOp op) {
  return [op](NodeContext& ctx) { return ConvertBinary(ctx, op); };
}

Converter Unary(const char* relax_name) {
  std::string name = relax_name;
  return [name](NodeContext& ctx) -> std::vector<Operand> {
    return {Value(Expr(ctx.Op(name, {ctx.Expr(0)})))};
  };
}

std::vector<Operand> ConvertClip(NodeContext& ctx) {
  Expr x = ctx.Expr(0);
  DataType dtype = ctx.DType(0);
  std::optional<double> lo, hi;
  bool dynamic = false;
  // From opset 11 the bounds are optional inputs.
  for (size_t i = 1; i < 3; ++i) {
    if (!ctx.HasInput(i)) continue;
    std::optional<double> v = ctx.ConstScalar(i);
    if (!v) dynamic = true;
    (i == 1 ? lo : hi) = v;
  }
  if (dynamic) {
    // Bounds computed by the graph: maximum and minimum with them.
    if (ctx.HasInput(1)) x = ctx.Op("relax.maximum", {x, ctx.Expr(1)});
    if (ctx.HasInput(2)) x = ctx.Op("relax.minimum", {x, ctx.Expr(2)});
    return {Value(x)};
  }
  if (!lo && !hi) return {Value(x)};
  if (!lo) return {Value(Expr(ctx.Op("relax.minimum", {x, ScalarConstant(dtype, *hi)})))};
  if (!hi) return {Value(Expr(ctx.Op("relax.maximum", {x, ScalarConstant(dtype, *lo)})))};
  auto bound = [&](double v) {
    return relax::MakePrimValue(dtype.is_floating_point() ? PrimExpr(tir::MakeFloatImm(dtype, v))
                                                          : PrimExpr(tir::MakeIntImm(dtype, int64_t(v))));
  };
  return {Value(Expr(ctx.Op("relax.clip", {x, bound(*lo), bound(*hi)})))};
}

std::vector<Operand> ConvertWhere(NodeContext& ctx) {
  const KnownInts* c = ctx.Known(0);
  const KnownInts* x = ctx.Known(1);
  const KnownInts* y = ctx.Known(2);
  if (c && x && y) {
    KnownInts out;
    out.dtype = x->dtype;
    out.shape = BroadcastKnownShape(BroadcastKnownShape(c->shape, x->shape, ctx), y->shape, ctx);
    for (int64_t i = 0, n = Count(out.shape); i < n; ++i) {
      const int64_t* cond = tir::AsConstInt(BroadcastElement(*c, out.shape, i));
      if (!cond) ctx.Fail("the condition depends on the input's shape");
      out.values.push_back(*cond ? BroadcastElement(*x, out.shape, i) : BroadcastElement(*y, out.shape, i));
    }
    return {Value(std::move(out))};
  }
  return {Value(Expr(ctx.Op("relax.where", {ctx.Expr(0), ctx.Expr(1), ctx.Expr(2)})))};
}

// Cast and CastLike: to `dtype`; known integers stay known.
std::vector<Operand> CastTo(NodeContext& ctx, DataType dtype) {
  if (const KnownInts* k = ctx.Known(0); k && (dtype.is_integer() || dtype.is_bool())) {
    KnownInts out = *k;
    out.dtype = dtype;
    if (dtype.is_bool()) {
      for (auto& v : out.values) {
        const int64_t* c = tir::AsConstInt(v);
        if (!c) ctx.Fail("casting a symbolic dim to bool");
        v = tir::MakeIntImm(DataType::Bool(), *c != 0);
      }
    }
    return {Value(std::move(out))};
  }
  if (ctx.DType(0) == dtype) return {ctx.Input(0)};
  return {Value(Expr(ctx.Op("relax.astype", {ctx.Expr(0)}, {{"dtype", relax::DTypeAttr(dtype)}})))};
}

std::vector<Operand> ConvertCast(NodeContext& ctx) {
  int64_t to = ctx.AttrInt("to", 0);
  DataType dtype = DataTypeOf(static_cast<int32_t>(to));
  if (dtype.is_void()) ctx.Fail("casting to " + ONNXTypeName(static_cast<int32_t>(to)) + " is not supported");
  return CastTo(ctx, dtype);
}

// CastLike (opset 15): to the element type of the second input.
std::vector<Operand> ConvertCastLike(NodeContext& ctx) { return CastTo(ctx, ctx.DType(1)); }

// IsInf: R.isinf, narrowed to one sign by detect_positive / detect_negative.
std::vector<Operand> ConvertIsInf(NodeContext& ctx) {
  Expr x = ctx.Expr(0);
  bool pos = ctx.AttrInt("detect_positive", 1) != 0;
  bool neg = ctx.AttrInt("detect_negative", 1) != 0;
  if (!pos && !neg) {
    return {Value(Expr(ctx.Op("relax.zeros_like", {x}, {{"dtype", relax::DTypeAttr(DataType::Bool())}})))};
  }
  Expr inf = ctx.Op("relax.isinf", {x});
  if (pos && neg) return {Value(inf)};
  Expr sign = ctx.Op(pos ? "relax.greater" : "relax.less", {x, ScalarConstant(ctx.DType(0), 0)});
  return {Value(Expr(ctx.Op("relax.logical_and", {inf, sign})))};
}

// Shrink: x + bias below -lambd, x - bias above lambd, 0 between (any numeric dtype).
std::vector<Operand> ConvertShrink(NodeContext& ctx) {
  Expr x = ctx.Expr(0);
  DataType dtype = ctx.DType(0);
  double lambd = ctx.AttrFloat("lambd", 0.5f), bias = ctx.AttrFloat("bias", 0.0f);
  auto c = [&](double v) { return Expr(ScalarConstant(dtype, v)); };
  Expr high = ctx.Op("relax.where", {ctx.Op("relax.greater", {x, c(lambd)}), ctx.Op("relax.subtract", {x, c(bias)}), c(0)});
  return {Value(Expr(ctx.Op("relax.where", {ctx.Op("relax.less", {x, c(-lambd)}), ctx.Op("relax.add", {x, c(bias)}), high})))};
}

std::vector<Operand> ConvertIdentity(NodeContext& ctx) { return {ctx.Input(0)}; }

// Inference: the output is the input; a requested mask is all true.
std::vector<Operand> ConvertDropout(NodeContext& ctx) {
  if (ctx.node().output_size() > 1 && !ctx.node().output(1).empty()) {
    ctx.Fail("the mask output is not supported (export the model for inference)");
  }
  if (ctx.HasInput(2)) {
    std::optional<double> training = ctx.ConstScalar(2);
    if (!training || *training != 0) ctx.Fail("training mode is not supported");
  }
  return {ctx.Input(0)};
}

std::vector<Operand> ConvertReciprocal(NodeContext& ctx) {
  return {Value(Expr(ctx.Op("relax.divide", {ScalarConstant(ctx.DType(0), 1.0), ctx.Expr(0)})))};
}

// The activations ONNX defines by formula, written with the Relax ops of the formula.
struct Activation {
  NodeContext& ctx;
  Expr x;
  DataType dtype;
  Expr C(double v) const { return ScalarConstant(dtype, v); }
  Expr Op(const char* name, std::vector<Expr> args) const { return ctx.Op(name, std::move(args)); }
  // alpha * (exp(x) - 1) where x <= 0, x elsewhere.
  Expr Elu(double alpha) const {
    Expr neg = Op("relax.multiply", {C(alpha), Op("relax.subtract", {Op("relax.exp", {x}), C(1)})});
    return Op("relax.where", {Op("relax.greater", {x, C(0)}), x, neg});
  }
  Expr HardSigmoid(double alpha, double beta) const {
    Expr lin = Op("relax.add", {Op("relax.multiply", {x, C(alpha)}), C(beta)});
    auto bound = [&](double v) { return relax::MakePrimValue(tir::MakeFloatImm(dtype, v)); };
    return ctx.Op("relax.clip", {lin, bound(0), bound(1)});
  }
};

Converter Activate(std::function<Expr(const Activation&)> f) {
  return [f](NodeContext& ctx) -> std::vector<Operand> {
    Activation a{ctx, ctx.Expr(0), ctx.DType(0)};
    if (!a.dtype.is_floating_point()) ctx.Fail("the input must be a floating-point tensor");
    return {Value(f(a))};
  };
}

std::vector<Operand> ConvertLogical(NodeContext& ctx, const char* relax_name) {
  for (size_t i = 0; i < ctx.NumInputs(); ++i) {
    if (!ctx.DType(i).is_bool()) ctx.Fail("the operands must be bool tensors");
  }
  std::vector<Expr> args;
  for (size_t i = 0; i < ctx.NumInputs(); ++i) args.push_back(ctx.Expr(i));
  return {Value(Expr(ctx.Op(relax_name, args)))};
}

}  // namespace

void RegisterElementwise(ConverterTable& t) {
  t["Add"] = Binary({"relax.add", &tir::add, false});
  t["Sub"] = Binary({"relax.subtract", &tir::sub, false});
  t["Mul"] = Binary({"relax.multiply", &tir::mul, false});
  t["Div"] = Binary({"relax.divide", &TruncDiv, false});
  t["Pow"] = Binary({"relax.power", nullptr, false});
  t["Equal"] = Binary({"relax.equal", &tir::equal, true});
  t["Less"] = Binary({"relax.less", &tir::less, true});
  t["LessOrEqual"] = Binary({"relax.less_equal", &tir::less_equal, true});
  t["Greater"] = Binary({"relax.greater", &tir::greater, true});
  t["GreaterOrEqual"] = Binary({"relax.greater_equal", &tir::greater_equal, true});
  t["Max"] = [](NodeContext& ctx) { return ConvertVariadic(ctx, "relax.maximum", false); };
  t["Min"] = [](NodeContext& ctx) { return ConvertVariadic(ctx, "relax.minimum", false); };
  t["Sum"] = [](NodeContext& ctx) { return ConvertVariadic(ctx, "relax.add", false); };
  t["Mean"] = [](NodeContext& ctx) { return ConvertVariadic(ctx, "relax.add", true); };
  t["Relu"] = Unary("relax.nn.relu");
  t["Sigmoid"] = Unary("relax.sigmoid");
  t["Tanh"] = Unary("relax.tanh");
  t["Exp"] = Unary("relax.exp");
  t["Log"] = Unary("relax.log");
  t["Sqrt"] = Unary("relax.sqrt");
  t["Abs"] = Unary("relax.abs");
  t["Neg"] = Unary("relax.negative");
  t["Erf"] = Unary("relax.erf");
  t["Floor"] = Unary("relax.floor");
  t["Ceil"] = Unary("relax.ceil");
  t["Round"] = Unary("relax.round");
  t["Sign"] = Unary("relax.sign");
  for (const char* name : {"Sin", "Cos", "Tan", "Sinh", "Cosh", "Asin", "Acos", "Atan", "Asinh", "Acosh", "Atanh"}) {
    std::string lower = name;
    lower[0] = static_cast<char>(std::tolower(lower[0]));
    t[name] = Unary(("relax." + lower).c_str());
  }
  t["Reciprocal"] = ConvertReciprocal;
  t["Mod"] = [](NodeContext& ctx) {
    // fmod=0 is Python's %, the divisor's sign; fmod=1 C's fmod, the dividend's sign.
    bool fmod = ctx.AttrInt("fmod", 0) != 0;
    if (!fmod && ctx.DType(0).is_floating_point()) ctx.Fail("fmod=0 on floating-point inputs is not allowed by ONNX");
    return ConvertBinary(ctx, {fmod ? "relax.mod" : "relax.floor_mod", nullptr, false});
  };
  t["And"] = [](NodeContext& ctx) { return ConvertLogical(ctx, "relax.logical_and"); };
  t["Or"] = [](NodeContext& ctx) { return ConvertLogical(ctx, "relax.logical_or"); };
  t["Xor"] = [](NodeContext& ctx) { return ConvertLogical(ctx, "relax.logical_xor"); };
  t["Not"] = [](NodeContext& ctx) { return ConvertLogical(ctx, "relax.logical_not"); };
  t["LeakyRelu"] = [](NodeContext& ctx) -> std::vector<Operand> {
    return {Value(Expr(ctx.Op("relax.nn.leakyrelu", {ctx.Expr(0)}, {{"alpha", ir::MakeFloat(ctx.AttrFloat("alpha", 0.01f))}})))};
  };
  t["Softplus"] = [](NodeContext& ctx) -> std::vector<Operand> {
    return {Value(Expr(ctx.Op("relax.nn.softplus", {ctx.Expr(0)})))};
  };
  t["Gelu"] = [](NodeContext& ctx) -> std::vector<Operand> {
    if (ctx.AttrString("approximate", "none") != "none") ctx.Fail("approximate='tanh' is not supported");
    return {Value(Expr(ctx.Op("relax.nn.gelu", {ctx.Expr(0)})))};
  };
  t["Elu"] = Activate([](const Activation& a) { return a.Elu(a.ctx.AttrFloat("alpha", 1.0f)); });
  t["Selu"] = Activate([](const Activation& a) {
    double alpha = a.ctx.AttrFloat("alpha", 1.67326319217681884765625f);
    double gamma = a.ctx.AttrFloat("gamma", 1.05070102214813232421875f);
    return a.Op("relax.multiply", {a.C(gamma), a.Elu(alpha)});
  });
  t["HardSigmoid"] = Activate([](const Activation& a) {
    return a.HardSigmoid(a.ctx.AttrFloat("alpha", 0.2f), a.ctx.AttrFloat("beta", 0.5f));
  });
  t["HardSwish"] = Activate([](const Activation& a) { return a.Op("relax.multiply", {a.x, a.HardSigmoid(1.0 / 6, 0.5)}); });
  t["Softsign"] = Activate([](const Activation& a) {
    return a.Op("relax.divide", {a.x, a.Op("relax.add", {a.C(1), a.Op("relax.abs", {a.x})})});
  });
  t["ThresholdedRelu"] = Activate([](const Activation& a) {
    Expr keep = a.Op("relax.greater", {a.x, a.C(a.ctx.AttrFloat("alpha", 1.0f))});
    return a.Op("relax.where", {keep, a.x, a.C(0)});
  });
  t["PRelu"] = Activate([](const Activation& a) {
    Expr scaled = a.Op("relax.multiply", {a.x, a.ctx.Expr(1)});
    return a.Op("relax.where", {a.Op("relax.less", {a.x, a.C(0)}), scaled, a.x});
  });
  t["Clip"] = ConvertClip;
  t["Where"] = ConvertWhere;
  t["Cast"] = ConvertCast;
  t["CastLike"] = ConvertCastLike;
  t["IsNaN"] = Unary("relax.isnan");
  t["IsInf"] = ConvertIsInf;
  t["Shrink"] = ConvertShrink;
  t["Mish"] = Activate([](const Activation& a) {
    return a.Op("relax.multiply", {a.x, a.Op("relax.tanh", {a.Op("relax.nn.softplus", {a.x})})});
  });
  t["Celu"] = Activate([](const Activation& a) {
    double alpha = a.ctx.AttrFloat("alpha", 1.0f);
    Expr scaled = a.Op("relax.divide", {a.x, a.C(alpha)});
    Expr neg = a.Op("relax.multiply", {a.C(alpha), a.Op("relax.subtract", {a.Op("relax.exp", {scaled}), a.C(1)})});
    return a.Op("relax.where", {a.Op("relax.greater", {a.x, a.C(0)}), a.x, neg});
  });
  t["Identity"] = ConvertIdentity;
  t["Dropout"] = ConvertDropout;
}

}  // namespace wb::frontend::onnx
