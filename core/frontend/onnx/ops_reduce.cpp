// Reductions: ReduceMean / Sum / Max / Min (axes an attribute before opset 18, ReduceSum's an
// input from 13) and ArgMax, onto relax.mean / sum / max / min / argmax.
#include "frontend/onnx/importer.h"

namespace wb::frontend::onnx {
namespace {

using relax::Expr;

Converter Reduce(const char* relax_name, int64_t axes_input_opset) {
  std::string name = relax_name;
  return [name, axes_input_opset](NodeContext& ctx) -> std::vector<Operand> {
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
    return {Value(Expr(ctx.Op(name, {ctx.Expr(0)}, attrs)))};
  };
}

std::vector<Operand> ConvertArgMax(NodeContext& ctx) {
  if (ctx.AttrInt("select_last_index", 0) != 0) ctx.Fail("select_last_index 1 is not supported");
  int64_t axis = NormalizeAxis(ctx.AttrInt("axis", 0), ctx.Rank(0), ctx);
  return {Value(Expr(ctx.Op("relax.argmax", {ctx.Expr(0)},
                            {{"axis", ir::MakeInt(axis)},
                             {"keepdims", ir::MakeBool(ctx.AttrInt("keepdims", 1) != 0)}})))};
}

}  // namespace

void RegisterReduce(ConverterTable& t) {
  t["ReduceMean"] = Reduce("relax.mean", 18);
  t["ReduceSum"] = Reduce("relax.sum", 13);
  t["ReduceMax"] = Reduce("relax.max", 18);
  t["ReduceMin"] = Reduce("relax.min", 18);
  t["ArgMax"] = ConvertArgMax;
}

}  // namespace wb::frontend::onnx
