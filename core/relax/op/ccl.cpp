// Collective communication ops (relax.ccl.*) of a program split over workers: allreduce and
// allgather across the group, broadcast_from_worker0 and scatter_from_worker0 (worker 0's tensor
// split along `axis`). LegalizeOps turns them into calls of the runtime's disco functions.
#include "relax/op/op_common.h"

namespace wb::relax {
namespace {

using namespace op_common;

OpInfo AllReduce() {
  OpDef def;
  def.name = "relax.ccl.allreduce";
  def.args = {"x"};
  def.pattern = OpPatternKind::kOpaque;
  def.attrs_type_key = "relax.attrs.AllReduceAttrs";
  def.attrs = {StringAttr("op_type", "sum"), BoolAttr("in_group", true)};
  def.infer = [](const Call& call, const std::vector<Type>& types) -> Type {
    const TensorTypeNode* x = TensorArg(types, 0, "the input");
    std::string op = AttrString(call, "op_type");
    if (op != "sum" && op != "prod" && op != "min" && op != "max" && op != "avg") {
      throw TypeError("op_type must be sum, prod, min, max or avg, got " + op);
    }
    return GetRef(x);
  };
  return Define(std::move(def));
}

OpInfo AllGather() {
  OpDef def;
  def.name = "relax.ccl.allgather";
  def.args = {"x"};
  def.pattern = OpPatternKind::kOpaque;
  def.attrs_type_key = "relax.attrs.AllGatherAttrs";
  def.attrs = {IntAttr("num_workers", 1), BoolAttr("in_group", true)};
  def.infer = [](const Call& call, const std::vector<Type>& types) -> Type {
    const TensorTypeNode* x = TensorArg(types, 0, "the input");
    int64_t workers = AttrInt(call, "num_workers");
    if (workers < 1) throw TypeError("num_workers must be positive, got " + std::to_string(workers));
    if (!x->IsUnknownNdim() && x->ndim < 1) throw TypeError("the input must have at least one axis");
    if (!x->shape) return GetRef(x);
    std::vector<PrimExpr> dims = *x->shape;
    dims[0] = Mul(dims[0], Int64(workers));
    return WithVDevice(MakeTensorType(dims, x->dtype), x->vdevice);
  };
  return Define(std::move(def));
}

OpInfo BroadcastFromWorker0() {
  OpDef def;
  def.name = "relax.ccl.broadcast_from_worker0";
  def.args = {"x"};
  def.pattern = OpPatternKind::kOpaque;
  def.infer = [](const Call&, const std::vector<Type>& types) -> Type {
    return GetRef(TensorArg(types, 0, "the input"));
  };
  return Define(std::move(def));
}

OpInfo ScatterFromWorker0() {
  OpDef def;
  def.name = "relax.ccl.scatter_from_worker0";
  def.args = {"x"};
  def.pattern = OpPatternKind::kOpaque;
  def.attrs_type_key = "relax.attrs.ScatterCollectiveAttrs";
  def.attrs = {IntAttr("num_workers", 1), IntAttr("axis", 0)};
  def.infer = [](const Call& call, const std::vector<Type>& types) -> Type {
    const TensorTypeNode* x = TensorArg(types, 0, "the input");
    int64_t workers = AttrInt(call, "num_workers");
    if (workers < 1) throw TypeError("num_workers must be positive, got " + std::to_string(workers));
    if (x->IsUnknownNdim()) return GetRef(x);
    int64_t axis = NormalizeAxis(AttrInt(call, "axis"), x->ndim);
    if (!x->shape) return GetRef(x);
    std::vector<PrimExpr> dims = *x->shape;
    std::optional<PrimExpr> part = DivideProduct({dims[axis]}, workers);
    if (!part) {
      throw TypeError("dimension " + DimText(dims[axis]) + " at axis " + std::to_string(axis) +
                      " cannot be split among " + std::to_string(workers) + " workers");
    }
    dims[axis] = *part;
    return WithVDevice(MakeTensorType(dims, x->dtype), x->vdevice);
  };
  return Define(std::move(def));
}

const OpRegistrar kOps[] = {
    OpRegistrar(AllReduce()),
    OpRegistrar(AllGather()),
    OpRegistrar(BroadcastFromWorker0()),
    OpRegistrar(ScatterFromWorker0()),
};

}  // namespace
}  // namespace wb::relax
