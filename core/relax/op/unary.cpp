// Element-wise unary ops (relax.exp, relax.clip, relax.astype ...): the result has the
// operand's shape; astype changes the dtype, isnan / isinf / isfinite give bools. Float-only math (exp, log, sqrt ...) rejects
// integer tensors, as TVM does.
#include "relax/op/op_common.h"

namespace wb::relax {
namespace {

using namespace op_common;

Type SameAsInput(const std::vector<Type>& types, bool float_only) {
  const TensorTypeNode* x = TensorArg(types, 0, "the operand");
  if (float_only && !x->IsUnknownDtype() && !x->dtype.is_floating_point()) {
    throw TypeError("the operand must have a floating-point dtype, got " + x->dtype.ToString());
  }
  return GetRef(x);
}

OpInfo Unary(const char* name, bool float_only) {
  OpDef def;
  def.name = std::string("relax.") + name;
  def.args = {"x"};
  def.pattern = OpPatternKind::kElemWise;
  def.infer = [float_only](const Call&, const std::vector<Type>& types) {
    return SameAsInput(types, float_only);
  };
  return Define(std::move(def));
}

// isnan / isinf / isfinite: a bool tensor of the operand's shape.
OpInfo Predicate(const char* name) {
  OpDef def;
  def.name = std::string("relax.") + name;
  def.args = {"x"};
  def.pattern = OpPatternKind::kElemWise;
  def.infer = [](const Call&, const std::vector<Type>& types) -> Type {
    const TensorTypeNode* x = TensorArg(types, 0, "the operand");
    return WithVDevice(TensorOf(x->shape, DataType::Bool(), x->ndim), x->vdevice);
  };
  return Define(std::move(def));
}

OpInfo Clip() {
  OpDef def;
  def.name = "relax.clip";
  def.args = {"x", "min", "max"};
  def.pattern = OpPatternKind::kElemWise;
  def.infer = [](const Call&, const std::vector<Type>& types) -> Type {
    Type x = SameAsInput(types, false);
    for (size_t i = 1; i < 3; ++i) {
      if (!types[i].as<PrimTypeNode>()) {
        throw TypeError("the " + std::string(i == 1 ? "min" : "max") +
                        " bound must be a R.Prim value, got " + TypeToString(types[i]));
      }
    }
    return x;
  };
  return Define(std::move(def));
}

OpInfo Astype() {
  OpDef def;
  def.name = "relax.astype";
  def.args = {"x"};
  def.pattern = OpPatternKind::kElemWise;
  def.attrs_type_key = "relax.attrs.AstypeAttrs";
  def.attrs = {DTypeField("dtype")};
  def.infer = [](const Call& call, const std::vector<Type>& types) -> Type {
    const TensorTypeNode* x = TensorArg(types, 0, "the operand");
    DataType dtype = AttrDataType(call, "dtype");
    if (dtype.is_void()) throw TypeError("the target dtype is not given");
    return WithVDevice(TensorOf(x->shape, dtype, x->ndim), x->vdevice);
  };
  return Define(std::move(def));
}

const OpRegistrar kOps[] = {
    OpRegistrar(Unary("negative", false)),
    OpRegistrar(Unary("exp", true)),
    OpRegistrar(Unary("log", true)),
    OpRegistrar(Unary("sqrt", true)),
    OpRegistrar(Unary("rsqrt", true)),
    OpRegistrar(Unary("tanh", true)),
    OpRegistrar(Unary("sigmoid", true)),
    OpRegistrar(Unary("abs", false)),
    OpRegistrar(Unary("erf", true)),
    OpRegistrar(Unary("floor", false)),
    OpRegistrar(Unary("ceil", false)),
    OpRegistrar(Unary("trunc", false)),
    OpRegistrar(Unary("round", false)),
    OpRegistrar(Unary("sin", true)),
    OpRegistrar(Unary("cos", true)),
    OpRegistrar(Unary("tan", true)),
    OpRegistrar(Unary("sinh", true)),
    OpRegistrar(Unary("cosh", true)),
    OpRegistrar(Unary("asin", true)),
    OpRegistrar(Unary("acos", true)),
    OpRegistrar(Unary("atan", true)),
    OpRegistrar(Unary("asinh", true)),
    OpRegistrar(Unary("acosh", true)),
    OpRegistrar(Unary("atanh", true)),
    OpRegistrar(Unary("square", false)),
    OpRegistrar(Unary("sign", false)),
    OpRegistrar(Unary("logical_not", false)),
    OpRegistrar(Predicate("isnan")),
    OpRegistrar(Predicate("isinf")),
    OpRegistrar(Predicate("isfinite")),
    OpRegistrar(Clip()),
    OpRegistrar(Astype()),
};

}  // namespace
}  // namespace wb::relax
