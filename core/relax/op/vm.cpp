// The VM-level ops that TVM's lowering leaves in a Relax function (VMBuiltinLower,
// VMShapeLower, LambdaLift, StaticPlanBlockMemory's lowered form): storage and tensor
// allocation with runtime device indices, object kills, the dynamic kernel call, builtins called
// with the VM context, and closures. They carry no computation of their own: their types are
// what TVM infers, so that TVM's printed modules after those passes parse and print here.
#include "relax/op/op_common.h"

namespace wb::relax {
namespace {

using namespace op_common;

// The result type of a call that states it in ty_args: none gives `none`, one gives it, more
// give their tuple.
Type TyArgsResult(const Call& call, Type none, bool at_most_one) {
  if (call->sinfo_args.empty()) return none;
  if (call->sinfo_args.size() == 1) return call->sinfo_args[0];
  if (at_most_one) throw TypeError("expects at most one ty_args type");
  return ir::MakeTupleType(call->sinfo_args);
}

// R.vm.alloc_storage(size, runtime_device_index, dtype, storage_scope="global").
OpInfo VMAllocStorage() {
  OpDef def;
  def.name = "relax.vm.alloc_storage";
  def.args = {"size", "runtime_device_index", "dtype", "storage_scope"};
  def.optional_args = 1;
  def.default_arg = [](size_t i) -> Expr { return i == 3 ? MakeStringImm("global") : Expr(); };
  def.infer = [](const Call& call, const std::vector<Type>& types) -> Type {
    ExpectArg(types[0].as<ShapeTypeNode>() != nullptr, types, 0, "a shape");
    ExpectArg(types[1].as<PrimTypeNode>() != nullptr, types, 1, "a R.Prim value");
    DTypeArg(call, 2);
    if (types.size() > 3) ExpectArg(call->args[3].as<StringImmNode>() != nullptr, types, 3, "a string");
    return MakeObjectType();
  };
  return Define(std::move(def));
}

// R.vm.alloc_tensor(storage, offset, shape, dtype, runtime_device_index=0).
OpInfo VMAllocTensor() {
  OpDef def;
  def.name = "relax.vm.alloc_tensor";
  def.args = {"storage", "offset", "shape", "dtype", "runtime_device_index"};
  def.optional_args = 1;
  def.default_arg = [](size_t i) -> Expr {
    return i == 4 ? MakePrimValue(tir::MakeIntImm(DataType::Int(64), 0)) : Expr();
  };
  def.infer = [](const Call& call, const std::vector<Type>& types) -> Type {
    ExpectArg(types[1].as<PrimTypeNode>() != nullptr, types, 1, "a R.Prim value");
    DataType dtype = DTypeArg(call, 3);
    std::optional<std::vector<PrimExpr>> shape = ShapeArg(call, types, 2);
    if (!shape) return MakeTensorType(dtype, types[2].as<ShapeTypeNode>()->ndim);
    return MakeTensorType(*shape, dtype);
  };
  return Define(std::move(def));
}

// R.vm.kill_object(obj): ends an object's lifetime (impure, so nothing removes it).
OpInfo VMKillObject() {
  OpDef def;
  def.name = "relax.vm.kill_object";
  def.args = {"obj"};
  def.pure = false;
  def.infer = [](const Call&, const std::vector<Type>&) -> Type { return ir::MakeTupleType({}); };
  return Define(std::move(def));
}

// R.vm.call_tir_dyn(func, (tensors..., shape)): a kernel call whose outputs are among the
// arguments and whose last argument holds the symbolic values; it writes in place (impure).
OpInfo VMCallTIRDyn() {
  OpDef def;
  def.name = "relax.vm.call_tir_dyn";
  def.args = {"func", "args"};
  def.pure = false;
  def.infer = [](const Call&, const std::vector<Type>& types) -> Type {
    ExpectArg(types[1].as<ir::TupleTypeNode>() != nullptr, types, 1, "a tuple of the arguments");
    return ir::MakeTupleType({});
  };
  return Define(std::move(def));
}

// R.call_builtin_with_ctx(func, args, ty_args=...): a VM builtin that also receives the VM's
// context; void unless ty_args states the result. TVM counts it impure.
OpInfo CallBuiltinWithCtx() {
  OpDef def;
  def.name = "relax.call_builtin_with_ctx";
  def.args = {"func", "args"};
  def.ty_args = true;
  def.pure = false;
  def.infer = [](const Call& call, const std::vector<Type>& types) -> Type {
    ExpectArg(types[1].as<ir::TupleTypeNode>() != nullptr, types, 1, "a tuple of the arguments");
    return TyArgsResult(call, ir::MakeTupleType({}), true);
  };
  return Define(std::move(def));
}

// R.make_closure(func, captured): a VM closure of a lifted function (R.Any).
OpInfo MakeClosure() {
  OpDef def;
  def.name = "relax.make_closure";
  def.args = {"func", "args"};
  def.infer = [](const Call&, const std::vector<Type>& types) -> Type {
    ExpectArg(types[1].as<ir::TupleTypeNode>() != nullptr, types, 1, "a tuple of the captured values");
    return MakeObjectType();
  };
  return Define(std::move(def));
}

// R.invoke_closure / R.invoke_pure_closure(closure, args, ty_args=...).
OpInfo InvokeClosure(const char* name, bool pure) {
  OpDef def;
  def.name = name;
  def.args = {"closure", "args"};
  def.ty_args = true;
  def.pure = pure;
  def.infer = [](const Call& call, const std::vector<Type>& types) -> Type {
    ExpectArg(types[1].as<ir::TupleTypeNode>() != nullptr, types, 1, "a tuple of the arguments");
    return TyArgsResult(call, MakeObjectType(), false);
  };
  return Define(std::move(def));
}

const OpRegistrar kOps[] = {
    OpRegistrar(VMAllocStorage()),
    OpRegistrar(VMAllocTensor()),
    OpRegistrar(VMKillObject()),
    OpRegistrar(VMCallTIRDyn()),
    OpRegistrar(CallBuiltinWithCtx()),
    OpRegistrar(MakeClosure()),
    OpRegistrar(InvokeClosure("relax.invoke_closure", false)),
    OpRegistrar(InvokeClosure("relax.invoke_pure_closure", true)),
};

}  // namespace
}  // namespace wb::relax
