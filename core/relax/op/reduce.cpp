// Reductions (relax.sum, relax.mean, relax.max, relax.min, relax.prod, relax.variance, relax.std,
// relax.argmax, relax.argmin): the reduced axes are
// dropped, or kept as 1 with keepdims; no axis means every axis. argmax and argmin give int64
// indices.
#include "relax/op/op_common.h"

namespace wb::relax {
namespace {

using namespace op_common;

Type Reduce(const TensorTypeNode* x, const std::optional<std::vector<int64_t>>& axis, bool keepdims,
            DataType dtype) {
  if (x->IsUnknownNdim()) {
    // Reducing every axis without keepdims gives a scalar whatever the rank was.
    if (!axis && !keepdims) return MakeTensorType(std::vector<PrimExpr>{}, dtype);
    return MakeTensorType(dtype, kUnknownNDim);
  }
  std::vector<bool> reduced(static_cast<size_t>(x->ndim), !axis.has_value());
  if (axis) {
    for (int64_t a : NormalizeAxes(*axis, x->ndim)) reduced[a] = true;
  }
  std::vector<PrimExpr> dims;
  int64_t ndim = 0;
  for (size_t i = 0; i < reduced.size(); ++i) {
    if (reduced[i] && !keepdims) continue;
    ++ndim;
    if (x->shape) dims.push_back(reduced[i] ? Int64(1) : (*x->shape)[i]);
  }
  if (!x->shape) return MakeTensorType(dtype, ndim);
  return MakeTensorType(dims, dtype);
}

OpInfo Statistical(const char* name) {
  OpDef def;
  def.name = std::string("relax.") + name;
  def.args = {"x"};
  def.pattern = OpPatternKind::kCommReduce;
  def.attrs_type_key = "relax.attrs.StatisticalAttrs";
  def.attrs = {OptionalIntsAttr("axis"), BoolAttr("keepdims", false)};
  def.infer = [](const Call& call, const std::vector<Type>& types) -> Type {
    const TensorTypeNode* x = TensorArg(types, 0, "the input");
    std::optional<std::vector<int64_t>> axis;
    if (!AttrIsNone(call, "axis")) axis = AttrInts(call, "axis");
    return Reduce(x, axis, AttrBool(call, "keepdims"), x->dtype);
  };
  return Define(std::move(def));
}

OpInfo ArgmaxArgmin(const char* name) {
  OpDef def;
  def.name = std::string("relax.") + name;
  def.args = {"x"};
  def.pattern = OpPatternKind::kCommReduce;
  def.attrs_type_key = "relax.attrs.ArgmaxArgminAttrs";
  def.attrs = {OptionalIntAttr("axis"), BoolAttr("keepdims", false)};
  def.infer = [](const Call& call, const std::vector<Type>& types) -> Type {
    const TensorTypeNode* x = TensorArg(types, 0, "the input");
    std::optional<std::vector<int64_t>> axis;
    if (!AttrIsNone(call, "axis")) axis = std::vector<int64_t>{AttrInt(call, "axis")};
    return Reduce(x, axis, AttrBool(call, "keepdims"), DataType::Int(64));
  };
  return Define(std::move(def));
}

// cumsum: the running sum along `axis` (None: of the flattened input), in `dtype` when given.
OpInfo Cumsum() {
  OpDef def;
  def.name = "relax.cumsum";
  def.args = {"data"};
  def.pattern = OpPatternKind::kOpaque;
  def.attrs_type_key = "relax.attrs.ScanopAttrs";
  def.attrs = {OptionalIntAttr("axis"), DTypeField("dtype"), BoolAttr("exclusive", false)};
  def.infer = [](const Call& call, const std::vector<Type>& types) -> Type {
    const TensorTypeNode* x = TensorArg(types, 0, "the data");
    DataType dtype = AttrDataType(call, "dtype");
    if (dtype.is_void()) dtype = x->dtype;
    if (AttrIsNone(call, "axis")) {
      if (!x->shape) return MakeTensorType(dtype, 1);
      return WithVDevice(MakeTensorType({Product(*x->shape)}, dtype), x->vdevice);
    }
    if (!x->IsUnknownNdim()) NormalizeAxis(AttrInt(call, "axis"), x->ndim);
    return WithVDevice(TensorOf(x->shape, dtype, x->ndim), x->vdevice);
  };
  return Define(std::move(def));
}

const OpRegistrar kOps[] = {
    OpRegistrar(Cumsum()),
    OpRegistrar(Statistical("sum")), OpRegistrar(Statistical("mean")),
    OpRegistrar(Statistical("max")), OpRegistrar(Statistical("min")),
    OpRegistrar(Statistical("prod")),
    OpRegistrar(Statistical("variance")),
    OpRegistrar(Statistical("std")),
    OpRegistrar(ArgmaxArgmin("argmax")),
    OpRegistrar(ArgmaxArgmin("argmin")),
};

}  // namespace
}  // namespace wb::relax
