// The reference interpreter's entry points and machine: argument binding (arrays to buffers,
// shape variables from array shapes), memory, and calls between the module's PrimFuncs. The
// per-node semantics live in interpreter_compile.cpp and interpreter_value.cpp.
#include "tir/interpreter.h"

#include "tir/interpreter_machine.h"

namespace wb::tir {

using namespace interp;

runtime::DLDataType ToRuntimeDType(DataType dtype) {
  runtime::DLDataType t;
  t.code = static_cast<uint8_t>(dtype.code());
  t.bits = static_cast<uint8_t>(dtype.is_bool() ? 8 : dtype.bits());
  t.lanes = static_cast<uint16_t>(dtype.lanes());
  return t;
}

namespace interp {

int64_t MatchOrBind(Frame& frame, const Matcher& m, int64_t actual, const std::string& what,
                    const Span& span, const char* declarer) {
  if (m.var_slot >= 0 && !frame.vars[m.var_slot].defined()) {
    frame.vars[m.var_slot] = Value::Int(m.var_dtype, actual);
    return actual;
  }
  int64_t expected = m.eval(frame).AsInt();
  if (expected != actual) {
    Fail(what + " is " + std::to_string(actual) + ", but " + declarer + " expects " +
             std::to_string(expected),
         span);
  }
  return actual;
}

Storage* Machine::Allocate(const std::string& name, int64_t bytes, const Span& span) {
  constexpr int64_t kLimit = int64_t{16} << 30;
  if (bytes < 0 || bytes > kLimit) {
    Fail("allocation of " + name + " (" + std::to_string(bytes) + " bytes) is too large to interpret", span);
  }
  Arena& arena = CurrentArena();
  std::unique_ptr<Storage> s;
  if (!arena.free.empty()) {
    s = std::move(arena.free.back());
    arena.free.pop_back();
  } else {
    s = std::make_unique<Storage>();
  }
  s->owned = std::make_unique<uint8_t[]>(static_cast<size_t>(bytes > 0 ? bytes : 1));  // zeroed
  s->data = s->owned.get();
  s->bytes = bytes;
  s->name = name;
  arena.live.push_back(std::move(s));
  return arena.live.back().get();
}

Arena*& Machine::ThreadArena() {
  thread_local Arena* arena = nullptr;
  return arena;
}

void Machine::BindBuffer(Frame& frame, const BufferInfo& info, const Value& handle,
                         const Span& span, const std::vector<int64_t>* actual_shape,
                         const std::vector<int64_t>* actual_strides,
                         std::optional<int64_t> actual_elem_offset, const char* declarer) {
  const std::string& name = info.buffer->name;
  BufferBinding& b = frame.buffers[info.slot];
  b.storage = handle.storage();
  b.handle_offset = handle[0].i;
  const size_t nd = info.shape.size();
  b.shape.assign(nd, 0);
  for (size_t k = 0; k < nd; ++k) {
    if (actual_shape) {
      b.shape[k] = MatchOrBind(frame, info.shape[k], (*actual_shape)[k],
                               "dimension " + std::to_string(k) + " of " + name, span, declarer);
    } else {
      b.shape[k] = info.shape[k].eval(frame).AsInt();
    }
  }
  b.strides.assign(nd, 1);
  if (!info.strides.empty()) {
    if (info.strides.size() != nd) Fail(name + " has " + std::to_string(info.strides.size()) + " strides for " + std::to_string(nd) + " dimensions", span);
    for (size_t k = 0; k < nd; ++k) {
      if (actual_strides) {
        b.strides[k] = MatchOrBind(frame, info.strides[k], (*actual_strides)[k],
                                   "stride " + std::to_string(k) + " of " + name, span, declarer);
      } else {
        b.strides[k] = info.strides[k].eval(frame).AsInt();
      }
    }
  } else if (actual_strides) {
    b.strides = *actual_strides;
  } else {
    int64_t s = 1;
    for (size_t k = nd; k-- > 0;) {
      b.strides[k] = s;
      s *= b.shape[k];
    }
  }
  int64_t elem_offset = 0;
  if (info.elem_offset.eval) {
    elem_offset = actual_elem_offset ? MatchOrBind(frame, info.elem_offset, *actual_elem_offset,
                                                   "the element offset of " + name, span, declarer)
                                     : info.elem_offset.eval(frame).AsInt();
  } else if (actual_elem_offset) {
    elem_offset = *actual_elem_offset;
  }
  b.base = b.handle_offset + elem_offset * info.elem_bytes;
  b.bound = true;
}

BufferBinding& Machine::BindFromData(Frame& frame, const BufferInfo& info, const Span& span) {
  BufferBinding& b = frame.buffers[info.slot];
  const Value& handle = frame.vars[info.data_slot];
  if (!handle.defined() || handle.kind() != Kind::kHandle || !handle.storage()) {
    Fail("buffer " + info.buffer->name + " is used where it is not allocated or declared", span);
  }
  BindBuffer(frame, info, handle, span);
  return b;
}

CompiledFunc* Machine::Compile(const PrimFunc& func, const std::string& name) {
  auto it = compiled_.find(func.get());
  if (it != compiled_.end()) return it->second.get();
  auto compiled = CompileFunc(this, func, name);
  CompiledFunc* p = compiled.get();
  compiled_[func.get()] = std::move(compiled);
  return p;
}

namespace {

Frame NewFrame(const CompiledFunc& cf) {
  Frame f;
  f.vars.resize(cf.num_vars);
  f.buffers.resize(cf.num_buffers);
  return f;
}

Span ParamSpan(const CompiledFunc& cf, size_t i) {
  const Span& s = cf.func->params[i]->span;
  return s.defined() ? s : cf.func->span;
}

}  // namespace

Value Machine::CallFunction(const std::string& name, std::vector<Value> args, const Span& span) {
  ir::BaseFunc base = module_.defined() ? module_->Lookup(name) : ir::BaseFunc();
  auto* callee = base.defined() ? base.as<PrimFuncNode>() : nullptr;
  if (!callee) Fail("call of '" + name + "', which is not a PrimFunc of the module", span);
  if (depth_ >= 200) Fail("calls nested more than 200 deep (runaway recursion?)", span);
  CompiledFunc* cf = Compile(GetRef(callee), name);
  if (args.size() != cf->param_slots.size()) {
    Fail(name + " takes " + std::to_string(cf->param_slots.size()) + " arguments, got " +
             std::to_string(args.size()),
         span);
  }
  Frame frame = NewFrame(*cf);
  for (size_t i = 0; i < args.size(); ++i) {
    const Var& param = cf->func->params[i];
    if (param->dtype.is_handle()) {
      if (args[i].kind() != Kind::kHandle) Fail("argument " + std::to_string(i) + " of " + name + " must be a pointer", span);
      frame.vars[cf->param_slots[i]] = args[i];
      if (BufferInfo* info = cf->param_buffers[i]) {
        frame.vars[info->data_slot] = args[i];
        BindBuffer(frame, *info, args[i], span);
      }
    } else {
      frame.vars[cf->param_slots[i]] = Cast(param->dtype, args[i], span);
    }
  }
  ++depth_;
  struct Leave {
    int* d;
    ~Leave() { --*d; }
  } leave{&depth_};
  cf->body(frame);
  if (frame.ret.defined()) return frame.ret;
  return Value::Int(DataType::Int(32), 0);
}

InterpretResult Machine::RunTop(const PrimFunc& func, const std::string& name,
                                std::vector<InterpArg> args) {
  InterpretResult result;
  try {
    CompiledFunc* cf = Compile(func, name);
    if (args.size() != cf->param_slots.size()) {
      Fail(name + " takes " + std::to_string(cf->param_slots.size()) + " arguments, got " +
               std::to_string(args.size()),
           func->span);
    }
    Frame frame = NewFrame(*cf);
    std::vector<Value> handles(args.size());
    // Pass 1: memory, scalars, and shape variables that a dimension names directly.
    for (size_t i = 0; i < args.size(); ++i) {
      const Var& param = func->params[i];
      const Span span = ParamSpan(*cf, i);
      const std::string what = "argument " + std::to_string(i) + " ('" + param->name_hint + "')";
      BufferInfo* info = cf->param_buffers[i];
      const runtime::NDArray* array = args[i].array();
      if (array) {
        if (!array->defined()) Fail(what + " is a null NDArray", span);
        if (!param->dtype.is_handle()) Fail(what + " is a scalar parameter, but an NDArray was given", span);
        const runtime::DLTensor& t = array->tensor();
        int64_t reach = 0;
        bool empty = false;
        for (int k = 0; k < t.ndim; ++k) {
          if (t.shape[k] == 0) empty = true;
          int64_t stride = 1;
          if (t.strides) stride = t.strides[k];
          else for (int j = k + 1; j < t.ndim; ++j) stride *= t.shape[j];
          reach += (t.shape[k] - 1) * stride;
        }
        auto storage = std::make_unique<Storage>();
        storage->data = static_cast<uint8_t*>(t.data);
        storage->bytes = static_cast<int64_t>(t.byte_offset) + (empty ? 0 : (reach + 1) * t.dtype.ElementBytes());
        storage->name = param->name_hint;
        Storage* s = storage.get();
        arg_storage_.push_back(std::move(storage));
        if (info) {
          const Buffer& buffer = info->buffer;
          runtime::DLDataType want = ToRuntimeDType(buffer->dtype);
          if (t.dtype != want) {
            Fail(what + " has dtype " + runtime::DTypeToString(t.dtype) + ", but buffer " +
                     buffer->name + " is " + buffer->dtype.ToString(),
                 span);
          }
          if (static_cast<size_t>(t.ndim) != info->shape.size()) {
            Fail(what + " has " + std::to_string(t.ndim) + " dimension(s), but buffer " +
                     buffer->name + " has " + std::to_string(info->shape.size()),
                 span);
          }
          if (info->strides.empty() && !array->IsCompact()) {
            Fail(what + " is strided, but buffer " + buffer->name + " declares no strides", span);
          }
          handles[i] = Value::Handle(s, 0);
          frame.vars[cf->param_slots[i]] = handles[i];
          frame.vars[info->data_slot] = handles[i];
          for (size_t k = 0; k < info->shape.size(); ++k) {
            const Matcher& m = info->shape[k];
            if (m.var_slot >= 0 && !frame.vars[m.var_slot].defined()) {
              frame.vars[m.var_slot] = Value::Int(m.var_dtype, t.shape[k]);
            }
          }
        } else {
          frame.vars[cf->param_slots[i]] = Value::Handle(s, static_cast<int64_t>(t.byte_offset));
        }
      } else {
        if (info || param->dtype.is_handle()) Fail(what + " needs an NDArray, but a number was given", span);
        CheckSupported(param->dtype, span);
        frame.vars[cf->param_slots[i]] = args[i].float_value()
                                             ? Value::Float(param->dtype, *args[i].float_value())
                                             : Value::Int(param->dtype, *args[i].int_value());
      }
    }
    // Pass 2: every buffer parameter checked against its array and bound.
    for (size_t i = 0; i < args.size(); ++i) {
      BufferInfo* info = cf->param_buffers[i];
      if (!info) continue;
      const runtime::NDArray& array = *args[i].array();
      std::vector<int64_t> strides(array.ndim(), 1);
      if (!array.strides().empty()) {
        strides = array.strides();
      } else {
        int64_t s = 1;
        for (int k = array.ndim() - 1; k >= 0; --k) {
          strides[k] = s;
          s *= array.shape()[k];
        }
      }
      const int64_t eb = array.dtype().ElementBytes();
      const auto byte_offset = static_cast<int64_t>(array->byte_offset);
      if (byte_offset % eb != 0) Fail("the byte offset of argument " + std::to_string(i) + " is not a whole number of elements", ParamSpan(*cf, i));
      BindBuffer(frame, *info, handles[i], ParamSpan(*cf, i), &array.shape(), &strides,
                 byte_offset / eb);
    }
    cf->body(frame);
    if (frame.ret.defined()) {
      InterpValue v;
      v.dtype = frame.ret.dtype();
      if (frame.ret.kind() == Kind::kFloat) v.float_value = frame.ret[0].f;
      else v.int_value = frame.ret[0].i;
      result.return_value = v;
    }
  } catch (const InterpError& e) {
    result.diagnostics.Add(e.diagnostic());
  } catch (const std::bad_alloc&) {
    result.diagnostics.Error("the interpreter ran out of memory", func->span);
  } catch (const std::exception& e) {
    result.diagnostics.Error(std::string("internal error in the interpreter: ") + e.what(), func->span);
  }
  return result;
}

}  // namespace interp

InterpretResult Interpret(const PrimFunc& func, std::vector<InterpArg> args,
                          const InterpretOptions& options) {
  Machine machine(ir::IRModule(), options);
  std::string name = func->global_symbol();
  return machine.RunTop(func, name.empty() ? "main" : name, std::move(args));
}

InterpretResult InterpretModule(const ir::IRModule& module, const std::string& name,
                                std::vector<InterpArg> args, const InterpretOptions& options) {
  InterpretResult result;
  ir::BaseFunc base = module.defined() ? module->Lookup(name) : ir::BaseFunc();
  auto* func = base.defined() ? base.as<PrimFuncNode>() : nullptr;
  if (!func) {
    result.diagnostics.Error("the module has no PrimFunc named '" + name + "'");
    return result;
  }
  Machine machine(module, options);
  return machine.RunTop(GetRef(func), name, std::move(args));
}

}  // namespace wb::tir
