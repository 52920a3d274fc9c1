// Sorting (relax.sort, relax.argsort, relax.topk) along one axis, in TVM's names and attribute
// order. argsort and topk give indices in `dtype` (TVM's default int32); topk's ret_type picks the
// values, the indices or both (a tuple, values first).
#include "relax/op/op_common.h"

namespace wb::relax {
namespace {

using namespace op_common;

const TensorTypeNode* SortedInput(const Call& call, const std::vector<Type>& types) {
  const TensorTypeNode* x = TensorArg(types, 0, "the data");
  if (!x->IsUnknownNdim()) {
    if (x->ndim == 0) throw TypeError("the data must have at least one axis");
    NormalizeAxis(AttrInt(call, "axis"), x->ndim);
  }
  return x;
}

OpInfo Sort() {
  OpDef def;
  def.name = "relax.sort";
  def.args = {"x"};
  def.pattern = OpPatternKind::kOpaque;
  def.attrs_type_key = "relax.attrs.SortAttrs";
  def.attrs = {IntAttr("axis", -1), BoolAttr("descending", false)};
  def.infer = [](const Call& call, const std::vector<Type>& types) -> Type {
    return GetRef(SortedInput(call, types));
  };
  return Define(std::move(def));
}

OpInfo Argsort() {
  OpDef def;
  def.name = "relax.argsort";
  def.args = {"data"};
  def.pattern = OpPatternKind::kOpaque;
  def.attrs_type_key = "relax.attrs.ArgsortAttrs";
  def.attrs = {IntAttr("axis", -1), BoolAttr("descending", false), DTypeField("dtype", DataType::Int(32))};
  def.infer = [](const Call& call, const std::vector<Type>& types) -> Type {
    const TensorTypeNode* x = SortedInput(call, types);
    DataType dtype = AttrDataType(call, "dtype");
    if (dtype.is_void()) dtype = DataType::Int(32);
    if (!dtype.is_integer()) throw TypeError("dtype must be an integer type, got " + dtype.ToString());
    return WithVDevice(TensorOf(x->shape, dtype, x->ndim), x->vdevice);
  };
  return Define(std::move(def));
}

OpInfo TopK() {
  OpDef def;
  def.name = "relax.topk";
  def.args = {"data"};
  def.pattern = OpPatternKind::kOpaque;
  def.attrs_type_key = "relax.attrs.TopKAttrs";
  def.attrs = {IntAttr("k", 1), IntAttr("axis", -1), StringAttr("ret_type", "both"),
               BoolAttr("largest", true), DTypeField("dtype", DataType::Int(32))};
  def.infer = [](const Call& call, const std::vector<Type>& types) -> Type {
    const TensorTypeNode* x = SortedInput(call, types);
    int64_t k = AttrInt(call, "k");
    if (k < 1) throw TypeError("k must be positive, got " + std::to_string(k));
    std::string ret = AttrString(call, "ret_type");
    if (ret != "both" && ret != "values" && ret != "indices") {
      throw TypeError("ret_type must be both, values or indices, got " + ret);
    }
    DataType dtype = AttrDataType(call, "dtype");
    if (dtype.is_void()) dtype = DataType::Int(32);
    if (!dtype.is_integer()) throw TypeError("dtype must be an integer type, got " + dtype.ToString());
    std::optional<std::vector<PrimExpr>> shape = x->shape;
    if (shape) {
      int64_t axis = NormalizeAxis(AttrInt(call, "axis"), x->ndim);
      if (auto extent = AsConstInt((*shape)[axis]); extent && k > *extent) {
        throw TypeError("k " + std::to_string(k) + " is larger than the axis's extent " + std::to_string(*extent));
      }
      (*shape)[axis] = Int64(k);
    }
    Type values = WithVDevice(TensorOf(shape, x->dtype, x->ndim), x->vdevice);
    Type indices = WithVDevice(TensorOf(shape, dtype, x->ndim), x->vdevice);
    if (ret == "values") return values;
    if (ret == "indices") return indices;
    return ir::MakeTupleType({values, indices});
  };
  return Define(std::move(def));
}

const OpRegistrar kOps[] = {
    OpRegistrar(Sort()),
    OpRegistrar(Argsort()),
    OpRegistrar(TopK()),
};

}  // namespace
}  // namespace wb::relax
