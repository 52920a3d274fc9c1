// Explicit memory management (relax.memory.*), produced by the memory-planning passes:
// storages are opaque objects, tensors are allocated inside them at an offset, and kills end
// their lifetimes. Killing is a side effect, so kill_* are impure and stay out of dataflow
// blocks. R.memory.view reinterprets a tensor's bytes (another shape, dtype or byte offset)
// without copying; R.null_value is the value that stands for an omitted optional argument.
#include "relax/op/op_common.h"

namespace wb::relax {
namespace {

using namespace op_common;

OpInfo AllocStorage() {
  OpDef def;
  def.name = "relax.memory.alloc_storage";
  def.args = {"size", "virtual_device_index", "storage_scope", "dtype"};
  def.pattern = OpPatternKind::kOpaque;
  def.infer = [](const Call& call, const std::vector<Type>& types) -> Type {
    ExpectArg(types[0].as<ShapeTypeNode>() != nullptr, types, 0, "a shape");
    ExpectArg(types[1].as<PrimTypeNode>() != nullptr, types, 1, "a R.Prim value");
    ExpectArg(call->args[2].as<StringImmNode>() != nullptr, types, 2, "a string");
    DTypeArg(call, 3);
    return MakeObjectType();
  };
  return Define(std::move(def));
}

OpInfo AllocTensor() {
  OpDef def;
  def.name = "relax.memory.alloc_tensor";
  // TVM's runtime_device_index (0 when left out); the tensor's type does not depend on it.
  def.args = {"storage", "offset", "shape", "dtype", "runtime_device_index"};
  def.optional_args = 1;
  def.pattern = OpPatternKind::kOpaque;
  def.infer = [](const Call& call, const std::vector<Type>& types) -> Type {
    ExpectArg(types[0].as<ObjectTypeNode>() != nullptr, types, 0, "a storage (R.Object)");
    ExpectArg(types[1].as<PrimTypeNode>() != nullptr, types, 1, "a R.Prim value");
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
    if (types.size() > 2) ExpectArg(types[2].as<PrimTypeNode>() != nullptr, types, 2, "a R.Prim value");
    if (types.size() > 3) ExpectArg(call->args[3].as<StringImmNode>() != nullptr, types, 3, "a string");
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
      ExpectArg(types[0].as<ObjectTypeNode>() != nullptr, types, 0, "a storage (R.Object)");
    }
    return ir::MakeTupleType({});
  };
  return Define(std::move(def));
}

bool IsVoid(const Type& t) {
  auto* tuple = t.as<ir::TupleTypeNode>();
  return tuple && tuple->fields.empty();
}

bool IsNullValue(const Expr& e) {
  auto* c = e.as<CallNode>();
  auto* op = c ? c->op.as<ir::OpNode>() : nullptr;
  return op && op->name == "relax.null_value";
}

std::string TensorText(const std::optional<std::vector<PrimExpr>>& shape, DataType dtype) {
  return "R.Tensor(" + (shape ? ShapeText(*shape) + ", " : std::string()) + "\"" +
         dtype.ToString() + "\")";
}

// TVM's R.memory.view(x, shape, dtype, relative_byte_offset): an omitted shape or offset is the
// empty tuple and an omitted dtype is R.null_value(), which all mean "as x". A view never
// reaches past the bytes of x; a bound that is known to be exceeded is an error.
OpInfo View() {
  OpDef def;
  def.name = "relax.memory.view";
  def.args = {"data", "shape", "dtype", "relative_byte_offset"};
  def.optional_args = 3;
  def.default_arg = [](size_t i) -> Expr {
    if (i == 2) return MakeCall(GetOp("relax.null_value"), {});
    return MakeTuple({});
  };
  def.pattern = OpPatternKind::kOpaque;
  def.infer = [](const Call& call, const std::vector<Type>& types) -> Type {
    if (types.size() != 4) throw TypeError("expects 4 arguments (data, shape, dtype, relative_byte_offset)");
    const TensorTypeNode* data = TensorArg(types, 0, "the data");
    const ShapeTypeNode* view_shape = nullptr;
    if (!IsVoid(types[1])) {
      view_shape = types[1].as<ShapeTypeNode>();
      if (!view_shape) {
        throw TypeError("the shape must be a shape (R.shape([...])) or the empty tuple, got " +
                        TypeToString(types[1]));
      }
    }
    bool dtype_given = false;
    DataType view_dtype = DataType::Void();
    const Expr& dtype_arg = call->args[2];
    if (!IsVoid(types[2]) && !IsNullValue(dtype_arg)) {
      dtype_given = true;
      if (auto* imm = dtype_arg.as<DataTypeImmNode>()) {
        if (imm->value.is_void()) {
          throw TypeError("the dtype must be a concrete dtype, not void (omit it to keep the data's)");
        }
        view_dtype = imm->value;
      } else if (!types[2].as<ObjectTypeNode>()) {
        throw TypeError("the dtype must be a dtype (R.dtype(...)), got " + TypeToString(types[2]));
      }
    }
    std::optional<PrimExpr> offset = Int64(0);
    if (!IsVoid(types[3])) {
      auto* prim = types[3].as<PrimTypeNode>();
      if (!prim || prim->dtype != DataType::Int(64)) {
        throw TypeError("the relative_byte_offset must be an int64 value, got " + TypeToString(types[3]));
      }
      auto* pv = call->args[3].as<PrimValueNode>();
      offset = pv ? std::optional<PrimExpr>(pv->value) : std::nullopt;
    }
    std::optional<std::vector<PrimExpr>> out_shape;
    int64_t out_ndim = kUnknownNDim;
    if (view_shape && view_shape->values) out_shape = view_shape->values;
    else if (view_shape) out_ndim = view_shape->ndim;
    else if (data->shape) out_shape = data->shape;
    else out_ndim = data->ndim;
    DataType out_dtype = dtype_given ? view_dtype : data->dtype;
    // The byte bounds, where they are constants.
    auto count = [](const std::optional<std::vector<PrimExpr>>& shape) -> std::optional<int64_t> {
      if (!shape) return std::nullopt;
      return AsConstInt(Product(*shape));
    };
    auto bytes = [](DataType t) -> std::optional<int64_t> {
      if (t.is_void()) return std::nullopt;
      return (int64_t(t.bits()) * t.lanes() + 7) / 8;
    };
    std::optional<int64_t> in_n = count(data->shape), out_n = count(out_shape);
    std::optional<int64_t> in_b = bytes(data->dtype), out_b = bytes(out_dtype);
    std::optional<int64_t> off = offset ? AsConstInt(*offset) : std::nullopt;
    if (in_n && out_n && in_b && out_b) {
      int64_t end = *out_n * *out_b + off.value_or(0);
      if (end > *in_n * *in_b) {
        throw TypeError("the view " + TensorText(out_shape, out_dtype) +
                        (off && *off ? " at byte offset " + std::to_string(*off) : std::string()) +
                        " ends at byte " + std::to_string(end) + ", past the " +
                        std::to_string(*in_n * *in_b) + " bytes of the data " +
                        TensorText(data->shape, data->dtype));
      }
    } else if (in_b && out_b && !view_shape && *out_b > *in_b) {
      throw TypeError("changing the dtype from " + data->dtype.ToString() + " to " +
                      out_dtype.ToString() + " without a new shape makes the view larger than "
                      "the data; give the view's shape");
    } else if (in_n && out_n && !dtype_given && *out_n > *in_n) {
      throw TypeError("the view has " + std::to_string(*out_n) + " elements, more than the " +
                      std::to_string(*in_n) + " of the data");
    } else if (off && *off > 0 && !view_shape && !dtype_given) {
      throw TypeError("a byte offset of " + std::to_string(*off) +
                      " without a smaller shape or dtype reaches past the data");
    }
    TensorType out = out_shape ? MakeTensorType(*out_shape, out_dtype) : MakeTensorType(out_dtype, out_ndim);
    return WithVDevice(out, data->vdevice);
  };
  return Define(std::move(def));
}

// R.memory.ensure_zero_offset(x): x, copied when its byte offset is not zero.
OpInfo EnsureZeroOffset() {
  OpDef def;
  def.name = "relax.memory.ensure_zero_offset";
  def.args = {"data"};
  def.pattern = OpPatternKind::kOpaque;
  def.infer = [](const Call&, const std::vector<Type>& types) -> Type {
    TensorArg(types, 0, "the data");
    return types[0];
  };
  return Define(std::move(def));
}

// R.null_value(): a null object (R.Any).
OpInfo NullValue() {
  OpDef def;
  def.name = "relax.null_value";
  def.pattern = OpPatternKind::kOpaque;
  def.infer = [](const Call&, const std::vector<Type>&) -> Type { return MakeObjectType(); };
  return Define(std::move(def));
}

const OpRegistrar kOps[] = {
    OpRegistrar(AllocStorage()),
    OpRegistrar(AllocTensor()),
    OpRegistrar(BuiltinAllocTensor()),
    OpRegistrar(Kill("kill_tensor", true)),
    OpRegistrar(Kill("kill_storage", false)),
    OpRegistrar(NullValue()),
    OpRegistrar(View()),
    OpRegistrar(EnsureZeroOffset()),
};

}  // namespace
}  // namespace wb::relax
