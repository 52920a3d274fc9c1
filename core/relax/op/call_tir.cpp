// The calls out of Relax into destination-passing kernels: relax.call_tir (a PrimFunc of the
// module), relax.call_tir_inplace (the kernel writes some outputs into its inputs) and
// relax.call_dps_packed (a packed function by name). The result type is not inferred but
// declared by the caller (out_sinfo, the call's sinfo_args), so inference checks the declaration.
// relax.call_pure_packed calls a packed function by name that the caller promises is pure, its
// result declared by ty_args.
#include "relax/op/op_common.h"

namespace wb::relax {
namespace {

using namespace op_common;

// The declared result: one tensor type or a tuple of tensor types.
Type DeclaredOutput(const Call& call) {
  if (call->sinfo_args.size() != 1) {
    throw TypeError("exactly one out_sinfo is required, got " +
                    std::to_string(call->sinfo_args.size()));
  }
  const Type& out = call->sinfo_args[0];
  auto check = [](const Type& t) {
    if (!t.as<TensorTypeNode>()) {
      throw TypeError("out_sinfo must be a tensor type or a tuple of them, got " + TypeToString(t));
    }
  };
  if (auto* tuple = out.as<TupleTypeNode>()) {
    for (const Type& f : tuple->fields) check(f);
  } else {
    check(out);
  }
  return out;
}

void CheckArgsTuple(const std::vector<Type>& types, size_t i) {
  if (!types[i].as<TupleTypeNode>()) {
    throw TypeError("the arguments must be a tuple, got " + TypeToString(types[i]));
  }
}

void CheckTirVars(const std::vector<Type>& types, size_t i) {
  if (i < types.size() && !types[i].as<ShapeTypeNode>()) {
    throw TypeError("tir_vars must be a shape, got " + TypeToString(types[i]));
  }
}

OpInfo CallTIR() {
  OpDef def;
  def.name = "relax.call_tir";
  def.args = {"gvar", "args", "tir_vars"};
  def.optional_args = 1;
  def.pattern = OpPatternKind::kOpaque;
  def.infer = [](const Call& call, const std::vector<Type>& types) -> Type {
    if (!call->args[0].as<ir::GlobalVarNode>()) {
      throw TypeError("the callee must be a function of the module (a GlobalVar)");
    }
    CheckArgsTuple(types, 1);
    CheckTirVars(types, 2);
    return DeclaredOutput(call);
  };
  return Define(std::move(def));
}

OpInfo CallTIRInplace() {
  OpDef def;
  def.name = "relax.call_tir_inplace";
  def.args = {"gvar", "args", "tir_vars"};
  def.optional_args = 1;
  def.pattern = OpPatternKind::kOpaque;
  def.attrs_type_key = "relax.attrs.CallTIRInplaceAttrs";
  def.attrs = {IntsAttr("inplace_indices", {})};
  def.infer = [](const Call& call, const std::vector<Type>& types) -> Type {
    if (!call->args[0].as<ir::GlobalVarNode>()) {
      throw TypeError("the callee must be a function of the module (a GlobalVar)");
    }
    CheckArgsTuple(types, 1);
    CheckTirVars(types, 2);
    Type out = DeclaredOutput(call);
    const auto& inputs = types[1].as<TupleTypeNode>()->fields;
    std::vector<Type> outputs;
    if (auto* t = out.as<TupleTypeNode>()) {
      outputs = t->fields;
    } else {
      outputs = {out};
    }
    std::vector<int64_t> indices = AttrInts(call, "inplace_indices");
    if (indices.size() != outputs.size()) {
      throw TypeError("inplace_indices has " + std::to_string(indices.size()) + " entries for " +
                      std::to_string(outputs.size()) + " outputs");
    }
    std::vector<bool> used(inputs.size(), false);
    for (size_t i = 0; i < indices.size(); ++i) {
      int64_t k = indices[i];
      if (k == -1) continue;  // a freshly allocated output
      if (k < 0 || k >= static_cast<int64_t>(inputs.size())) {
        throw TypeError("inplace index " + std::to_string(k) + " is out of range for " +
                        std::to_string(inputs.size()) + " arguments");
      }
      if (used[k]) throw TypeError("argument " + std::to_string(k) + " is written in place twice");
      used[k] = true;
      if (!IsBaseOf(outputs[i], inputs[k])) {
        throw TypeError("output " + std::to_string(i) + " " + TypeToString(outputs[i]) +
                        " does not match argument " + std::to_string(k) + " " +
                        TypeToString(inputs[k]) + " that it is written into");
      }
    }
    return out;
  };
  return Define(std::move(def));
}

// call_tir_with_grad: call_tir that also names the TE function computing the kernel's
// gradient (te_grad_name, with te_grad_kwargs), for TVM's Gradient pass. No tir_vars.
OpInfo CallTIRWithGrad() {
  OpDef def;
  def.name = "relax.call_tir_with_grad";
  def.args = {"func", "args"};
  def.pattern = OpPatternKind::kOpaque;
  def.attrs_type_key = "relax.attrs.CallTIRWithGradAttrs";
  def.attrs = {StringAttr("te_grad_name", ""),
               {"te_grad_kwargs", AttrKind::kObject, ir::MakeMap({}), ""}};
  def.infer = [](const Call& call, const std::vector<Type>& types) -> Type {
    if (!call->args[0].as<ir::GlobalVarNode>()) {
      throw TypeError("the callee must be a function of the module (a GlobalVar)");
    }
    CheckArgsTuple(types, 1);
    return DeclaredOutput(call);
  };
  return Define(std::move(def));
}

OpInfo CallDPSPacked() {
  OpDef def;
  def.name = "relax.call_dps_packed";
  def.args = {"func", "args"};
  def.pattern = OpPatternKind::kOpaque;
  def.infer = [](const Call& call, const std::vector<Type>& types) -> Type {
    if (!types[0].as<PackedFuncTypeNode>() && !types[0].as<FuncTypeNode>()) {
      throw TypeError("the callee must be a function, got " + TypeToString(types[0]));
    }
    CheckArgsTuple(types, 1);
    return DeclaredOutput(call);
  };
  return Define(std::move(def));
}

// call_pure_packed(callee, args...): the result is the declared ty_args (one type, several as a
// tuple, none: R.Object), as TVM's ExternFunc derives it.
OpInfo CallPurePacked() {
  OpDef def;
  def.name = "relax.call_pure_packed";
  def.args = {"args"};
  def.variadic = true;
  def.infer = [](const Call& call, const std::vector<Type>& types) -> Type {
    if (types.empty()) throw TypeError("the callee is missing");
    if (!types[0].as<PackedFuncTypeNode>()) {
      throw TypeError("the callee must be a packed function (a name or an R.ExternFunc), got " +
                      TypeToString(types[0]));
    }
    if (call->sinfo_args.empty()) return MakeObjectType();
    if (call->sinfo_args.size() == 1) return call->sinfo_args[0];
    return ir::MakeTupleType(call->sinfo_args);
  };
  return Define(std::move(def));
}

// shape_of: the shape of a tensor as a value; its dims when the type knows them (TVM's
// InferStructInfoShapeOf). Not legalized: the VM reads it (vm.builtin.shape_of).
OpInfo ShapeOf() {
  OpDef def;
  def.name = "relax.shape_of";
  def.args = {"expr"};
  def.infer = [](const Call&, const std::vector<Type>& types) -> Type {
    const TensorTypeNode* x = TensorArg(types, 0, "the argument");
    if (x->shape) return MakeShapeType(*x->shape);
    return MakeShapeType(x->ndim);
  };
  return Define(std::move(def));
}

// tensor_to_shape: a 1-D int64 tensor's values as a shape, known when it runs (the VM's
// vm.builtin.tensor_to_shape); its rank is the tensor's length when that is static.
OpInfo TensorToShape() {
  OpDef def;
  def.name = "relax.tensor_to_shape";
  def.args = {"expr"};
  def.call_packed = "vm.builtin.tensor_to_shape";
  def.infer = [](const Call&, const std::vector<Type>& types) -> Type {
    const TensorTypeNode* x = TensorArg(types, 0, "the argument");
    if (!x->IsUnknownNdim() && x->ndim != 1) throw TypeError("the argument must be 1-D, got rank " + std::to_string(x->ndim));
    if (!x->IsUnknownDtype() && x->dtype != DataType::Int(64)) {
      throw TypeError("the argument must be int64, got " + x->dtype.ToString());
    }
    std::optional<int64_t> n = x->shape ? AsConstInt((*x->shape)[0]) : std::nullopt;
    return n ? MakeShapeType(*n) : MakeShapeType();
  };
  return Define(std::move(def));
}

// shape_to_tensor: a shape's values as a 1-D int64 tensor of its rank (TVM's
// relax.shape_to_tensor); LegalizeOps writes the values into a kernel when the shape's values
// are known.
OpInfo ShapeToTensor() {
  OpDef def;
  def.name = "relax.shape_to_tensor";
  def.args = {"expr"};
  def.infer = [](const Call&, const std::vector<Type>& types) -> Type {
    auto* s = types[0].as<ShapeTypeNode>();
    if (!s) throw TypeError("the argument must be a shape, got " + TypeToString(types[0]));
    if (s->ndim == kUnknownNDim) return MakeTensorType(DataType::Int(64), 1);
    return MakeTensorType({Int64(s->ndim)}, DataType::Int(64));
  };
  return Define(std::move(def));
}

const OpRegistrar kOps[] = {
    OpRegistrar(ShapeOf()),
    OpRegistrar(TensorToShape()),
    OpRegistrar(ShapeToTensor()),
    OpRegistrar(CallTIR()),
    OpRegistrar(CallTIRInplace()),
    OpRegistrar(CallTIRWithGrad()),
    OpRegistrar(CallDPSPacked()),
    OpRegistrar(CallPurePacked()),
};

}  // namespace
}  // namespace wb::relax
