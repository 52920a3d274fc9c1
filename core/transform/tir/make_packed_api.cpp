#include "transform/tir/make_packed_api.h"

#include <map>
#include <set>

#include "runtime/c_backend_api.h"
#include "runtime/ndarray.h"
#include "tir/builtin.h"
#include "tir/interpreter.h"
#include "tir/op.h"
#include "tir/stmt.h"
#include "transform/registry.h"

namespace wb::transform {

namespace {

using namespace tir;

// Short text of a shape expression for messages ("128", "n", "n * 2").
std::string ExprText(const PrimExpr& e) {
  if (auto* i = e.as<IntImmNode>()) return std::to_string(i->value);
  if (auto* v = e.as<VarNode>()) return v->name_hint;
  if (auto* c = e.as<CastNode>()) return ExprText(c->value);
  const char* sym = nullptr;
  switch (e->type_index()) {
    case ir::TypeIndex::kAdd: sym = " + "; break;
    case ir::TypeIndex::kSub: sym = " - "; break;
    case ir::TypeIndex::kMul: sym = " * "; break;
    case ir::TypeIndex::kFloorDiv: sym = " // "; break;
    case ir::TypeIndex::kFloorMod: sym = " % "; break;
    default: break;
  }
  if (sym) {
    auto* b = static_cast<const BinaryNode*>(e.get());
    return "(" + ExprText(b->a) + sym + ExprText(b->b) + ")";
  }
  return "its declared extent";
}

PrimExpr I32(int64_t v) { return MakeIntImm(DataType::Int(32), v); }
PrimExpr I64(int64_t v) { return MakeIntImm(DataType::Int(64), v); }

PrimExpr StructGet(const PrimExpr& handle, int64_t index, int kind, DataType dtype) {
  return MakeCall(dtype, GetOp("tirx.tvm_struct_get"), {handle, I32(index), I32(kind)});
}

// A buffer over memory a pointer variable holds (the argument array, a shape array).
Buffer BufferOver(const std::string& name, int64_t extent, DataType dtype, const Var& data) {
  BufferOptions options;
  options.data = data;
  return MakeBuffer(name, {MakeIntImm(DataType::Int(32), extent)}, dtype, options);
}

PrimExpr PtrToInt(const PrimExpr& handle) {
  return MakeCall(DataType::Int(64), GetOp("tirx.reinterpret"), {handle});
}

class PackedApiBuilder {
 public:
  PackedApiBuilder(const PrimFunc& func, std::string name) : func_(func), name_(std::move(name)) {}

  PrimFunc Build() {
    const size_t n = func_->params.size();
    Var args = MakeVar("args", ir::MakePointerType({}));
    Var type_ids = MakePointerVar("arg_type_ids", DataType::Int(32), "global");
    Var num_args = MakeVar("num_args", DataType::Int(32));
    Var out_ret_value = MakeVar("out_ret_value", ir::MakePointerType({}));
    Var out_ret_tcode = MakePointerVar("out_ret_tcode", DataType::Int(32), "global");
    Var resource_handle = MakeVar("resource_handle", ir::MakePointerType({}));

    Assert(equal(num_args, I32(static_cast<int64_t>(n))),
           "expected " + std::to_string(n) + " argument" + (n == 1 ? "" : "s") +
               " but got a different number");
    Buffer type_buf = BufferOver("arg_type_ids", static_cast<int64_t>(n), DataType::Int(32), type_ids);
    prologue_.push_back(MakeDeclBuffer(type_buf));

    std::vector<std::pair<Buffer, Buffer>> shapes;  // buffer, its shape array
    std::vector<std::pair<Buffer, Var>> strides;    // buffer, its strides pointer
    for (size_t i = 0; i < n; ++i) {
      const Var& param = func_->params[i];
      Buffer buffer = i < func_->buffer_map.size() ? func_->buffer_map[i] : Buffer();
      Var code = MakeVar(param->name_hint + ".code", DataType::Int(32));
      prologue_.push_back(MakeBind(code, MakeBufferLoad(type_buf, {I32(static_cast<int64_t>(i))})));
      std::string what = "argument " + std::to_string(i) + " (" + param->name_hint + ")";
      if (buffer.defined()) {
        Assert(logical_or(equal(code, I32(kWBDLTensorHandle)), equal(code, I32(kWBOpaqueHandle))),
               what + " must be a tensor");
        Var handle = param;
        prologue_.push_back(MakeBind(handle, StructGet(args, i, kTVMValueContent, DataType::Handle())));
        UnpackBuffer(handle, buffer, what, &shapes, &strides);
      } else if (param->dtype.is_handle()) {
        prologue_.push_back(MakeBind(param, StructGet(args, i, kTVMValueContent, DataType::Handle())));
      } else if (param->dtype.is_floating_point()) {
        Assert(logical_or(equal(code, I32(kWBArgFloat)), equal(code, I32(kWBArgInt))),
               what + " must be a number");
        PrimExpr as_float = StructGet(args, i, kTVMValueContent, DataType::Float(64));
        PrimExpr as_int = cast(DataType::Float(64), StructGet(args, i, kTVMValueContent, DataType::Int(64)));
        prologue_.push_back(MakeBind(
            param, cast(param->dtype, MakeSelect(equal(code, I32(kWBArgFloat)), as_float, as_int))));
      } else {
        Assert(equal(code, I32(kWBArgInt)), what + " must be an integer");
        prologue_.push_back(
            MakeBind(param, cast(param->dtype, StructGet(args, i, kTVMValueContent, DataType::Int(64)))));
      }
    }
    // Shape variables take the value of their first occurrence; every other dimension (and
    // every later occurrence) is checked against the bound value.
    std::vector<Stmt> checks;
    for (const auto& [buffer, shape_buf] : shapes) {
      for (size_t k = 0; k < buffer->shape.size(); ++k) {
        PrimExpr actual = MakeBufferLoad(shape_buf, {I32(static_cast<int64_t>(k))});
        const PrimExpr& dim = buffer->shape[k];
        std::string where = name_ + ": " + buffer->name + ".shape[" + std::to_string(k) + "]";
        if (auto* v = dim.as<VarNode>(); v && !bound_.count(v)) {
          bound_.insert(v);
          prologue_.push_back(MakeBind(GetRef(v), cast(dim->dtype, actual)));
          Assert(greater_equal(actual, I64(0)), where + " must not be negative");
        } else {
          checks.push_back(MakeAssertStmt(equal(cast(DataType::Int(64), dim), actual), "ValueError",
                                          {where + " must be " + ExprText(dim)}));
        }
      }
    }
    for (auto& c : checks) prologue_.push_back(c);
    for (const auto& [buffer, strides_ptr] : strides) CheckStrides(buffer, strides_ptr);

    Stmt body = MakeAttrStmt(MakeStringImm(name_ + "_compute_"), "compute_scope", I32(0), func_->body);
    prologue_.push_back(body);
    ir::AttrMap attrs = func_->attrs;
    attrs["calling_conv"] = ir::MakeInt(kCallingConvPacked);
    attrs["global_symbol"] = ir::MakeString(name_);
    return MakePrimFunc({args, type_ids, num_args, out_ret_value, out_ret_tcode, resource_handle},
                        std::vector<Buffer>(6), MakeSeq(std::move(prologue_), func_->body->span),
                        ir::MakePrimType(DataType::Int(32)), std::move(attrs), func_->span);
  }

 private:
  void Assert(PrimExpr cond, const std::string& message) {
    prologue_.push_back(MakeAssertStmt(std::move(cond), "ValueError", {name_ + ": " + message}));
  }

  void UnpackBuffer(const Var& handle, const Buffer& buffer, const std::string& what,
                    std::vector<std::pair<Buffer, Buffer>>* shapes,
                    std::vector<std::pair<Buffer, Var>>* strides) {
    Assert(MakeNot(equal(PtrToInt(handle), I64(0))), what + " is a null tensor");
    int64_t ndim = static_cast<int64_t>(buffer->shape.size());
    Assert(equal(StructGet(handle, 0, kArrNDim, DataType::Int(32)), I32(ndim)),
           what + " must have ndim " + std::to_string(ndim));
    DataType dt = buffer->dtype;
    // The runtime's dtype for the buffer's (bool: 8 bits, as NDArray stores it).
    runtime::DLDataType want = ToRuntimeDType(dt);
    PrimExpr code_ok = equal(StructGet(handle, 0, kArrTypeCode, DataType::Int(32)), I32(want.code));
    PrimExpr bits_ok = equal(StructGet(handle, 0, kArrTypeBits, DataType::Int(32)), I32(want.bits));
    PrimExpr lanes_ok = equal(StructGet(handle, 0, kArrTypeLanes, DataType::Int(32)), I32(want.lanes));
    Assert(logical_and(logical_and(code_ok, bits_ok), lanes_ok),
           what + " must have dtype " + dt.ToString());
    // As TVM: the tensors live on the device of the function's target (a GPU build's host
    // function takes cuda tensors and passes their data pointers to its kernels).
    bool cuda = TargetKind() == "cuda";
    Assert(equal(StructGet(handle, 0, kArrDeviceType, DataType::Int(32)),
                 I32(cuda ? runtime::kDLCUDA : runtime::kDLCPU)),
           what + (cuda ? " must be on a CUDA device" : " must be on the CPU"));
    Assert(equal(StructGet(handle, 0, kArrByteOffset, DataType::Int(64)), I64(0)),
           what + " must have byte_offset 0");
    Var shape_ptr = MakePointerVar(buffer->name + ".shape", DataType::Int(64), "global");
    prologue_.push_back(MakeBind(shape_ptr, StructGet(handle, 0, kArrShape, DataType::Handle())));
    Buffer shape_buf = BufferOver(buffer->name + "_shape", ndim, DataType::Int(64), shape_ptr);
    prologue_.push_back(MakeDeclBuffer(shape_buf));
    shapes->emplace_back(buffer, shape_buf);
    Var strides_ptr = MakePointerVar(buffer->name + ".strides", DataType::Int(64), "global");
    prologue_.push_back(MakeBind(strides_ptr, StructGet(handle, 0, kArrStrides, DataType::Handle())));
    strides->emplace_back(buffer, strides_ptr);
    prologue_.push_back(MakeBind(buffer->data, StructGet(handle, 0, kArrData, DataType::Handle())));
    if (buffer->data_alignment > 1) {
      Assert(equal(floormod(PtrToInt(buffer->data), I64(buffer->data_alignment)), I64(0)),
             what + " data must be " + std::to_string(buffer->data_alignment) + "-byte aligned");
    }
  }

  // The kind of the function's "target" attribute ("cuda -arch=sm_90" -> "cuda"); "" when absent.
  std::string TargetKind() const {
    const ir::Object* t = func_->GetAttr("target");
    if (!t || !ir::IsInstance<ir::StringObj>(t)) return "";
    const std::string& text = static_cast<const ir::StringObj*>(t)->value;
    return text.substr(0, text.find(' '));
  }

  // A tensor may pass explicit strides only when they describe the layout the buffer declares.
  void CheckStrides(const Buffer& buffer, const Var& strides_ptr) {
    int64_t ndim = static_cast<int64_t>(buffer->shape.size());
    if (ndim == 0) return;
    Buffer strides_buf = BufferOver(buffer->name + "_strides", ndim, DataType::Int(64), strides_ptr);
    std::vector<Stmt> checks;
    PrimExpr expected = I64(1);
    for (int64_t k = ndim - 1; k >= 0; --k) {
      PrimExpr want = buffer->strides.empty() ? expected : cast(DataType::Int(64), buffer->strides[k]);
      PrimExpr got = MakeBufferLoad(strides_buf, {I32(k)});
      // A dimension of extent 1 may have any stride (NumPy gives such views).
      PrimExpr ok = logical_or(equal(got, want), equal(cast(DataType::Int(64), buffer->shape[k]), I64(1)));
      checks.push_back(MakeAssertStmt(ok, "ValueError",
                                      {name_ + ": " + buffer->name + " must be compact (stride of axis " +
                                       std::to_string(k) + " differs)"}));
      expected = mul(expected, cast(DataType::Int(64), buffer->shape[k]));
    }
    std::vector<Stmt> then{MakeDeclBuffer(strides_buf)};
    for (auto& c : checks) then.push_back(c);
    prologue_.push_back(MakeIfThenElse(MakeNot(equal(PtrToInt(strides_ptr), I64(0))), MakeSeq(then)));
  }

  const PrimFunc& func_;
  std::string name_;
  std::vector<Stmt> prologue_;
  std::set<const VarNode*> bound_;
};

}  // namespace

ir::Pass MakePackedAPI() {
  auto run = [](ir::IRModule module, const ir::PassContext&) {
    std::vector<ir::BaseFunc> funcs = module->functions;
    bool changed = false;
    for (size_t i = 0; i < funcs.size(); ++i) {
      auto prim = funcs[i].as_ref<PrimFuncNode>();
      if (!prim.defined()) continue;
      const ir::Object* cc = prim->GetAttr("calling_conv");
      if (cc && ir::IsInstance<ir::IntObj>(cc) && static_cast<const ir::IntObj*>(cc)->value != 0) {
        continue;  // already packed
      }
      std::string name = prim->global_symbol();
      if (name.empty()) name = module->global_vars[i]->name_hint;
      funcs[i] = PackedApiBuilder(prim, name).Build();
      changed = true;
    }
    if (!changed) return module;
    return ir::WithFunctions(module, module->global_vars, std::move(funcs));
  };
  return ir::CreateModulePass(run, 0, "MakePackedAPI");
}

static PassRegistrar registrar({"MakePackedAPI",
                                "host entries with the packed calling convention and argument checks",
                                {},
                                [](const PassArgs&) { return MakePackedAPI(); }});

}  // namespace wb::transform
