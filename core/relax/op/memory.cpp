// Explicit memory management (relax.memory.*), produced by the memory-planning passes:
// storages are opaque objects, tensors are allocated inside them at an offset, and kills end
// their lifetimes. Killing is a side effect, so kill_* are impure and stay out of dataflow
// blocks.
#include "relax/op/op_common.h"

namespace wb::relax {
namespace {

using namespace op_common;

void Expect(bool ok, const std::vector<Type>& types, size_t i, const char* what) {
  if (!ok) {
    throw TypeError("the " + Ordinal(i) + " argument must be " + what + ", got " +
                    TypeToString(types[i]));
  }
}

DataType DTypeArg(const Call& call, size_t i) {
  auto* d = call->args[i].as<DataTypeImmNode>();
  if (!d) throw TypeError("the " + Ordinal(i) + " argument must be a dtype (R.dtype(...))");
  return d->value;
}

OpInfo AllocStorage() {
  OpDef def;
  def.name = "relax.memory.alloc_storage";
  def.args = {"size", "virtual_device_index", "storage_scope", "dtype"};
  def.pattern = OpPatternKind::kOpaque;
  def.infer = [](const Call& call, const std::vector<Type>& types) -> Type {
    Expect(types[0].as<ShapeTypeNode>() != nullptr, types, 0, "a shape");
    Expect(types[1].as<PrimTypeNode>() != nullptr, types, 1, "a R.Prim value");
    Expect(call->args[2].as<StringImmNode>() != nullptr, types, 2, "a string");
    DTypeArg(call, 3);
    return MakeObjectType();
  };
  return Define(std::move(def));
}

OpInfo AllocTensor() {
  OpDef def;
  def.name = "relax.memory.alloc_tensor";
  def.args = {"storage", "offset", "shape", "dtype"};
  def.pattern = OpPatternKind::kOpaque;
  def.infer = [](const Call& call, const std::vector<Type>& types) -> Type {
    Expect(types[0].as<ObjectTypeNode>() != nullptr, types, 0, "a storage (R.Object)");
    Expect(types[1].as<PrimTypeNode>() != nullptr, types, 1, "a R.Prim value");
    DataType dtype = DTypeArg(call, 3);
    std::optional<std::vector<PrimExpr>> shape = ShapeArg(call, types, 2);
    if (!shape) return MakeTensorType(dtype, types[2].as<ShapeTypeNode>()->ndim);
    return MakeTensorType(*shape, dtype);
  };
  return Define(std::move(def));
}

// R.builtin.alloc_tensor(shape, dtype, runtime_device_index, storage_scope): a fresh tensor, the
// explicit output allocation that CallTIRRewrite puts before each kernel call.
OpInfo BuiltinAllocTensor() {
  OpDef def;
  def.name = "relax.builtin.alloc_tensor";
  def.args = {"shape", "dtype", "runtime_device_index", "storage_scope"};
  def.optional_args = 2;
  def.pattern = OpPatternKind::kOpaque;
  def.infer = [](const Call& call, const std::vector<Type>& types) -> Type {
    DataType dtype = DTypeArg(call, 1);
    if (types.size() > 2) Expect(types[2].as<PrimTypeNode>() != nullptr, types, 2, "a R.Prim value");
    if (types.size() > 3) Expect(call->args[3].as<StringImmNode>() != nullptr, types, 3, "a string");
    std::optional<std::vector<PrimExpr>> shape = ShapeArg(call, types, 0);
    if (!shape) return MakeTensorType(dtype, types[0].as<ShapeTypeNode>()->ndim);
    return MakeTensorType(*shape, dtype);
  };
  return Define(std::move(def));
}

OpInfo Kill(const char* name, bool tensor) {
  OpDef def;
  def.name = std::string("relax.memory.") + name;
  def.args = {tensor ? "tensor" : "storage"};
  def.pattern = OpPatternKind::kOpaque;
  def.pure = false;
  def.infer = [tensor](const Call&, const std::vector<Type>& types) -> Type {
    if (tensor) {
      TensorArg(types, 0, "the tensor");
    } else {
      Expect(types[0].as<ObjectTypeNode>() != nullptr, types, 0, "a storage (R.Object)");
    }
    return ir::MakeTupleType({});
  };
  return Define(std::move(def));
}

const OpRegistrar kOps[] = {
    OpRegistrar(AllocStorage()),
    OpRegistrar(AllocTensor()),
    OpRegistrar(BuiltinAllocTensor()),
    OpRegistrar(Kill("kill_tensor", true)),
    OpRegistrar(Kill("kill_storage", false)),
};

}  // namespace
}  // namespace wb::relax
