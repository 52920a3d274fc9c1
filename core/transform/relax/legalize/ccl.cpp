// Legalization of the collective communication ops: calls of the runtime's disco functions
// through R.call_dps_packed, in TVM's argument forms (allreduce's reduction as a shape code,
// the in_group flag); scatter_from_worker0 first lays the scattered axis out as the leading one
// (a reshape and a transpose kernel), so that each worker's part is contiguous.
#include "relax/op/registry.h"
#include "tir/op.h"
#include "topi/transform.h"
#include "transform/relax/legalize/common.h"

namespace wb::transform::legalize {

namespace {

Expr DPSPacked(const char* func, std::vector<Expr> args, relax::Type out) {
  return relax::MakeOpCall("relax.call_dps_packed", {relax::MakeExternFunc(func), relax::MakeTuple(std::move(args))},
                           {}, {std::move(out)});
}

Expr Flag(bool value) { return relax::MakePrimValue(tir::make_const(ir::DataType::Bool(), int64_t(value))); }

ir::PrimExpr Index(int64_t v) { return tir::make_const(ir::DataType::Int(64), v); }

}  // namespace

void RegisterCCL(LegalizeTable& table) {
  table["relax.ccl.allreduce"] = [](BlockBuilder&, const Call& call) -> Expr {
    static const char* kCodes[] = {"sum", "prod", "min", "max", "avg"};
    std::string op = relax::AttrString(call, "op_type");
    int64_t code = -1;
    for (int64_t i = 0; i < 5; ++i) {
      if (op == kCodes[i]) code = i;
    }
    if (code < 0) throw LegalizeError("allreduce: unsupported op_type " + op);
    return DPSPacked("runtime.disco.allreduce",
                     {call->args[0], relax::MakeShapeExpr({Index(code)}), Flag(relax::AttrBool(call, "in_group"))},
                     relax::GetType(call->args[0]));
  };
  table["relax.ccl.allgather"] = [](BlockBuilder&, const Call& call) -> Expr {
    const relax::TensorTypeNode* out = OutputTensorType(call);
    return DPSPacked("runtime.disco.allgather", {call->args[0], Flag(relax::AttrBool(call, "in_group"))},
                     relax::Type(ir::GetRef(out)));
  };
  table["relax.ccl.broadcast_from_worker0"] = [](BlockBuilder&, const Call& call) -> Expr {
    return DPSPacked("runtime.disco.broadcast_from_worker0", {call->args[0], Flag(false)},
                     relax::GetType(call->args[0]));
  };
  table["relax.ccl.scatter_from_worker0"] = [](BlockBuilder& bb, const Call& call) -> Expr {
    const relax::TensorTypeNode* out = OutputTensorType(call);
    std::vector<ir::PrimExpr> in_shape = ShapeOf(call->args[0]);
    int64_t workers = relax::AttrInt(call, "num_workers");
    int64_t axis = relax::AttrInt(call, "axis");
    if (axis < 0) axis += int64_t(in_shape.size());
    // (..., n, ...) -> (..., workers, n / workers, ...), the workers' axis then moved first.
    std::vector<ir::PrimExpr> split;
    for (size_t i = 0; i < in_shape.size(); ++i) {
      if (int64_t(i) == axis) {
        split.push_back(Index(workers));
        split.push_back(tir::truncdiv(in_shape[i], Index(workers)));
      } else {
        split.push_back(in_shape[i]);
      }
    }
    std::vector<relax::Binding> bindings;
    TECall reshape_call(bb);
    te::Tensor x = reshape_call.Tensor(call, 0);
    Expr reshaped = bb.Normalize(reshape_call.Emit(topi::reshape(x, reshape_call.Dims(split)), "reshape"));
    relax::Var scattered = relax::MakeVar("gv", relax::GetType(reshaped));
    bindings.push_back(relax::MakeVarBinding(scattered, reshaped));
    if (axis != 0) {
      std::vector<int64_t> order = {axis};
      for (int64_t i = 0; i < int64_t(split.size()); ++i) {
        if (i != axis) order.push_back(i);
      }
      TECall transpose_call(bb);
      te::Tensor r = transpose_call.Tensor(scattered);
      Expr transposed = bb.Normalize(transpose_call.Emit(topi::transpose(r, order), "transpose"));
      scattered = relax::MakeVar("gv1", relax::GetType(transposed));
      bindings.push_back(relax::MakeVarBinding(scattered, transposed));
    }
    Expr result = DPSPacked("runtime.disco.scatter_from_worker0", {scattered, Flag(false)}, relax::Type(ir::GetRef(out)));
    return bb.Normalize(relax::MakeSeqExpr({relax::MakeBindingBlock(std::move(bindings))}, result));
  };
}

}  // namespace wb::transform::legalize
