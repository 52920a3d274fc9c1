// Element-wise binary ops with numpy broadcasting (relax.add ... relax.greater_equal, relax.atan2): the two
// operands' dtypes and vdevices must agree; dims are matched from the right, a 1 stretches, symbolic dims
// broadcast when they are provably equal (the same `n`) and leave the shape unknown otherwise.
#include "relax/op/op_common.h"

namespace wb::relax {
namespace {

using namespace op_common;

// A Relax scalar (R.Prim) takes part as a rank-0 tensor.
TensorType AsTensorOperand(const std::vector<Type>& types, size_t i) {
  if (auto* p = types[i].as<PrimTypeNode>()) return MakeTensorType({}, p->dtype);
  return GetRef(TensorArg(types, i));
}

Type InferBroadcast(const std::vector<Type>& types, bool is_compare) {
  if (types[0].as<PrimTypeNode>() && types[1].as<PrimTypeNode>()) {
    DataType a = types[0].as<PrimTypeNode>()->dtype;
    DataType b = types[1].as<PrimTypeNode>()->dtype;
    if (!a.is_void() && !b.is_void() && a != b) {
      throw TypeError("data types " + a.ToString() + " and " + b.ToString() +
                      " of the operands do not match");
    }
    return ir::MakePrimType(is_compare ? DataType::Bool() : a);
  }
  TensorType x = AsTensorOperand(types, 0);
  TensorType y = AsTensorOperand(types, 1);
  DataType dtype = DataType::Void();
  if (!x->IsUnknownDtype() && !y->IsUnknownDtype()) {
    if (x->dtype != y->dtype) {
      throw TypeError("data types " + x->dtype.ToString() + " and " + y->dtype.ToString() +
                      " of the operands do not match");
    }
    dtype = x->dtype;
  }
  if (is_compare) dtype = DataType::Bool();
  int64_t ndim =
      x->IsUnknownNdim() || y->IsUnknownNdim() ? kUnknownNDim : std::max(x->ndim, y->ndim);
  ir::VDevice vdevice = OutVDevice({x.get(), y.get()});
  std::optional<std::vector<PrimExpr>> shape;
  if (x->shape && y->shape) shape = BroadcastShapes(*x->shape, *y->shape);
  return WithVDevice(TensorOf(shape, dtype, ndim), vdevice);
}

OpInfo Binary(const char* name, bool is_compare) {
  OpDef def;
  def.name = std::string("relax.") + name;
  def.args = {"x1", "x2"};
  def.pattern = OpPatternKind::kBroadcast;
  def.infer = [is_compare](const Call&, const std::vector<Type>& types) {
    return InferBroadcast(types, is_compare);
  };
  return Define(std::move(def));
}

const OpRegistrar kOps[] = {
    OpRegistrar(Binary("add", false)),          OpRegistrar(Binary("subtract", false)),
    OpRegistrar(Binary("multiply", false)),     OpRegistrar(Binary("divide", false)),
    OpRegistrar(Binary("floor_divide", false)), OpRegistrar(Binary("power", false)),
    OpRegistrar(Binary("maximum", false)),      OpRegistrar(Binary("minimum", false)),
    OpRegistrar(Binary("equal", true)),         OpRegistrar(Binary("not_equal", true)),
    OpRegistrar(Binary("less", true)),          OpRegistrar(Binary("less_equal", true)),
    OpRegistrar(Binary("greater", true)),       OpRegistrar(Binary("greater_equal", true)),
    OpRegistrar(Binary("floor_mod", false)),    OpRegistrar(Binary("mod", false)),
    OpRegistrar(Binary("logical_and", false)),  OpRegistrar(Binary("logical_or", false)),
    OpRegistrar(Binary("logical_xor", false)),  OpRegistrar(Binary("atan2", false)),
};

}  // namespace
}  // namespace wb::relax
