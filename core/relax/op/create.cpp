// Tensor creation (relax.full, relax.zeros, relax.ones, and their _like forms): the shape is a value argument, so the
// result's dims are exactly the ShapeExpr's, symbolic ones included.
#include "relax/op/op_common.h"

namespace wb::relax {
namespace {

using namespace op_common;

Type Created(const Call& call, const std::vector<Type>& types, DataType dtype) {
  std::optional<std::vector<PrimExpr>> shape = ShapeArg(call, types, 0);
  if (!shape) return MakeTensorType(dtype, types[0].as<ShapeTypeNode>()->ndim);
  return MakeTensorType(*shape, dtype);
}

OpInfo Full() {
  OpDef def;
  def.name = "relax.full";
  def.args = {"shape", "fill_value"};
  def.pattern = OpPatternKind::kElemWise;
  def.attrs_type_key = "relax.attrs.InitAttrs";
  def.attrs = {DTypeField("dtype")};
  def.infer = [](const Call& call, const std::vector<Type>& types) -> Type {
    const TensorTypeNode* fill = TensorArg(types, 1, "the fill value");
    if (!fill->IsUnknownNdim() && fill->ndim != 0) {
      throw TypeError("the fill value must be a scalar tensor, got rank " +
                      std::to_string(fill->ndim));
    }
    DataType dtype = AttrDataType(call, "dtype");
    return Created(call, types, dtype.is_void() ? fill->dtype : dtype);
  };
  return Define(std::move(def));
}

OpInfo Constant(const char* name) {
  OpDef def;
  def.name = std::string("relax.") + name;
  def.args = {"shape"};
  def.pattern = OpPatternKind::kElemWise;
  def.attrs_type_key = "relax.attrs.InitAttrs";
  def.attrs = {DTypeField("dtype", DataType::Float(32))};
  def.infer = [](const Call& call, const std::vector<Type>& types) -> Type {
    DataType dtype = AttrDataType(call, "dtype");
    if (dtype.is_void()) throw TypeError("the dtype is not given");
    return Created(call, types, dtype);
  };
  return Define(std::move(def));
}

// zeros_like / ones_like / full_like: the input's shape, in `dtype` when given (else the input's).
OpInfo Like(const char* name, bool with_fill) {
  OpDef def;
  def.name = std::string("relax.") + name;
  def.args = {"x"};
  if (with_fill) def.args.push_back("fill_value");
  def.pattern = OpPatternKind::kElemWise;
  def.attrs_type_key = "relax.attrs.InitAttrs";
  def.attrs = {DTypeField("dtype")};
  def.infer = [with_fill](const Call& call, const std::vector<Type>& types) -> Type {
    const TensorTypeNode* x = TensorArg(types, 0, "the input");
    if (with_fill) {
      const TensorTypeNode* fill = TensorArg(types, 1, "the fill value");
      if (!fill->IsUnknownNdim() && fill->ndim != 0) {
        throw TypeError("the fill value must be a scalar tensor, got rank " +
                        std::to_string(fill->ndim));
      }
    }
    DataType dtype = AttrDataType(call, "dtype");
    if (dtype.is_void()) dtype = x->dtype;
    return WithVDevice(TensorOf(x->shape, dtype, x->ndim), x->vdevice);
  };
  return Define(std::move(def));
}

const OpRegistrar kOps[] = {
    OpRegistrar(Like("zeros_like", false)),
    OpRegistrar(Like("ones_like", false)),
    OpRegistrar(Like("full_like", true)),
    OpRegistrar(Full()),
    OpRegistrar(Constant("zeros")),
    OpRegistrar(Constant("ones")),
};

}  // namespace
}  // namespace wb::relax
