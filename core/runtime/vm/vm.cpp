#include "runtime/vm/vm.h"

#include <algorithm>
#include <chrono>
#include <cstdio>

#include "runtime/ndarray_device.h"
#include "runtime/nonzero.h"
#include "runtime/packed_func.h"
#include "runtime/text_format.h"

namespace wb::runtime::vm {

namespace {

constexpr int kMaxCallDepth = 256;

int64_t AsInt(const Value& v, const char* what) {
  if (v.kind == Value::Kind::kInt) return v.int_value;
  throw VMError(std::string(what) + ": expected an integer, got " + v.Describe());
}

const std::string& AsString(const Value& v, const char* what) {
  if (v.kind == Value::Kind::kString) return v.string_value;
  throw VMError(std::string(what) + ": expected a string, got " + v.Describe());
}

std::vector<int64_t>& AsHeap(const Value& v, const char* what) {
  if (v.kind == Value::Kind::kShapeHeap && v.heap) return *v.heap;
  throw VMError(std::string(what) + ": expected the shape heap, got " + v.Describe());
}

void CheckArgCount(const std::vector<Value>& args, size_t at_least, const char* what) {
  if (args.size() < at_least) {
    throw VMError(std::string(what) + ": expected at least " + std::to_string(at_least) +
                  " arguments, got " + std::to_string(args.size()));
  }
}

// check_tensor_info(value, ndim (-1: any), dtype ("": any), error context).
Value CheckTensorInfo(std::vector<Value>& args) {
  CheckArgCount(args, 4, "vm.builtin.check_tensor_info");
  const std::string& ctx = AsString(args[3], "vm.builtin.check_tensor_info");
  const Value& v = args[0];
  if (v.kind != Value::Kind::kTensor) throw VMError(ctx + ": expected a tensor, got " + v.Describe());
  int64_t ndim = AsInt(args[1], "vm.builtin.check_tensor_info");
  if (ndim >= 0 && v.tensor.ndim() != ndim) {
    throw VMError(ctx + ": expected a tensor of rank " + std::to_string(ndim) + ", got " + v.Describe());
  }
  const std::string& dtype = AsString(args[2], "vm.builtin.check_tensor_info");
  if (!dtype.empty() && DTypeToString(v.tensor.dtype()) != dtype) {
    throw VMError(ctx + ": expected dtype " + dtype + ", got " + v.Describe());
  }
  return {};
}

// check_shape_info(value, ndim (-1: any), error context).
Value CheckShapeInfo(std::vector<Value>& args) {
  CheckArgCount(args, 3, "vm.builtin.check_shape_info");
  const std::string& ctx = AsString(args[2], "vm.builtin.check_shape_info");
  const Value& v = args[0];
  if (v.kind != Value::Kind::kShape) throw VMError(ctx + ": expected a shape, got " + v.Describe());
  int64_t ndim = AsInt(args[1], "vm.builtin.check_shape_info");
  if (ndim >= 0 && static_cast<int64_t>(v.shape.size()) != ndim) {
    throw VMError(ctx + ": expected a shape of " + std::to_string(ndim) + " dims, got " + v.Describe());
  }
  return {};
}

// check_tuple_info(value, size, error context).
Value CheckTupleInfo(std::vector<Value>& args) {
  CheckArgCount(args, 3, "vm.builtin.check_tuple_info");
  const std::string& ctx = AsString(args[2], "vm.builtin.check_tuple_info");
  const Value& v = args[0];
  int64_t size = AsInt(args[1], "vm.builtin.check_tuple_info");
  if (v.kind != Value::Kind::kTuple || static_cast<int64_t>(v.fields.size()) != size) {
    throw VMError(ctx + ": expected a tuple of " + std::to_string(size) + ", got " + v.Describe());
  }
  return {};
}

const std::vector<int64_t>& AsProgram(const Value& v, const char* what) {
  if (v.kind == Value::Kind::kShape) return v.shape;
  throw VMError(std::string(what) + ": expected a shape program, got " + v.Describe());
}

// match_shape(tensor or shape, heap, ndim, (code, value) per dim..., error context): checks dims
// against immediates or earlier-bound symbolic vars and stores first uses into the heap.
Value MatchShape(std::vector<Value>& args) {
  CheckArgCount(args, 4, "vm.builtin.match_shape");
  const std::string& ctx = AsString(args.back(), "vm.builtin.match_shape");
  const Value& v = args[0];
  const std::vector<int64_t>* dims = nullptr;
  if (v.kind == Value::Kind::kTensor) dims = &v.tensor.shape();
  if (v.kind == Value::Kind::kShape) dims = &v.shape;
  if (!dims) throw VMError(ctx + ": expected a tensor or shape, got " + v.Describe());
  std::vector<int64_t>& heap = AsHeap(args[1], "vm.builtin.match_shape");
  int64_t ndim = AsInt(args[2], "vm.builtin.match_shape");
  if (static_cast<int64_t>(args.size()) != 4 + 2 * ndim) {
    throw VMError("vm.builtin.match_shape: malformed call (" + std::to_string(args.size()) + " arguments for " +
                  std::to_string(ndim) + " dims)");
  }
  if (static_cast<int64_t>(dims->size()) != ndim) {
    throw VMError(ctx + ": expected " + std::to_string(ndim) + " dims, got " + v.Describe());
  }
  for (int64_t i = 0; i < ndim; ++i) {
    int64_t code = AsInt(args[3 + 2 * i], "vm.builtin.match_shape");
    int64_t actual = (*dims)[i];
    if (code == kAssertEqualToProgram) {
      int64_t expected = EvalShapeProgram(AsProgram(args[4 + 2 * i], "vm.builtin.match_shape"), heap);
      if (actual != expected) {
        throw VMError(ctx + ": dim " + std::to_string(i) + " is " + std::to_string(actual) + ", expected " +
                      std::to_string(expected) + " from the other dims (got " + v.Describe() + ")");
      }
      continue;
    }
    int64_t value = AsInt(args[4 + 2 * i], "vm.builtin.match_shape");
    switch (code) {
      case kAssertEqualToImm:
        if (actual != value) {
          throw VMError(ctx + ": dim " + std::to_string(i) + " is " + std::to_string(actual) + ", expected " +
                        std::to_string(value) + " (got " + v.Describe() + ")");
        }
        break;
      case kStoreToHeap: heap.at(value) = actual; break;
      case kNoOp: break;
      case kAssertEqualToLoad:
        if (actual != heap.at(value)) {
          throw VMError(ctx + ": dim " + std::to_string(i) + " is " + std::to_string(actual) +
                        ", but the same symbolic var is " + std::to_string(heap.at(value)) +
                        " elsewhere (got " + v.Describe() + ")");
        }
        break;
      default: throw VMError("vm.builtin.match_shape: unknown code " + std::to_string(code));
    }
  }
  return {};
}

// make_shape(heap, ndim, (code, value) per dim...).
Value MakeShape(std::vector<Value>& args) {
  CheckArgCount(args, 2, "vm.builtin.make_shape");
  std::vector<int64_t>& heap = AsHeap(args[0], "vm.builtin.make_shape");
  int64_t ndim = AsInt(args[1], "vm.builtin.make_shape");
  if (static_cast<int64_t>(args.size()) != 2 + 2 * ndim) throw VMError("vm.builtin.make_shape: malformed call");
  std::vector<int64_t> dims;
  for (int64_t i = 0; i < ndim; ++i) {
    int64_t code = AsInt(args[2 + 2 * i], "vm.builtin.make_shape");
    if (code == kEvalProgram) {
      dims.push_back(EvalShapeProgram(AsProgram(args[3 + 2 * i], "vm.builtin.make_shape"), heap));
      continue;
    }
    int64_t value = AsInt(args[3 + 2 * i], "vm.builtin.make_shape");
    dims.push_back(code == kLoadShape ? heap.at(value) : value);
  }
  return Value::Shape(std::move(dims));
}

// eval_prim(heap, program): a symbolic scalar (R.prim_value(n + 1), a kernel's tir_vars).
Value EvalPrim(std::vector<Value>& args) {
  CheckArgCount(args, 2, "vm.builtin.eval_prim");
  return Value::Int(EvalShapeProgram(AsProgram(args[1], "vm.builtin.eval_prim"), AsHeap(args[0], "vm.builtin.eval_prim")));
}

Value AllocShapeHeap(std::vector<Value>& args) {
  CheckArgCount(args, 1, "vm.builtin.alloc_shape_heap");
  Value v;
  v.kind = Value::Kind::kShapeHeap;
  v.heap = std::make_shared<std::vector<int64_t>>(AsInt(args[0], "vm.builtin.alloc_shape_heap"), 0);
  return v;
}

// alloc_tensor(shape, dtype string), on `device`.
Value AllocTensorOn(std::vector<Value>& args, DLDevice device) {
  CheckArgCount(args, 2, "vm.builtin.alloc_tensor");
  if (args[0].kind != Value::Kind::kShape) {
    throw VMError("vm.builtin.alloc_tensor: expected a shape, got " + args[0].Describe());
  }
  const std::string& text = AsString(args[1], "vm.builtin.alloc_tensor");
  auto dtype = DTypeFromString(text);
  if (!dtype) throw VMError("vm.builtin.alloc_tensor: unknown dtype '" + text + "'");
  for (int64_t d : args[0].shape) {
    if (d < 0) throw VMError("vm.builtin.alloc_tensor: negative dim in " + args[0].Describe());
  }
  return Value::Tensor(NDArray::Empty(args[0].shape, *dtype, device));
}

Value AllocTensor(std::vector<Value>& args) { return AllocTensorOn(args, CPU()); }

// alloc_storage(size shape (bytes, 1-D), dtype string): a block of memory that tensors are then
// placed in (relax.memory.alloc_storage, what memory planning emits), on `device`. Zero-filled.
Value AllocStorageOn(std::vector<Value>& args, DLDevice device) {
  CheckArgCount(args, 1, "vm.builtin.alloc_storage");
  const Value& size = args[0];
  if (size.kind != Value::Kind::kShape || size.shape.size() != 1 || size.shape[0] < 0) {
    throw VMError("vm.builtin.alloc_storage: expected a 1-D shape of bytes, got " + size.Describe());
  }
  Value v;
  v.kind = Value::Kind::kStorage;
  v.tensor = NDArray::Empty({size.shape[0]}, UInt(8), device);
  return v;
}

Value AllocStorage(std::vector<Value>& args) { return AllocStorageOn(args, CPU()); }

// alloc_tensor_from_storage(storage, byte offset, shape, dtype string): a tensor placed in the
// storage's memory (sharing it), as relax.memory.alloc_tensor.
Value AllocTensorFromStorage(std::vector<Value>& args) {
  CheckArgCount(args, 4, "vm.builtin.alloc_tensor_from_storage");
  const Value& storage = args[0];
  if (storage.kind != Value::Kind::kStorage) {
    throw VMError("vm.builtin.alloc_tensor_from_storage: expected a storage, got " + storage.Describe());
  }
  int64_t offset = AsInt(args[1], "vm.builtin.alloc_tensor_from_storage");
  if (args[2].kind != Value::Kind::kShape) {
    throw VMError("vm.builtin.alloc_tensor_from_storage: expected a shape, got " + args[2].Describe());
  }
  const std::string& text = AsString(args[3], "vm.builtin.alloc_tensor_from_storage");
  auto dtype = DTypeFromString(text);
  if (!dtype) throw VMError("vm.builtin.alloc_tensor_from_storage: unknown dtype '" + text + "'");
  int64_t elements = 1;
  for (int64_t d : args[2].shape) {
    if (d < 0) throw VMError("vm.builtin.alloc_tensor_from_storage: negative dim in " + args[2].Describe());
    elements *= d;
  }
  int64_t bytes = elements * dtype->ElementBytes();
  int64_t capacity = storage.tensor.shape()[0];
  if (offset < 0 || offset + bytes > capacity) {
    throw VMError("vm.builtin.alloc_tensor_from_storage: " + std::to_string(bytes) + " bytes at offset " +
                  std::to_string(offset) + " do not fit in a storage of " + std::to_string(capacity) + " bytes");
  }
  // NDArray::View keeps the base's dtype (uint8, so its bounds check is weaker than the one
  // above); the view is then retyped. The offset goes into the data pointer, as TVM's CPU
  // allocator does, since generated kernels require byte_offset 0.
  NDArray typed = NDArray::View(storage.tensor, args[2].shape, {}, 0);
  typed.mutable_tensor()->dtype = *dtype;
  typed.mutable_tensor()->data = storage.tensor.ElementData() + offset;
  return Value::Tensor(typed);
}

Value NullValue(std::vector<Value>&) { return {}; }

Value MakeTuple(std::vector<Value>& args) { return Value::Tuple(args); }

Value TupleGetItem(std::vector<Value>& args) {
  CheckArgCount(args, 2, "vm.builtin.tuple_getitem");
  if (args[0].kind != Value::Kind::kTuple) {
    throw VMError("vm.builtin.tuple_getitem: expected a tuple, got " + args[0].Describe());
  }
  int64_t i = AsInt(args[1], "vm.builtin.tuple_getitem");
  if (i < 0 || i >= static_cast<int64_t>(args[0].fields.size())) {
    throw VMError("vm.builtin.tuple_getitem: index " + std::to_string(i) + " out of range for " + args[0].Describe());
  }
  return args[0].fields[i];
}

Value ShapeOf(std::vector<Value>& args) {
  CheckArgCount(args, 1, "vm.builtin.shape_of");
  if (args[0].kind != Value::Kind::kTensor) throw VMError("vm.builtin.shape_of: expected a tensor, got " + args[0].Describe());
  return Value::Shape(args[0].tensor.shape());
}

Value Copy(std::vector<Value>& args) {
  CheckArgCount(args, 1, "vm.builtin.copy");
  return args[0];
}

// The condition of an If: an integer, or a scalar (rank-0 or one-element) tensor.
Value ReadIfCond(std::vector<Value>& args) {
  CheckArgCount(args, 1, "vm.builtin.read_if_cond");
  const Value& v = args[0];
  if (v.kind == Value::Kind::kInt) return Value::Int(v.int_value != 0);
  if (v.kind == Value::Kind::kTensor && v.tensor.NumElements() == 1) {
    // A condition computed on a device is read on the host.
    const NDArray c = v.tensor.is_cpu() ? v.tensor : v.tensor.CopyTo(CPU());
    return Value::Int(c.dtype().is_float() ? c.GetDouble(0) != 0 : c.GetInt(0) != 0);
  }
  throw VMError("If condition must be a scalar, got " + v.Describe());
}

}  // namespace

int64_t EvalShapeProgram(const std::vector<int64_t>& program, const std::vector<int64_t>& heap) {
  std::vector<int64_t> stack;
  auto pop = [&]() {
    if (stack.empty()) throw VMError("malformed shape program (stack underflow)");
    int64_t v = stack.back();
    stack.pop_back();
    return v;
  };
  auto floordiv = [](int64_t a, int64_t b) {
    if (b == 0) throw VMError("division by zero in a symbolic shape");
    int64_t q = a / b;
    return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
  };
  for (size_t pc = 0; pc < program.size(); ++pc) {
    int64_t op = program[pc];
    if (op == kPushImm || op == kPushHeap) {
      if (pc + 1 >= program.size()) throw VMError("malformed shape program (missing operand)");
      int64_t operand = program[++pc];
      stack.push_back(op == kPushImm ? operand : heap.at(operand));
      continue;
    }
    int64_t b = pop();
    int64_t a = pop();
    switch (op) {
      case kProgAdd: stack.push_back(a + b); break;
      case kProgSub: stack.push_back(a - b); break;
      case kProgMul: stack.push_back(a * b); break;
      case kProgFloorDiv: stack.push_back(floordiv(a, b)); break;
      case kProgFloorMod: stack.push_back(a - floordiv(a, b) * b); break;
      case kProgMin: stack.push_back(std::min(a, b)); break;
      case kProgMax: stack.push_back(std::max(a, b)); break;
      case kProgEQ: stack.push_back(a == b); break;
      case kProgNE: stack.push_back(a != b); break;
      case kProgLT: stack.push_back(a < b); break;
      case kProgLE: stack.push_back(a <= b); break;
      case kProgGT: stack.push_back(a > b); break;
      case kProgGE: stack.push_back(a >= b); break;
      default: throw VMError("malformed shape program (opcode " + std::to_string(op) + ")");
    }
  }
  if (stack.size() != 1) throw VMError("malformed shape program (" + std::to_string(stack.size()) + " results)");
  return stack.back();
}

// A value as relax.run.print shows it (TVM's render_object): tensors as nested lists, tuples and
// shapes in parentheses.
std::string Render(const Value& v) {
  switch (v.kind) {
    case Value::Kind::kTensor: return ElementsText(v.tensor);
    case Value::Kind::kInt: return std::to_string(v.int_value);
    case Value::Kind::kFloat: {
      char text[40];
      std::snprintf(text, sizeof(text), "%.8g", v.float_value);
      return text;
    }
    case Value::Kind::kString: return v.string_value;
    case Value::Kind::kShape:
    case Value::Kind::kTuple: {
      std::string out;
      size_t n = v.kind == Value::Kind::kShape ? v.shape.size() : v.fields.size();
      for (size_t i = 0; i < n; ++i) {
        out += (i ? ", " : "") + (v.kind == Value::Kind::kShape ? std::to_string(v.shape[i]) : Render(v.fields[i]));
      }
      return "(" + out + (n == 1 ? ",)" : ")");
    }
    default: return v.Describe();
  }
}

// The message of print(format, values...) and assert_op(condition, format, values...).
std::string FormatMessage(const std::vector<Value>& args, size_t format_index, const char* what) {
  CheckArgCount(args, format_index + 1, what);
  const std::string& format = AsString(args[format_index], what);
  std::vector<std::string> texts;
  for (size_t i = format_index + 1; i < args.size(); ++i) texts.push_back(Render(args[i]));
  std::string error;
  std::optional<std::string> text = PythonFormat(format, texts, &error);
  if (!text) throw VMError(std::string(what) + ": " + error);
  if (format.empty() && texts.empty() && format_index == 1) return "Assertion Failed";
  return *text;
}

Value Print(std::vector<Value>& args) {
  std::string text = FormatMessage(args, 0, "relax.run.print");
  std::printf("%s\n", text.c_str());
  std::fflush(stdout);
  return Value::Tuple({});
}

Value AssertOp(std::vector<Value>& args) {
  CheckArgCount(args, 2, "relax.run.assert_op");
  const Value& cond = args[0];
  bool holds = false;
  if (cond.kind == Value::Kind::kInt) {
    holds = cond.int_value != 0;
  } else if (cond.kind == Value::Kind::kTensor && cond.tensor.shape().empty() && cond.tensor.dtype().code == kDLBool) {
    NDArray host = cond.tensor.is_cpu() ? cond.tensor : cond.tensor.CopyTo(CPU());
    holds = host.GetInt(0) != 0;
  } else {
    throw VMError("R.assert_op: the condition must be a boolean scalar, got " + cond.Describe());
  }
  if (!holds) throw VMError("R.assert_op: " + FormatMessage(args, 1, "relax.run.assert_op"));
  return Value::Tuple({});
}

// A 1-D integer tensor's values as a shape (relax.tensor_to_shape).
Value TensorToShape(std::vector<Value>& args) {
  CheckArgCount(args, 1, "vm.builtin.tensor_to_shape");
  if (args[0].kind != Value::Kind::kTensor || args[0].tensor.shape().size() != 1) {
    throw VMError("vm.builtin.tensor_to_shape: the argument must be a 1-D tensor, got " + args[0].Describe());
  }
  NDArray x = args[0].tensor.is_cpu() ? args[0].tensor : args[0].tensor.CopyTo(CPU());
  std::vector<int64_t> dims;
  for (int64_t i = 0; i < x.NumElements(); ++i) dims.push_back(x.GetInt(i));
  return Value::Shape(std::move(dims));
}

Value NonZeroOf(std::vector<Value>& args) {
  CheckArgCount(args, 1, "relax.run.nonzero");
  if (args[0].kind != Value::Kind::kTensor) {
    throw VMError("relax.run.nonzero: the argument must be a tensor, got " + args[0].Describe());
  }
  const NDArray& x = args[0].tensor;
  NDArray out = NonZero(x.is_cpu() ? x : x.CopyTo(CPU()));
  return Value::Tensor(x.is_cpu() ? out : out.CopyTo(x.device()));
}

const std::map<std::string, Builtin>& Builtins() {
  static const std::map<std::string, Builtin> table = {
      {"vm.builtin.alloc_shape_heap", AllocShapeHeap}, {"vm.builtin.check_tensor_info", CheckTensorInfo},
      {"vm.builtin.check_shape_info", CheckShapeInfo}, {"vm.builtin.check_tuple_info", CheckTupleInfo},
      {"vm.builtin.match_shape", MatchShape},          {"vm.builtin.make_shape", MakeShape},
      {"vm.builtin.alloc_tensor", AllocTensor},        {"vm.builtin.tuple", MakeTuple},
      {"vm.builtin.tuple_getitem", TupleGetItem},      {"vm.builtin.shape_of", ShapeOf},
      {"vm.builtin.copy", Copy},                       {"vm.builtin.read_if_cond", ReadIfCond},
      {"vm.builtin.eval_prim", EvalPrim},              {"vm.builtin.alloc_storage", AllocStorage},
      {"vm.builtin.alloc_tensor_from_storage", AllocTensorFromStorage},
      {"vm.builtin.null_value", NullValue},
      {"relax.run.print", Print},                      {"relax.run.assert_op", AssertOp},
      {"relax.run.nonzero", NonZeroOf},                {"vm.builtin.tensor_to_shape", TensorToShape},
  };
  return table;
}

Value VMClosure::operator()(std::vector<Value> args) const { return vm_->Invoke(name_, std::move(args)); }

Builtin DeviceBuiltin(const std::string& name, DLDevice device) {
  if (name == "vm.builtin.alloc_tensor") return [device](std::vector<Value>& a) { return AllocTensorOn(a, device); };
  if (name == "vm.builtin.alloc_storage") return [device](std::vector<Value>& a) { return AllocStorageOn(a, device); };
  return nullptr;
}

VirtualMachine::VirtualMachine(std::shared_ptr<const Executable> exec, Module kernels, DLDevice device)
    : exec_(std::move(exec)), kernels_(std::move(kernels)), device_(device), resolved_(exec_->func_table.size()),
      is_kernel_(exec_->func_table.size(), 0) {}

Value VirtualMachine::OnDevice(Value v) const {
  if (device_.device_type == kDLCPU) return v;
  if (v.kind == Value::Kind::kTensor && v.tensor.defined() && v.tensor.is_cpu()) {
    v.tensor = v.tensor.CopyTo(device_);
  } else if (v.kind == Value::Kind::kTuple) {
    for (Value& field : v.fields) field = OnDevice(std::move(field));
  }
  return v;
}

const Value& VirtualMachine::Constant(int64_t index) {
  const Value& host = exec_->constants.at(index);
  if (device_.device_type == kDLCPU) return host;
  auto it = device_constants_.find(index);
  if (it == device_constants_.end()) it = device_constants_.emplace(index, OnDevice(host)).first;
  return it->second;
}

Value VirtualMachine::Invoke(const std::string& name, std::vector<Value> args) {
  int64_t idx = exec_->FindFunction(name);
  if (idx < 0 || exec_->func_table[idx].kind != FuncEntry::Kind::kVMFunc) {
    throw VMError("the executable has no function '" + name + "'");
  }
  for (Value& a : args) a = OnDevice(std::move(a));
  return RunFunction(idx, std::move(args), 0);
}

Value VirtualMachine::CallPacked(int64_t func_idx, std::vector<Value>& args) {
  Builtin& fn = resolved_.at(func_idx);
  if (!fn) {
    const std::string& name = exec_->func_table[func_idx].name;
    auto it = Builtins().find(name);
    if (Builtin on_device = device_.device_type == kDLCPU ? nullptr : DeviceBuiltin(name, device_)) {
      fn = std::move(on_device);
    } else if (it != Builtins().end()) {
      fn = it->second;
    } else {
      PackedFunc kernel = kernels_.get_function(name);
      if (!kernel.defined()) throw VMError("no builtin or kernel named '" + name + "'");
      is_kernel_[func_idx] = 1;
      // Kernels take tensors as DLTensor*, integers and floats; they write their outputs in place.
      fn = [kernel, name](std::vector<Value>& a) -> Value {
        // Reused from call to call on this thread (a kernel does not call back into a VM).
        thread_local std::vector<PackedArg> packed;
        packed.clear();
        for (const Value& v : a) {
          switch (v.kind) {
            case Value::Kind::kTensor: packed.emplace_back(v.tensor); break;
            case Value::Kind::kInt: packed.emplace_back(v.int_value); break;
            case Value::Kind::kFloat: packed.emplace_back(v.float_value); break;
            default: throw VMError("kernel '" + name + "' cannot take " + v.Describe());
          }
        }
        try {
          kernel.Call(packed);
        } catch (const Error& e) {
          throw VMError("kernel '" + name + "' failed: " + e.what());
        }
        return {};
      };
    }
  }
  if (!profile_) return fn(args);
  if (profile_slot_.size() != resolved_.size()) profile_slot_.assign(resolved_.size(), -1);
  int64_t& slot = profile_slot_[func_idx];
  if (slot < 0) {
    slot = static_cast<int64_t>(profile_->entries.size());
    profile_->entries.push_back({exec_->func_table[func_idx].name, is_kernel_[func_idx] != 0, 0, 0});
  }
  const auto start = std::chrono::steady_clock::now();
  Value result = fn(args);
  if (device_.device_type != kDLCPU) DeviceAPI::Get(device_)->StreamSync(device_.device_id);
  CallProfile::Entry& entry = profile_->entries[slot];
  entry.seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  ++entry.calls;
  return result;
}

Value VirtualMachine::RunFunction(int64_t func_idx, std::vector<Value> args, int depth) {
  const FuncEntry& f = exec_->func_table.at(func_idx);
  if (depth > kMaxCallDepth) throw VMError("call depth above " + std::to_string(kMaxCallDepth) + " in '" + f.name + "'");
  if (static_cast<int64_t>(args.size()) != f.num_args) {
    throw VMError(f.name + ": expected " + std::to_string(f.num_args) + " arguments, got " + std::to_string(args.size()));
  }
  std::vector<Value> regs(f.register_file_size);
  for (size_t i = 0; i < args.size(); ++i) regs[i] = std::move(args[i]);
  auto load = [&](const InstrArg& a) -> Value {
    switch (a.kind) {
      case InstrArg::Kind::kRegister: return regs.at(a.value);
      case InstrArg::Kind::kImmediate: return Value::Int(a.value);
      case InstrArg::Kind::kConstIdx: return Constant(a.value);
      case InstrArg::Kind::kFuncIdx: return Value::String(exec_->func_table.at(a.value).name);
    }
    return {};
  };
  int64_t pc = f.start_instr;
  std::vector<Value> call_args;  // reused by the calls of this frame
  while (pc < f.end_instr) {
    const Instruction& in = exec_->instructions[pc];
    switch (in.op) {
      case Instruction::Op::kCall: {
        call_args.clear();
        for (const InstrArg& a : in.args) call_args.push_back(load(a));
        const FuncEntry& callee = exec_->func_table.at(in.func_idx);
        Value result = callee.kind == FuncEntry::Kind::kVMFunc
                           ? RunFunction(in.func_idx, std::move(call_args), depth + 1)
                           : CallPacked(in.func_idx, call_args);
        if (in.dst != kVoidRegister) regs.at(in.dst) = std::move(result);
        ++pc;
        break;
      }
      case Instruction::Op::kRet: return regs.at(in.reg);
      case Instruction::Op::kGoto: pc += in.offset; break;
      case Instruction::Op::kIf: {
        const Value& c = regs.at(in.reg);
        pc += AsInt(c, "If") != 0 ? 1 : in.offset;
        break;
      }
    }
  }
  throw VMError(f.name + ": ran off the end of its code without a Ret");
}

}  // namespace wb::runtime::vm
