// Reductions: the Reduce family (axes an attribute before opset 18, ReduceSum's an input from
// 13) onto relax.mean / sum / max / min / prod, the L1 / L2 / LogSum / LogSumExp / SumSquare
// forms as their formulas around relax.sum, ArgMax, ArgMin and TopK.
#include "frontend/onnx/importer.h"

namespace wb::frontend::onnx {
namespace {

using relax::Expr;

// How a reduction maps onto Relax: `pre` applied to the input, the Relax reduction, `post` to
// its result (ReduceL2 is sqrt(sum(x * x))).
enum class Pre { kNone, kSquare, kAbs, kExp };  // kExp: log-sum-exp, shifted by the maximum
enum class Post { kNone, kSqrt, kLog };

Converter Reduce(const char* relax_name, int64_t axes_input_opset, Pre pre = Pre::kNone,
                 Post post = Post::kNone) {
  std::string name = relax_name;
  return [name, axes_input_opset, pre, post](NodeContext& ctx) -> std::vector<Operand> {
    std::optional<std::vector<int64_t>> axes;
    if (ctx.opset() < axes_input_opset) {
      axes = ctx.AttrIntsIfAny("axes");
    } else if (ctx.HasInput(1)) {
      axes = ctx.ConstInts(1, "axes");
    }
    if (axes && axes->empty()) axes.reset();
    if (!axes && ctx.AttrInt("noop_with_empty_axes", 0) != 0) return {ctx.Input(0)};
    int64_t rank = ctx.Rank(0);
    ir::AttrMap attrs{{"keepdims", ir::MakeBool(ctx.AttrInt("keepdims", 1) != 0)}};
    if (axes) {
      for (auto& a : *axes) a = NormalizeAxis(a, rank, ctx);
      attrs["axis"] = relax::IntArray(*axes);
    }
    Expr x = ctx.Expr(0);
    if (pre == Pre::kSquare) x = ctx.Op("relax.multiply", {x, x});
    if (pre == Pre::kAbs) x = ctx.Op("relax.abs", {x});
    if (pre == Pre::kExp) {
      // log(sum(exp(x - m))) + m with m the maximum, so that large inputs do not overflow.
      ir::AttrMap keep = attrs;
      keep["keepdims"] = ir::MakeBool(true);
      Expr m = ctx.Op("relax.max", {x}, keep);
      Expr s = ctx.Op("relax.sum", {ctx.Op("relax.exp", {ctx.Op("relax.subtract", {x, m})})}, attrs);
      Expr m_out = ctx.AttrInt("keepdims", 1) != 0 ? m : Expr(ctx.Op("relax.max", {x}, attrs));
      return {Value(Expr(ctx.Op("relax.add", {ctx.Op("relax.log", {s}), m_out})))};
    }
    Expr y = ctx.Op(name, {x}, attrs);
    if (post == Post::kSqrt) y = ctx.Op("relax.sqrt", {y});
    if (post == Post::kLog) y = ctx.Op("relax.log", {y});
    return {Value(y)};
  };
}

// ArgMax and ArgMin (the first extreme element; select_last_index is not supported).
Converter ArgReduce(const char* relax_name) {
  std::string name = relax_name;
  return [name](NodeContext& ctx) -> std::vector<Operand> {
    if (ctx.AttrInt("select_last_index", 0) != 0) ctx.Fail("select_last_index 1 is not supported");
    int64_t axis = NormalizeAxis(ctx.AttrInt("axis", 0), ctx.Rank(0), ctx);
    return {Value(Expr(ctx.Op(name, {ctx.Expr(0)},
                              {{"axis", ir::MakeInt(axis)},
                               {"keepdims", ir::MakeBool(ctx.AttrInt("keepdims", 1) != 0)}})))};
  };
}

std::vector<Operand> ConvertCumSum(NodeContext& ctx) {
  if (ctx.AttrInt("reverse", 0) != 0) ctx.Fail("reverse=1 is not supported");
  std::vector<int64_t> axis = ctx.ConstInts(1, "axis");
  if (axis.size() != 1) ctx.Fail("axis must hold one value");
  int64_t a = NormalizeAxis(axis[0], ctx.Rank(0), ctx);
  return {Value(Expr(ctx.Op("relax.cumsum", {ctx.Expr(0)},
                            {{"axis", ir::MakeInt(a)}, {"exclusive", ir::MakeBool(ctx.AttrInt("exclusive", 0) != 0)}})))};
}

// TopK onto relax.topk: K must be known at import time; the indices are int64 as ONNX's are.
// The order is always sorted (sorted=0 leaves it unspecified, so sorted is a valid answer).
std::vector<Operand> ConvertTopK(NodeContext& ctx) {
  std::vector<int64_t> k = ctx.ConstInts(1, "K");
  if (k.size() != 1) ctx.Fail("K must hold one value");
  int64_t axis = NormalizeAxis(ctx.AttrInt("axis", -1), ctx.Rank(0), ctx);
  Expr both = ctx.Op("relax.topk", {ctx.Expr(0)},
                     {{"k", ir::MakeInt(k[0])},
                      {"axis", ir::MakeInt(axis)},
                      {"largest", ir::MakeBool(ctx.AttrInt("largest", 1) != 0)},
                      {"dtype", relax::DTypeAttr(DataType::Int(64))}});
  return {Value(Expr(ctx.Emit(relax::MakeTupleGetItem(both, 0)))),
          Value(Expr(ctx.Emit(relax::MakeTupleGetItem(both, 1))))};
}

}  // namespace

void RegisterReduce(ConverterTable& t) {
  t["TopK"] = ConvertTopK;
  t["ReduceMean"] = Reduce("relax.mean", 18);
  t["ReduceSum"] = Reduce("relax.sum", 13);
  t["ReduceMax"] = Reduce("relax.max", 18);
  t["ReduceMin"] = Reduce("relax.min", 18);
  t["ReduceProd"] = Reduce("relax.prod", 18);
  t["ReduceSumSquare"] = Reduce("relax.sum", 18, Pre::kSquare);
  t["ReduceL1"] = Reduce("relax.sum", 18, Pre::kAbs);
  t["ReduceL2"] = Reduce("relax.sum", 18, Pre::kSquare, Post::kSqrt);
  t["ReduceLogSumExp"] = Reduce("relax.sum", 18, Pre::kExp);
  t["ReduceLogSum"] = Reduce("relax.sum", 18, Pre::kNone, Post::kLog);
  t["ArgMax"] = ArgReduce("relax.argmax");
  t["ArgMin"] = ArgReduce("relax.argmin");
  t["CumSum"] = ConvertCumSum;
}

}  // namespace wb::frontend::onnx
