// Shape and layout ONNX ops: Shape, Size, Reshape, Flatten, Transpose, Squeeze, Unsqueeze,
// Concat, Gather, Slice, Split, Expand, ConstantOfShape, Constant, Range, Trilu, DepthToSpace,
// SpaceToDepth, OneHot, EyeLike and NonZero (its count a symbolic dim); a Slice by values computed
// when it runs onto relax.dynamic_strided_slice. Values known at
// import time (integer constants and shapes, elements possibly symbolic) are rearranged here, so
// the shape arithmetic that exporters emit folds into the static or symbolic shape that a
// Reshape or Expand finally takes.
#include <algorithm>
#include <cmath>

#include "frontend/onnx/importer.h"
#include "tir/op.h"

namespace wb::frontend::onnx {

namespace {

using relax::Expr;

PrimExpr I64(int64_t v) { return tir::MakeIntImm(DataType::Int(64), v); }

int64_t Count(const std::vector<int64_t>& shape) {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  return n;
}

KnownInts Vector(std::vector<PrimExpr> values) {
  KnownInts k;
  k.dtype = DataType::Int(64);
  k.shape = {static_cast<int64_t>(values.size())};
  k.values = std::move(values);
  return k;
}

// Axes from the attribute (before `input_opset`) or the optional input `index`.
std::optional<std::vector<int64_t>> AxesOf(NodeContext& ctx, int64_t input_opset, size_t index) {
  if (ctx.opset() < input_opset) return ctx.AttrIntsIfAny("axes");
  if (!ctx.HasInput(index)) return std::nullopt;
  return ctx.ConstInts(index, "axes");
}

std::vector<Operand> ConvertShape(NodeContext& ctx) {
  std::vector<PrimExpr> shape = ctx.Shape(0);
  int64_t rank = static_cast<int64_t>(shape.size());
  auto clamp = [&](int64_t v) { return std::clamp<int64_t>(v < 0 ? v + rank : v, 0, rank); };
  int64_t start = clamp(ctx.AttrInt("start", 0));
  int64_t end = clamp(ctx.AttrInt("end", rank));
  std::vector<PrimExpr> dims;
  for (int64_t k = start; k < end; ++k) dims.push_back(shape[k]);
  return {Value(Vector(std::move(dims)))};
}

std::vector<Operand> ConvertSize(NodeContext& ctx) {
  PrimExpr n = I64(1);
  for (const auto& d : ctx.Shape(0)) n = tir::mul(n, d);
  KnownInts k{DataType::Int(64), {}, {n}};
  return {Value(std::move(k))};
}

// A dim as a constant times symbolic vars (`n * 3`: 3 and [n]); false when it is no product.
struct Monomial {
  int64_t constant = 1;
  std::vector<const tir::VarNode*> vars;
};
bool Factor(const PrimExpr& e, Monomial* m) {
  if (const int64_t* c = tir::AsConstInt(e)) {
    m->constant *= *c;
    return true;
  }
  if (auto* v = e.as<tir::VarNode>()) {
    m->vars.push_back(v);
    return true;
  }
  if (auto* mul = e.as<tir::MulNode>()) return Factor(mul->a, m) && Factor(mul->b, m);
  return false;
}

// The dim a -1 stands for: the input's element count over the other target dims, when both are
// products that cancel (n * 12 over n * 3 is 4); null otherwise (the reshape then solves it).
PrimExpr SolveMinusOne(const std::vector<PrimExpr>& in, const std::vector<PrimExpr>& target, size_t hole) {
  Monomial total, known;
  for (const auto& d : in) {
    if (!Factor(d, &total)) return {};
  }
  for (size_t i = 0; i < target.size(); ++i) {
    if (i != hole && !Factor(target[i], &known)) return {};
  }
  if (known.constant == 0 || total.constant % known.constant != 0) return {};
  for (const auto* v : known.vars) {
    auto it = std::find(total.vars.begin(), total.vars.end(), v);
    if (it == total.vars.end()) return {};
    total.vars.erase(it);
  }
  // Vars first, the constant last: `n * 4`, as exporters' shapes and TVM's printer write it.
  PrimExpr out;
  for (const auto* v : total.vars) out = out.defined() ? tir::mul(out, GetRef(v)) : PrimExpr(GetRef(v));
  int64_t constant = total.constant / known.constant;
  if (!out.defined()) return I64(constant);
  return constant == 1 ? out : tir::mul(out, I64(constant));
}

// The target shape of Reshape: 0 copies the input's dim (unless allowzero), -1 is solved where
// the element counts cancel and otherwise stays for the reshape to infer.
std::vector<PrimExpr> ReshapeTarget(NodeContext& ctx, const std::vector<PrimExpr>& in) {
  const KnownInts* k = ctx.Known(1);
  if (!k) ctx.Fail("the shape (input '" + ctx.node().input(1) + "') must be known at import time");
  bool allowzero = ctx.AttrInt("allowzero", 0) != 0;
  std::vector<PrimExpr> out = k->values;
  for (size_t i = 0; i < out.size(); ++i) {
    const int64_t* c = tir::AsConstInt(out[i]);
    if (c && *c == 0 && !allowzero) {
      if (i >= in.size()) ctx.Fail("shape entry " + std::to_string(i) + " is 0 but the input has rank " + std::to_string(in.size()));
      out[i] = in[i];
    }
  }
  for (size_t i = 0; i < out.size(); ++i) {
    const int64_t* c = tir::AsConstInt(out[i]);
    if (c && *c == -1) {
      if (PrimExpr solved = SolveMinusOne(in, out, i); solved.defined()) out[i] = solved;
      break;
    }
  }
  return out;
}

std::vector<Operand> ConvertReshape(NodeContext& ctx) {
  std::vector<PrimExpr> in = ctx.Shape(0);
  std::vector<PrimExpr> target = ReshapeTarget(ctx, in);
  if (const KnownInts* k = ctx.Known(0)) {
    // A known value reshaped: the elements stay, the shape is solved here.
    std::vector<int64_t> shape;
    int64_t infer = -1, known = 1;
    for (size_t i = 0; i < target.size(); ++i) {
      const int64_t* c = tir::AsConstInt(target[i]);
      if (!c) ctx.Fail("reshaping a known value to a symbolic shape");
      if (*c == -1) infer = static_cast<int64_t>(i);
      shape.push_back(*c);
      if (*c != -1) known *= *c;
    }
    int64_t total = static_cast<int64_t>(k->values.size());
    if (infer >= 0 && known != 0) shape[infer] = total / known;
    if (Count(shape) != total) ctx.Fail("cannot reshape " + std::to_string(total) + " elements to the given shape");
    KnownInts out = *k;
    out.shape = shape;
    return {Value(std::move(out))};
  }
  return {Value(Expr(ctx.Op("relax.reshape", {ctx.Expr(0), relax::MakeShapeExpr(target)})))};
}

std::vector<Operand> ConvertFlatten(NodeContext& ctx) {
  std::vector<PrimExpr> shape = ctx.Shape(0);
  int64_t rank = static_cast<int64_t>(shape.size());
  int64_t axis = ctx.AttrInt("axis", 1);
  if (axis < 0) axis += rank;
  if (axis < 0 || axis > rank) ctx.Fail("axis " + std::to_string(axis) + " is out of range for rank " + std::to_string(rank));
  PrimExpr outer = I64(1), inner = I64(1);
  for (int64_t k = 0; k < rank; ++k) {
    if (k < axis) {
      outer = tir::mul(outer, shape[k]);
    } else {
      inner = tir::mul(inner, shape[k]);
    }
  }
  return {Value(Expr(ctx.Op("relax.reshape", {ctx.Expr(0), relax::MakeShapeExpr({outer, inner})})))};
}

std::vector<Operand> ConvertTranspose(NodeContext& ctx) {
  int64_t rank = ctx.Rank(0);
  std::vector<int64_t> perm;
  for (int64_t k = rank - 1; k >= 0; --k) perm.push_back(k);
  perm = ctx.AttrInts("perm", perm);
  return {Value(Expr(ctx.Op("relax.permute_dims", {ctx.Expr(0)}, {{"axes", relax::IntArray(perm)}})))};
}

std::vector<Operand> ConvertUnsqueeze(NodeContext& ctx) {
  std::optional<std::vector<int64_t>> axes = AxesOf(ctx, 13, 1);
  if (!axes) ctx.Fail("axes are required");
  int64_t out_rank = ctx.Rank(0) + static_cast<int64_t>(axes->size());
  for (auto& a : *axes) a = NormalizeAxis(a, out_rank, ctx);
  std::sort(axes->begin(), axes->end());
  if (const KnownInts* k = ctx.Known(0)) {
    KnownInts out = *k;
    for (int64_t a : *axes) out.shape.insert(out.shape.begin() + a, 1);
    return {Value(std::move(out))};
  }
  return {Value(Expr(ctx.Op("relax.expand_dims", {ctx.Expr(0)}, {{"axis", relax::IntArray(*axes)}})))};
}

std::vector<Operand> ConvertSqueeze(NodeContext& ctx) {
  std::optional<std::vector<int64_t>> axes = AxesOf(ctx, 13, 1);
  int64_t rank = ctx.Rank(0);
  if (axes) {
    for (auto& a : *axes) a = NormalizeAxis(a, rank, ctx);
  }
  if (const KnownInts* k = ctx.Known(0)) {
    KnownInts out = *k;
    out.shape.clear();
    for (int64_t d = 0; d < rank; ++d) {
      bool drop = axes ? std::count(axes->begin(), axes->end(), d) > 0 : k->shape[d] == 1;
      if (!drop) out.shape.push_back(k->shape[d]);
    }
    return {Value(std::move(out))};
  }
  ir::AttrMap attrs;
  if (axes) attrs["axis"] = relax::IntArray(*axes);
  return {Value(Expr(ctx.Op("relax.squeeze", {ctx.Expr(0)}, attrs)))};
}

// Concatenation of known values along `axis`.
KnownInts ConcatKnown(const std::vector<const KnownInts*>& parts, int64_t axis) {
  KnownInts out = *parts[0];
  int64_t outer = 1;
  for (int64_t d = 0; d < axis; ++d) outer *= out.shape[d];
  out.shape[axis] = 0;
  out.values.clear();
  for (const auto* p : parts) out.shape[axis] += p->shape[axis];
  for (int64_t o = 0; o < outer; ++o) {
    for (const auto* p : parts) {
      int64_t block = static_cast<int64_t>(p->values.size()) / std::max<int64_t>(outer, 1);
      for (int64_t i = 0; i < block; ++i) out.values.push_back(p->values[o * block + i]);
    }
  }
  return out;
}

std::vector<Operand> ConvertConcat(NodeContext& ctx) {
  size_t n = ctx.NumInputs();
  int64_t rank = ctx.Rank(0);
  int64_t axis = NormalizeAxis(ctx.AttrInt("axis", 0), rank, ctx);
  for (size_t i = 1; i < n; ++i) {
    if (ctx.Rank(i) != rank) {
      ctx.Fail("input " + std::to_string(i) + " has rank " + std::to_string(ctx.Rank(i)) + ", input 0 rank " +
               std::to_string(rank) + ": the inputs of a Concat have one rank");
    }
  }
  std::vector<const KnownInts*> known;
  for (size_t i = 0; i < n; ++i) {
    if (const KnownInts* k = ctx.Known(i)) known.push_back(k);
  }
  if (known.size() == n) {
    for (size_t i = 1; i < n; ++i) {
      for (int64_t d = 0; d < rank; ++d) {
        if (d != axis && known[i]->shape[d] != known[0]->shape[d]) {
          ctx.Fail("input " + std::to_string(i) + " differs from input 0 in dim " + std::to_string(d) +
                   " (" + std::to_string(known[i]->shape[d]) + " vs " + std::to_string(known[0]->shape[d]) +
                   "), which is not the concatenated axis");
        }
      }
    }
    return {Value(ConcatKnown(known, axis))};
  }
  std::vector<Expr> parts;
  for (size_t i = 0; i < n; ++i) parts.push_back(ctx.Expr(i));
  return {Value(Expr(ctx.Op("relax.concat", {relax::MakeTuple(parts)}, {{"axis", ir::MakeInt(axis)}})))};
}

std::vector<Operand> ConvertGather(NodeContext& ctx) {
  int64_t rank = ctx.Rank(0);
  int64_t axis = NormalizeAxis(ctx.AttrInt("axis", 0), rank, ctx);
  std::vector<PrimExpr> shape = ctx.Shape(0);
  const KnownInts* data = ctx.Known(0);
  const KnownInts* indices = ctx.Known(1);
  const int64_t* extent = tir::AsConstInt(shape[axis]);
  if (data && indices) {
    std::vector<int64_t> idx = indices->Constants("the indices");
    KnownInts out;
    out.dtype = data->dtype;
    int64_t outer = 1, inner = 1;
    for (int64_t d = 0; d < axis; ++d) outer *= data->shape[d];
    for (int64_t d = axis + 1; d < rank; ++d) inner *= data->shape[d];
    out.shape.assign(data->shape.begin(), data->shape.begin() + axis);
    out.shape.insert(out.shape.end(), indices->shape.begin(), indices->shape.end());
    out.shape.insert(out.shape.end(), data->shape.begin() + axis + 1, data->shape.end());
    for (int64_t o = 0; o < outer; ++o) {
      for (int64_t i : idx) {
        if (i < -*extent || i >= *extent) ctx.Fail("index " + std::to_string(i) + " is out of range for dim " + std::to_string(*extent));
        if (i < 0) i += *extent;
        for (int64_t r = 0; r < inner; ++r) out.values.push_back(data->values[(o * *extent + i) * inner + r]);
      }
    }
    return {Value(std::move(out))};
  }
  Expr idx = ctx.Expr(1);
  // Indices known only at run time may be negative too: take wraps them (mode "wrap").
  const char* mode = indices ? "fast" : "wrap";
  if (indices && extent) {
    // Constant negative indices count from the end: make them positive for take.
    std::vector<int64_t> values = indices->Constants("the indices");
    bool negative = false;
    for (auto& v : values) {
      if (v < 0) {
        v += *extent;
        negative = true;
      }
    }
    if (negative) {
      idx = MakeConstantOf(indices->dtype, indices->shape, std::vector<double>(values.begin(), values.end()));
    }
  }
  return {Value(Expr(ctx.Op("relax.take", {ctx.Expr(0), idx},
                            {{"axis", ir::MakeInt(axis)}, {"mode", ir::MakeString(mode)}})))};
}

// Slice whose starts, ends or steps are computed when it runs: relax.dynamic_strided_slice over
// begin / end / strides of one value per axis (the axes not sliced take 0, 2^62 as "to the end",
// which the op clamps, and 1); axes must be known. The result's dims are the input's where an
// axis is not sliced and new symbolic dims (slice_len, ...) bound by a match_cast where it is.
std::vector<Operand> ConvertDynamicSlice(NodeContext& ctx) {
  int64_t rank = ctx.Rank(0);
  std::vector<PrimExpr> counts = ctx.Shape(1);
  const int64_t* n = counts.size() == 1 ? tir::AsConstInt(counts[0]) : nullptr;
  if (!n) ctx.Fail("starts must be 1-D with a static length");
  std::vector<int64_t> axes;
  if (ctx.HasInput(3)) {
    axes = ctx.ConstInts(3, "axes");
  } else {
    for (int64_t k = 0; k < *n; ++k) axes.push_back(k);
  }
  if (static_cast<int64_t>(axes.size()) != *n) ctx.Fail("starts, ends, axes and steps must have the same length");
  for (int64_t& a : axes) a = NormalizeAxis(a, rank, ctx);
  DataType i64 = DataType::Int(64);
  auto as_i64 = [&](size_t i) {
    Expr e = ctx.Expr(i);
    return ctx.DType(i) == i64 ? e : Expr(ctx.Op("relax.astype", {e}, {{"dtype", relax::DTypeAttr(i64)}}));
  };
  bool every_axis = static_cast<int64_t>(axes.size()) == rank;
  for (int64_t d = 0; every_axis && d < rank; ++d) every_axis = axes[d] == d;
  // One value per axis of the data: the sliced axes' from input i (known values folded in, the
  // default `fill` without it), the others' `whole`.
  auto full = [&](size_t i, double fill, double whole) {
    std::optional<std::vector<int64_t>> known;
    if (!ctx.HasInput(i)) {
      known = std::vector<int64_t>(axes.size(), static_cast<int64_t>(fill));
    } else if (const KnownInts* k = ctx.Known(i); k && k->AllConstant()) {
      known = k->Constants("input " + std::to_string(i));
    }
    Expr given = known ? Expr() : as_i64(i);
    if (!known && every_axis) return given;
    std::vector<Expr> parts;
    std::vector<double> run;  // constants not yet emitted
    auto flush = [&] {
      if (!run.empty()) parts.push_back(MakeConstantOf(i64, {static_cast<int64_t>(run.size())}, run));
      run.clear();
    };
    for (int64_t d = 0; d < rank; ++d) {
      auto at = std::find(axes.begin(), axes.end(), d);
      if (at == axes.end()) {
        run.push_back(whole);
      } else if (known) {
        run.push_back(static_cast<double>((*known)[at - axes.begin()]));
      } else {
        flush();
        Expr index = MakeConstantOf(i64, {1}, {static_cast<double>(at - axes.begin())});
        parts.push_back(ctx.Op("relax.take", {given, index}, {{"axis", ir::MakeInt(0)}}));
      }
    }
    flush();
    if (parts.size() == 1) return parts[0];
    return Expr(ctx.Op("relax.concat", {relax::MakeTuple(parts)}, {{"axis", ir::MakeInt(0)}}));
  };
  Expr sliced = ctx.Op("relax.dynamic_strided_slice", {ctx.Expr(0), full(1, 0, 0),
                                                        full(2, 0, static_cast<double>(int64_t(1) << 62)), full(4, 1, 1)});
  std::vector<PrimExpr> dims = ctx.Shape(0);
  for (int64_t a : axes) dims[a] = ctx.FreshVar("slice_len");
  return {Value(Expr(ctx.MatchCast(sliced, relax::MakeTensorType(dims, ctx.DType(0)))))};
}

std::vector<Operand> ConvertSlice(NodeContext& ctx) {
  if (!ctx.Known(1) || !ctx.Known(2) || (ctx.HasInput(4) && !ctx.Known(4))) return ConvertDynamicSlice(ctx);
  std::vector<int64_t> starts = ctx.ConstInts(1, "starts");
  std::vector<int64_t> ends = ctx.ConstInts(2, "ends");
  int64_t rank = ctx.Rank(0);
  std::vector<int64_t> axes;
  if (ctx.HasInput(3)) {
    axes = ctx.ConstInts(3, "axes");
  } else {
    for (size_t k = 0; k < starts.size(); ++k) axes.push_back(static_cast<int64_t>(k));
  }
  std::vector<int64_t> steps(starts.size(), 1);
  if (ctx.HasInput(4)) steps = ctx.ConstInts(4, "steps");
  if (ends.size() != starts.size() || axes.size() != starts.size() || steps.size() != starts.size()) {
    ctx.Fail("starts, ends, axes and steps must have the same length");
  }
  std::vector<PrimExpr> shape = ctx.Shape(0);
  for (size_t k = 0; k < axes.size(); ++k) {
    axes[k] = NormalizeAxis(axes[k], rank, ctx);
    if (steps[k] == 0) ctx.Fail("a step is 0");
    // Ends past the dim (INT64_MAX is how exporters write "to the end") are clamped here where
    // the dim is static, so the slice's length is static too.
    if (const int64_t* extent = tir::AsConstInt(shape[axes[k]])) {
      auto clamp = [&](int64_t v) {
        if (v < 0) v += *extent;
        int64_t lo = steps[k] > 0 ? 0 : -1, hi = steps[k] > 0 ? *extent : *extent - 1;
        return std::clamp(v, lo, hi);
      };
      starts[k] = clamp(starts[k]);
      ends[k] = clamp(ends[k]);
    }
  }
  if (const KnownInts* k = ctx.Known(0); k && rank == 1) {
    KnownInts out = *k;
    out.values.clear();
    for (int64_t i = starts[0]; steps[0] > 0 ? i < ends[0] : i > ends[0]; i += steps[0]) {
      out.values.push_back(k->values[i]);
    }
    out.shape = {static_cast<int64_t>(out.values.size())};
    return {Value(std::move(out))};
  }
  return {Value(Expr(ctx.Op("relax.strided_slice",
                            {ctx.Expr(0), PrimTuple(axes), PrimTuple(starts), PrimTuple(ends), PrimTuple(steps)})))};
}

std::vector<Operand> ConvertSplit(NodeContext& ctx) {
  int64_t rank = ctx.Rank(0);
  int64_t axis = NormalizeAxis(ctx.AttrInt("axis", 0), rank, ctx);
  std::optional<std::vector<int64_t>> sizes;
  if (ctx.opset() < 13) {
    sizes = ctx.AttrIntsIfAny("split");
  } else if (ctx.HasInput(1)) {
    sizes = ctx.ConstInts(1, "split");
  }
  int64_t outputs = ctx.node().output_size();
  ObjectRef sections;
  if (sizes) {
    std::vector<int64_t> indices;
    int64_t at = 0;
    for (size_t k = 0; k + 1 < sizes->size(); ++k) indices.push_back(at += (*sizes)[k]);
    sections = relax::IntArray(indices);
  } else {
    sections = ir::MakeInt(ctx.AttrInt("num_outputs", outputs));
  }
  Expr parts = ctx.Op("relax.split", {ctx.Expr(0)}, {{"indices_or_sections", sections}, {"axis", ir::MakeInt(axis)}});
  std::vector<Operand> result;
  for (int64_t k = 0; k < outputs; ++k) result.push_back(Value(Expr(ctx.Emit(relax::MakeTupleGetItem(parts, k)))));
  return result;
}

std::vector<Operand> ConvertExpand(NodeContext& ctx) {
  const KnownInts* k = ctx.Known(1);
  if (!k) ctx.Fail("the shape (input '" + ctx.node().input(1) + "') must be known at import time");
  std::vector<PrimExpr> in = ctx.Shape(0);
  std::vector<PrimExpr> target = k->values;
  // Bidirectional broadcasting: a 1 in the target keeps the input's dim.
  size_t n = std::max(in.size(), target.size());
  std::vector<PrimExpr> out(n);
  for (size_t d = 0; d < n; ++d) {
    PrimExpr a = d < n - in.size() ? I64(1) : in[d - (n - in.size())];
    PrimExpr b = d < n - target.size() ? I64(1) : target[d - (n - target.size())];
    const int64_t* cb = tir::AsConstInt(b);
    out[d] = cb && *cb == 1 ? a : b;
  }
  return {Value(Expr(ctx.Op("relax.broadcast_to", {ctx.Expr(0), relax::MakeShapeExpr(out)})))};
}

// The `value` tensor attribute of Constant / ConstantOfShape.
relax::Constant TensorAttr(NodeContext& ctx, const char* name) {
  const ::onnx::AttributeProto* a = ctx.Attr(name);
  if (!a || !a->has_t()) return {};
  try {
    return ConstantOfTensor(a->t(), ctx.model_path());
  } catch (const ImportError& e) {
    ctx.Fail(std::string("attribute '") + name + "': " + e.what());
  }
}

std::vector<Operand> ConvertConstantOfShape(NodeContext& ctx) {
  relax::Constant value = TensorAttr(ctx, "value");
  DataType dtype = value.defined() ? value->dtype : DataType::Float(32);
  double fill = value.defined() ? ConstantValues(*value)[0] : 0.0;
  const KnownInts* k = ctx.Known(0);
  if (!k) ctx.Fail("the shape (input '" + ctx.node().input(0) + "') must be known at import time");
  if (k->AllConstant()) {
    std::vector<int64_t> shape = k->Constants("the shape");
    return {Value(Expr(MakeConstantOf(dtype, shape, std::vector<double>(Count(shape), fill))))};
  }
  return {Value(Expr(ctx.Op("relax.full", {relax::MakeShapeExpr(k->values), ScalarConstant(dtype, fill)},
                            {{"dtype", relax::DTypeAttr(dtype)}})))};
}

std::vector<Operand> ConvertConstant(NodeContext& ctx) {
  if (relax::Constant c = TensorAttr(ctx, "value"); c.defined()) return {Value(Expr(c))};
  if (const auto* a = ctx.Attr("value_float")) return {Value(Expr(ScalarConstant(DataType::Float(32), a->f())))};
  if (const auto* a = ctx.Attr("value_int")) return {Value(Expr(ScalarConstant(DataType::Int(64), static_cast<double>(a->i()))))};
  if (const auto* a = ctx.Attr("value_floats")) {
    std::vector<double> v(a->floats().begin(), a->floats().end());
    return {Value(Expr(MakeConstantOf(DataType::Float(32), {static_cast<int64_t>(v.size())}, v)))};
  }
  if (const auto* a = ctx.Attr("value_ints")) {
    std::vector<double> v;
    for (int64_t x : a->ints()) v.push_back(static_cast<double>(x));
    return {Value(Expr(MakeConstantOf(DataType::Int(64), {static_cast<int64_t>(v.size())}, v)))};
  }
  ctx.Fail("no supported value attribute (value, value_float(s), value_int(s))");
}

// Range: folded to a constant when start, limit and delta are; onto relax.arange when they are
// integers known at import time (a symbolic dim from Shape, say).
std::vector<Operand> ConvertRange(NodeContext& ctx) {
  DataType dtype = ctx.DType(0);
  std::optional<double> start = ctx.ConstScalar(0), limit = ctx.ConstScalar(1), delta = ctx.ConstScalar(2);
  if (!start || !limit || !delta) {
    std::vector<relax::Expr> bounds;
    for (size_t i = 0; i < 3; ++i) {
      const KnownInts* k = ctx.Known(i);
      if (!k || k->values.size() != 1) {
        ctx.Fail("start, limit and delta must be constants or integers known at import time (input '" +
                 ctx.node().input(static_cast<int>(i)) + "' is not)");
      }
      bounds.push_back(relax::MakePrimValue(tir::cast(DataType::Int(64), k->values[0])));
    }
    if (delta && *delta == 0) ctx.Fail("delta is 0");
    return {Value(Expr(ctx.Op("relax.arange", bounds, {{"dtype", relax::DTypeAttr(dtype)}})))};
  }
  if (*delta == 0) ctx.Fail("delta is 0");
  const double count = std::ceil((*limit - *start) / *delta);
  if (!std::isfinite(count) || count > double(kMaxFoldedElements)) {
    ctx.Fail("the range from " + FormatNumber(*start) + " to " + FormatNumber(*limit) + " by " + FormatNumber(*delta) +
             " has " + (std::isfinite(count) ? FormatNumber(count) : std::string("no finite number of")) +
             " elements, more than the " + std::to_string(kMaxFoldedElements) + " folded into a constant at import time");
  }
  int64_t n = std::max<int64_t>(0, static_cast<int64_t>(count));
  std::vector<double> values;
  for (int64_t i = 0; i < n; ++i) values.push_back(*start + static_cast<double>(i) * *delta);
  return {Value(Expr(MakeConstantOf(dtype, {n}, values)))};
}

std::vector<Operand> ConvertPad(NodeContext& ctx) {
  int64_t rank = ctx.Rank(0);
  std::vector<int64_t> pads = ctx.ConstInts(1, "pads");
  std::vector<int64_t> axes;
  if (ctx.HasInput(3)) {
    axes = ctx.ConstInts(3, "axes");
    for (auto& a : axes) a = NormalizeAxis(a, rank, ctx);
  } else {
    for (int64_t k = 0; k < rank; ++k) axes.push_back(k);
  }
  if (pads.size() != 2 * axes.size()) ctx.Fail("pads must have 2 values per padded axis");
  // ONNX lists all begins, then all ends; relax.nn.pad interleaves (before, after) per axis.
  std::vector<int64_t> width(2 * rank, 0);
  for (size_t k = 0; k < axes.size(); ++k) {
    width[2 * axes[k]] = pads[k];
    width[2 * axes[k] + 1] = pads[k + axes.size()];
  }
  for (int64_t w : width) {
    if (w < 0) ctx.Fail("negative pads (cropping) are not supported");
  }
  double value = 0;
  if (ctx.HasInput(2)) {
    std::optional<double> v = ctx.ConstScalar(2);
    if (!v) ctx.Fail("constant_value must be a constant");
    value = *v;
  }
  std::string mode = ctx.AttrString("mode", "constant");
  if (mode != "constant" && mode != "edge" && mode != "reflect") ctx.Fail("mode '" + mode + "' is not supported");
  return {Value(Expr(ctx.Op("relax.nn.pad", {ctx.Expr(0)},
                            {{"pad_width", relax::IntArray(width)},
                             {"pad_value", ir::MakeFloat(value)},
                             {"pad_mode", ir::MakeString(mode)}})))};
}

std::vector<Operand> ConvertTile(NodeContext& ctx) {
  std::vector<int64_t> repeats = ctx.ConstInts(1, "repeats");
  if (static_cast<int64_t>(repeats.size()) != ctx.Rank(0)) ctx.Fail("repeats must have one value per axis");
  return {Value(Expr(ctx.Op("relax.tile", {ctx.Expr(0)}, {{"repeats", relax::IntArray(repeats)}})))};
}

std::vector<Operand> ConvertGatherElements(NodeContext& ctx) {
  int64_t axis = NormalizeAxis(ctx.AttrInt("axis", 0), ctx.Rank(0), ctx);
  return {Value(Expr(ctx.Op("relax.gather_elements", {ctx.Expr(0), ctx.Expr(1)}, {{"axis", ir::MakeInt(axis)}})))};
}

std::vector<Operand> ConvertGatherND(NodeContext& ctx) {
  if (ctx.AttrInt("batch_dims", 0) != 0) ctx.Fail("batch_dims other than 0 are not supported");
  return {Value(Expr(ctx.Op("relax.gather_nd", {ctx.Expr(0), ctx.Expr(1)})))};
}

// ONNX's scatter reduction (none, add, mul, max, min) as the op's (update, ...).
ir::ObjectRef ScatterReduction(NodeContext& ctx) {
  std::string r = ctx.AttrString("reduction", "none");
  if (r != "none" && r != "add" && r != "mul" && r != "max" && r != "min") {
    ctx.Fail("reduction '" + r + "' is not supported (none, add, mul, max, min)");
  }
  return ir::MakeString(r == "none" ? "update" : r);
}

std::vector<Operand> ConvertScatterElements(NodeContext& ctx) {
  int64_t axis = NormalizeAxis(ctx.AttrInt("axis", 0), ctx.Rank(0), ctx);
  return {Value(Expr(ctx.Op("relax.scatter_elements", {ctx.Expr(0), ctx.Expr(1), ctx.Expr(2)},
                            {{"axis", ir::MakeInt(axis)}, {"reduction", ScatterReduction(ctx)}})))};
}

std::vector<Operand> ConvertScatterND(NodeContext& ctx) {
  return {Value(Expr(ctx.Op("relax.scatter_nd", {ctx.Expr(0), ctx.Expr(1), ctx.Expr(2)},
                            {{"reduction", ScatterReduction(ctx)}})))};
}

// Trilu (opset 14) onto relax.triu / relax.tril; the diagonal offset k must be known at import.
std::vector<Operand> ConvertTrilu(NodeContext& ctx) {
  if (ctx.Rank(0) < 2) ctx.Fail("the input must have at least two axes, got rank " + std::to_string(ctx.Rank(0)));
  int64_t k = 0;
  if (ctx.HasInput(1)) {
    std::vector<int64_t> ks = ctx.ConstInts(1, "k");
    if (ks.size() != 1) ctx.Fail("k must be a scalar");
    k = ks[0];
  }
  bool upper = ctx.AttrInt("upper", 1) != 0;
  return {Value(Expr(ctx.Op(upper ? "relax.triu" : "relax.tril", {ctx.Expr(0), relax::MakePrimValue(I64(k))})))};
}

// The static dim `axis` of input 0, for the layout ops that split or merge it.
int64_t StaticDim(NodeContext& ctx, int64_t axis, const char* what) {
  const int64_t* d = tir::AsConstInt(ctx.Shape(0)[axis]);
  if (!d) ctx.Fail(std::string("the ") + what + " dim must be static");
  return *d;
}

// DepthToSpace onto reshape + permute_dims + reshape: the channels split into a (b, b, C/b²)
// block (DCR, the default) or (C/b², b, b) (CRD), the block moved beside H and W.
std::vector<Operand> ConvertDepthToSpace(NodeContext& ctx) {
  if (ctx.Rank(0) != 4) ctx.Fail("the input must be 4-D (NCHW), got rank " + std::to_string(ctx.Rank(0)));
  int64_t b = ctx.AttrInt("blocksize", 0);
  if (b <= 0) ctx.Fail("blocksize must be positive, got " + std::to_string(b));
  std::string mode = ctx.AttrString("mode", "DCR");
  if (mode != "DCR" && mode != "CRD") ctx.Fail("mode '" + mode + "' is not supported (DCR, CRD)");
  std::vector<PrimExpr> in = ctx.Shape(0);
  int64_t c = StaticDim(ctx, 1, "channel");
  if (c % (b * b) != 0) ctx.Fail(std::to_string(c) + " channels are not divisible by blocksize² " + std::to_string(b * b));
  PrimExpr n = in[0], h = in[2], w = in[3], cb = I64(c / (b * b)), bb = I64(b);
  bool dcr = mode == "DCR";
  std::vector<PrimExpr> split = dcr ? std::vector<PrimExpr>{n, bb, bb, cb, h, w} : std::vector<PrimExpr>{n, cb, bb, bb, h, w};
  std::vector<int64_t> perm = dcr ? std::vector<int64_t>{0, 3, 4, 1, 5, 2} : std::vector<int64_t>{0, 1, 4, 2, 5, 3};
  Expr x = ctx.Op("relax.reshape", {ctx.Expr(0), relax::MakeShapeExpr(split)});
  x = ctx.Op("relax.permute_dims", {x}, {{"axes", relax::IntArray(perm)}});
  return {Value(Expr(ctx.Op("relax.reshape", {x, relax::MakeShapeExpr({n, cb, tir::mul(h, bb), tir::mul(w, bb)})})))};
}

// SpaceToDepth: each b x b block of H and W moved into the channels, block offsets first.
std::vector<Operand> ConvertSpaceToDepth(NodeContext& ctx) {
  if (ctx.Rank(0) != 4) ctx.Fail("the input must be 4-D (NCHW), got rank " + std::to_string(ctx.Rank(0)));
  int64_t b = ctx.AttrInt("blocksize", 0);
  if (b <= 0) ctx.Fail("blocksize must be positive, got " + std::to_string(b));
  std::vector<PrimExpr> in = ctx.Shape(0);
  int64_t h = StaticDim(ctx, 2, "height"), w = StaticDim(ctx, 3, "width");
  if (h % b != 0 || w % b != 0) {
    ctx.Fail("the spatial dims " + std::to_string(h) + "x" + std::to_string(w) + " are not divisible by blocksize " +
             std::to_string(b));
  }
  PrimExpr n = in[0], c = in[1], bb = I64(b), hb = I64(h / b), wb = I64(w / b);
  Expr x = ctx.Op("relax.reshape", {ctx.Expr(0), relax::MakeShapeExpr({n, c, hb, bb, wb, bb})});
  x = ctx.Op("relax.permute_dims", {x}, {{"axes", relax::IntArray({0, 3, 5, 1, 2, 4})}});
  return {Value(Expr(ctx.Op("relax.reshape", {x, relax::MakeShapeExpr({n, tir::mul(c, I64(b * b)), hb, wb})})))};
}

// OneHot (opset 11): on where the (wrapped) index equals the position along the new axis, off
// elsewhere; an index outside [-depth, depth) gives a row of off. depth must be known at import.
// Constant values = [off, on] give relax.one_hot; values computed by the graph an equality with
// the positions and a where.
std::vector<Operand> ConvertOneHot(NodeContext& ctx) {
  std::optional<double> depth_value = ctx.ConstScalar(1);
  if (!depth_value) ctx.Fail("the depth (input '" + ctx.node().input(1) + "') must be a constant scalar");
  auto depth = static_cast<int64_t>(*depth_value);
  if (depth <= 0) ctx.Fail("depth must be positive, got " + std::to_string(depth));
  int64_t rank = ctx.Rank(0);
  int64_t axis = NormalizeAxis(ctx.AttrInt("axis", -1), rank + 1, ctx);
  Expr idx = ctx.Expr(0);
  DataType i64 = DataType::Int(64);
  if (ctx.DType(0) != i64) idx = ctx.Op("relax.astype", {idx}, {{"dtype", relax::DTypeAttr(i64)}});
  Expr wrapped = ctx.Op("relax.add", {idx, ScalarConstant(i64, static_cast<double>(depth))});
  idx = ctx.Op("relax.where", {ctx.Op("relax.less", {idx, ScalarConstant(i64, 0)}), wrapped, idx});
  if (ctx.Rank(2) != 1) ctx.Fail("values must be a 1-D tensor [off, on]");
  // Constant values: relax.one_hot, as TVM maps OneHot.
  DataType vt = ctx.DType(2);
  if (auto* c = ctx.Expr(2).as<relax::ConstantNode>(); c && (vt.is_floating_point() || vt.is_integer())) {
    std::vector<double> v = ConstantValues(*c);
    if (v.size() != 2) ctx.Fail("values must hold two elements [off, on], got " + std::to_string(v.size()));
    auto prim = [&](double x) {
      return relax::MakePrimValue(vt.is_floating_point() ? PrimExpr(tir::MakeFloatImm(vt, x))
                                                         : PrimExpr(tir::MakeIntImm(vt, static_cast<int64_t>(x))));
    };
    return {Value(Expr(ctx.Op("relax.one_hot", {idx, prim(v[1]), prim(v[0])},
                              {{"depth", ir::MakeInt(depth)}, {"axis", ir::MakeInt(axis)}})))};
  }
  idx = ctx.Op("relax.expand_dims", {idx}, {{"axis", relax::IntArray({axis})}});
  std::vector<PrimExpr> column(rank + 1, I64(1));
  column[axis] = I64(depth);
  Expr positions = ctx.Op("relax.arange", {relax::MakePrimValue(I64(0)), relax::MakePrimValue(I64(depth)),
                                           relax::MakePrimValue(I64(1))},
                          {{"dtype", relax::DTypeAttr(i64)}});
  positions = ctx.Op("relax.reshape", {positions, relax::MakeShapeExpr(column)});
  auto value = [&](int64_t i) {
    return Expr(ctx.Op("relax.take", {ctx.Expr(2), MakeConstantOf(i64, {}, {static_cast<double>(i)})},
                       {{"axis", ir::MakeInt(0)}}));
  };
  Expr hot = ctx.Op("relax.equal", {idx, positions});
  return {Value(Expr(ctx.Op("relax.where", {hot, value(1), value(0)})))};
}

// NonZero onto relax.nonzero, the count of non-zero elements a new symbolic dim (num_nonzero, ...)
// bound by a match_cast, as TVM's ONNX frontend does; a scalar counts as 1-D.
std::vector<Operand> ConvertNonZero(NodeContext& ctx) {
  int64_t rank = std::max<int64_t>(ctx.Rank(0), 1);
  Expr nz = ctx.Op("relax.nonzero", {ctx.Expr(0)});
  tir::Var count = ctx.FreshVar("num_nonzero");
  return {Value(Expr(ctx.MatchCast(nz, relax::MakeTensorType({I64(rank), count}, DataType::Int(64)))))};
}

// EyeLike: ones on diagonal k of a 2-D shape, as triu(tril(ones)) at k; dtype from the attribute,
// else the input's.
std::vector<Operand> ConvertEyeLike(NodeContext& ctx) {
  if (ctx.Rank(0) != 2) ctx.Fail("the input must be 2-D, got rank " + std::to_string(ctx.Rank(0)));
  DataType dtype = ctx.DType(0);
  if (const auto* a = ctx.Attr("dtype")) {
    dtype = DataTypeOf(static_cast<int32_t>(a->i()));
    if (dtype.is_void()) ctx.Fail("dtype " + ONNXTypeName(static_cast<int32_t>(a->i())) + " is not supported");
  }
  Expr k = relax::MakePrimValue(I64(ctx.AttrInt("k", 0)));
  Expr ones = ctx.Op("relax.ones_like", {ctx.Expr(0)}, {{"dtype", relax::DTypeAttr(dtype)}});
  return {Value(Expr(ctx.Op("relax.tril", {ctx.Op("relax.triu", {ones, k}), k})))};
}

}  // namespace

void RegisterShape(ConverterTable& t) {
  t["Shape"] = ConvertShape;
  t["Size"] = ConvertSize;
  t["Reshape"] = ConvertReshape;
  t["Flatten"] = ConvertFlatten;
  t["Transpose"] = ConvertTranspose;
  t["Unsqueeze"] = ConvertUnsqueeze;
  t["Squeeze"] = ConvertSqueeze;
  t["Concat"] = ConvertConcat;
  t["Gather"] = ConvertGather;
  t["Slice"] = ConvertSlice;
  t["Split"] = ConvertSplit;
  t["Expand"] = ConvertExpand;
  t["ConstantOfShape"] = ConvertConstantOfShape;
  t["Constant"] = ConvertConstant;
  t["Range"] = ConvertRange;
  t["Pad"] = ConvertPad;
  t["Tile"] = ConvertTile;
  t["GatherElements"] = ConvertGatherElements;
  t["GatherND"] = ConvertGatherND;
  t["ScatterElements"] = ConvertScatterElements;
  t["ScatterND"] = ConvertScatterND;
  t["Trilu"] = ConvertTrilu;
  t["DepthToSpace"] = ConvertDepthToSpace;
  t["SpaceToDepth"] = ConvertSpaceToDepth;
  t["OneHot"] = ConvertOneHot;
  t["NonZero"] = ConvertNonZero;
  t["EyeLike"] = ConvertEyeLike;
}

}  // namespace wb::frontend::onnx
