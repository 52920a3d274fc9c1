// Statements and kernels in CUDA C. A device PrimFunc becomes
//   extern "C" __global__ void __launch_bounds__(<threads>) name(float* __restrict__ A, int n)
// with its T.launch_thread vars read from threadIdx/blockIdx where they are launched, loops as C
// loops (#pragma unroll for unrolled ones), `shared` allocations as static __shared__ arrays (or
// views of the dynamic extern array when the kernel launches with dynamic shared memory) and
// `local` ones as per-thread arrays.
#include "codegen/cuda/cuda_printer.h"
#include "tir/op.h"

namespace wb::codegen::cuda {

using namespace tir;

namespace {

const std::set<std::string>& ReservedNames() {
  static const std::set<std::string> names = {
      "auto", "bool", "break", "case", "char", "const", "continue", "default", "do", "double", "else",
      "enum", "extern", "float", "for", "goto", "if", "int", "long", "return", "short", "signed",
      "sizeof", "static", "struct", "switch", "typedef", "union", "unsigned", "void", "volatile",
      "while", "class", "new", "delete", "this", "template", "typename", "true", "false", "half",
      "half2", "nv_bfloat16", "nv_bfloat162", "threadIdx", "blockIdx", "blockDim", "gridDim",
      "warpSize", "min", "max", "inline", "asm", "namespace", "operator", "private", "public",
      "protected", "virtual", "friend", "explicit", "mutable", "register", "restrict", "wb_dyn_shared",
      "float2", "float4", "int2", "int4", "char4", "uchar4", "short2", "dim3"};
  return names;
}

bool BoolAttr(const tir::PrimFunc& func, std::initializer_list<const char*> keys) {
  for (const char* key : keys) {
    const ir::Object* v = func->GetAttr(key);
    if (!v) continue;
    if (auto* b = dynamic_cast<const ir::BoolObj*>(v)) return b->value;
    if (auto* i = dynamic_cast<const ir::IntObj*>(v)) return i->value != 0;
  }
  return false;
}

// The thread launches of a kernel, collected before printing (for __launch_bounds__).
class LaunchScanner : public StmtVisitor {
 public:
  std::map<std::string, PrimExpr> extents;
  std::vector<std::string> order;
  void VisitStmt_(const AttrStmtNode* op) override {
    if (op->attr_key == "thread_extent") {
      if (auto* iv = op->node.as<IterVarNode>()) {
        if (!extents.count(iv->thread_tag)) order.push_back(iv->thread_tag);
        auto it = extents.find(iv->thread_tag);
        if (it == extents.end() || !AsConstInt(it->second)) {
          extents[iv->thread_tag] = op->value;
        } else if (const int64_t* v = AsConstInt(op->value); !v || *v > *AsConstInt(it->second)) {
          extents[iv->thread_tag] = op->value;
        }
      }
    }
    StmtVisitor::VisitStmt_(op);
  }
};

}  // namespace

bool IsDeviceKernel(const tir::PrimFunc& func) {
  const ir::Object* cc = func->GetAttr("calling_conv");
  auto* i = cc ? dynamic_cast<const ir::IntObj*>(cc) : nullptr;
  return i && i->value == 2;
}

void CudaPrinter::Unsupported(const std::string& what) const {
  throw CodegenError("CUDA codegen: function '" + func_name_ + "': unsupported " + what);
}

std::string CudaPrinter::AllocName(const std::string& hint) {
  std::string base;
  for (char c : hint) base += (std::isalnum(static_cast<unsigned char>(c)) || c == '_') ? c : '_';
  if (base.empty() || std::isdigit(static_cast<unsigned char>(base[0]))) base = "v" + base;
  // Names starting with "__" or "_<capital>" are reserved in C++.
  if (base.size() >= 2 && base[0] == '_' && (base[1] == '_' || std::isupper(static_cast<unsigned char>(base[1])))) {
    base = "v" + base;
  }
  std::string name = base;
  for (int k = 1; used_names_.count(name) || ReservedNames().count(name); ++k) name = base + "_" + std::to_string(k);
  used_names_.insert(name);
  return name;
}

std::string CudaPrinter::NameOf(const VarNode* var) {
  auto it = names_.find(var);
  if (it == names_.end()) Unsupported("use of variable '" + var->name_hint + "', which is not defined in the kernel");
  return it->second;
}

std::string CudaPrinter::Define(const VarNode* var) {
  std::string name = AllocName(var->name_hint);
  names_[var] = name;
  return name;
}

CudaKernelInfo CudaPrinter::AddKernel(const std::string& name, const PrimFunc& func) {
  func_name_ = name;
  names_.clear();
  used_names_.clear();
  vector_vars_.clear();
  pointer_elem_.clear();
  pointer_align_.clear();
  thread_extents_.clear();
  launched_tags_.clear();
  dyn_shared_allocs_ = 0;
  used_names_.insert(name);
  fast_math_ = BoolAttr(func, {"fast_math", "tir.fast_math"});
  bool noalias = BoolAttr(func, {"tir.noalias", "tirx.noalias"});

  CudaKernelInfo info;
  info.name = name;
  bool has_params_attr = false;
  for (const char* key : {"tir.kernel_launch_params", "tirx.kernel_launch_params"}) {
    const ir::Object* v = func->GetAttr(key);
    auto* arr = v ? dynamic_cast<const ir::ArrayObj*>(v) : nullptr;
    if (!arr) continue;
    has_params_attr = true;
    for (const auto& item : arr->items) {
      auto* s = item.as<ir::StringObj>();
      if (!s) Unsupported(std::string(key) + " holding something that is not a string");
      info.launch_param_tags.push_back(s->value);
    }
  }
  use_dyn_shared_ = false;
  for (const auto& tag : info.launch_param_tags) {
    if (tag == "tir.use_dyn_shared_memory" || tag == "tirx.use_dyn_shared_memory") use_dyn_shared_ = true;
  }

  LaunchScanner scan;
  scan(func->body);
  for (const auto& tag : scan.order) {
    if (tag.rfind("threadIdx.", 0) != 0 && tag.rfind("blockIdx.", 0) != 0) {
      Unsupported("thread tag '" + tag + "' (only blockIdx.x/y/z and threadIdx.x/y/z launch a kernel)");
    }
    if (has_params_attr &&
        std::find(info.launch_param_tags.begin(), info.launch_param_tags.end(), tag) == info.launch_param_tags.end()) {
      Unsupported("launch of '" + tag + "', which tir.kernel_launch_params does not list");
    }
  }
  if (!has_params_attr) info.launch_param_tags = scan.order;
  int64_t threads = 1;
  bool threads_known = true;
  for (const auto& [tag, extent] : scan.extents) {
    if (tag.rfind("threadIdx.", 0) != 0) continue;
    const int64_t* n = AsConstInt(extent);
    if (n) threads *= *n;
    else threads_known = false;
  }

  // Parameters: buffer data pointers (from buffer_map or a typed handle) then scalars.
  std::vector<std::string> params;
  for (size_t i = 0; i < func->params.size(); ++i) {
    const Var& p = func->params[i];
    Buffer buffer = i < func->buffer_map.size() ? func->buffer_map[i] : Buffer();
    if (buffer.defined()) {
      if (buffer->scope() != "global") Unsupported("parameter buffer '" + buffer->name + "' in scope " + buffer->scope());
      std::string pname = AllocName(p->name_hint);
      names_[buffer->data.get()] = pname;
      names_[p.get()] = pname;
      pointer_elem_[buffer->data.get()] = buffer->dtype;
      pointer_align_[buffer->data.get()] = buffer->data_alignment;
      params.push_back(TypeName(buffer->dtype) + "* " + (noalias ? "__restrict__ " : "") + pname);
      info.arg_dtypes.push_back("handle");
    } else if (p->dtype.is_handle()) {
      auto* ptr = p->type_annotation.as<ir::PointerTypeNode>();
      auto* elem = ptr && ptr->element_type.defined() ? ptr->element_type.as<ir::PrimTypeNode>() : nullptr;
      if (ptr && !ptr->storage_scope.empty() && ptr->storage_scope != "global") {
        Unsupported("parameter '" + p->name_hint + "' pointing into scope " + ptr->storage_scope);
      }
      std::string pname = Define(p.get());
      std::string type = elem ? TypeName(elem->dtype) + "*" : std::string("void*");
      if (elem) {
        pointer_elem_[p.get()] = elem->dtype;
        // The runtime's device allocations are 256-byte aligned; TVM assumes 64 for buffers.
        pointer_align_[p.get()] = 64;
      }
      params.push_back(type + " " + (noalias && elem ? "__restrict__ " : "") + pname);
      info.arg_dtypes.push_back("handle");
    } else {
      std::string pname = Define(p.get());
      params.push_back(TypeName(p->dtype) + " " + pname);
      info.arg_dtypes.push_back(p->dtype.ToString());
    }
  }

  std::ostringstream saved;
  saved << body_.str();
  body_.str("");
  indent_ = 1;
  PrintStmt(func->body);
  indent_ = 0;
  std::string body = body_.str();
  body_.str("");
  body_ << saved.str();
  body_ << "extern \"C\" __global__ void ";
  if (threads_known && !scan.extents.empty()) body_ << "__launch_bounds__(" << threads << ") ";
  body_ << name << "(";
  for (size_t i = 0; i < params.size(); ++i) body_ << (i ? ", " : "") << params[i];
  body_ << ") {\n" << body << "}\n\n";
  if (dyn_shared_allocs_ > 0 && !use_dyn_shared_) {
    Unsupported("dynamic shared memory without \"tir.use_dyn_shared_memory\" in tir.kernel_launch_params");
  }
  return info;
}

// --- statements --------------------------------------------------------------------------------

void CudaPrinter::VisitStmt_(const BindNode* op) {
  DataType t = op->var->dtype;
  if (t.lanes() > 1) {
    std::vector<std::string> names;
    for (auto& v : Lanes(op->value, t.lanes())) names.push_back(SSA(t.element_of(), v, op->var->name_hint));
    vector_vars_[op->var.get()] = names;
    return;
  }
  std::string value = Print(op->value);
  std::string type = TypeName(t);
  if (t.is_handle()) {
    auto* ptr = op->var->type_annotation.as<ir::PointerTypeNode>();
    auto* elem = ptr && ptr->element_type.defined() ? ptr->element_type.as<ir::PrimTypeNode>() : nullptr;
    if (elem) {
      type = TypeName(elem->dtype) + "*";
      value = "(" + type + ")(" + value + ")";
      pointer_elem_[op->var.get()] = elem->dtype;
    }
  }
  std::string name = Define(op->var.get());
  Line() << type << " " << name << " = " << value << ";\n";
}

void CudaPrinter::VisitStmt_(const AttrStmtNode* op) {
  if (op->attr_key == "thread_extent") {
    auto* iv = op->node.as<IterVarNode>();
    if (!iv) Unsupported("a thread_extent attribute that is not on a thread IterVar");
    const std::string& tag = iv->thread_tag;
    DataType t = iv->var->dtype;
    auto saved = names_.find(iv->var.get()) != names_.end() ? names_[iv->var.get()] : std::string();
    std::string name = Define(iv->var.get());
    Line() << TypeName(t) << " " << name << " = ((" << TypeName(t) << ")" << tag << ");\n";
    analyzer_.Bind(iv->var, ir::MakeRange(make_const(t, int64_t{0}), cast(t, op->value)), /*allow_override=*/true);
    PrintStmt(op->body);
    if (!saved.empty()) names_[iv->var.get()] = saved;
    return;
  }
  if (op->attr_key == "virtual_thread") Unsupported("virtual threads (lower them first: InjectVirtualThread)");
  PrintStmt(op->body);
}

void CudaPrinter::VisitStmt_(const AssertStmtNode* op) {
  std::string message;
  for (const auto& part : op->message_parts) message += part->value;
  for (char& c : message) {
    if (c == '\n' || c == '*' || c == '/') c = ' ';
  }
  std::string cond = Print(op->condition);
  // A failed check inside a kernel aborts the launch; the host reports the launch error.
  Line() << "if (!" << cond << ") { __trap(); }  /* " << message << " */\n";
}

void CudaPrinter::VisitStmt_(const BufferStoreNode* op) {
  const Buffer& buffer = op->buffer;
  DataType t = op->value->dtype;
  PrimExpr flat = FlatIndex(buffer, op->indices);
  if (t.lanes() == 1) {
    if (flat->dtype.lanes() > 1) Unsupported("a scalar store to a vector of indices of '" + buffer->name + "'");
    std::string value = Print(op->value);
    std::string elem = Element(buffer, Print(flat));
    if (op->predicate.defined()) {
      std::string pred = Print(op->predicate);
      Line() << "if (" << pred << ") " << elem << " = " << value << ";\n";
    } else {
      Line() << elem << " = " << value << ";\n";
    }
    return;
  }
  int lanes = t.lanes();
  std::vector<std::string> values = Lanes(op->value, lanes);
  if (!op->predicate.defined()) {
    std::string address = VectorAddress(buffer, flat, t);
    if (!address.empty()) {
      Line() << "*(" << TypeName(t) << "*)" << address << " = " << MakeVector(t, values) << ";\n";
      return;
    }
  }
  // Scalarized: one element a lane (strided, unaligned or predicated).
  std::vector<std::string> idx = Lanes(flat, lanes);
  std::vector<std::string> pred;
  if (op->predicate.defined()) pred = Lanes(op->predicate, lanes);
  std::vector<std::string> held;
  for (int i = 0; i < lanes; ++i) held.push_back(values[i].find('(') == std::string::npos ? values[i] : SSA(t.element_of(), values[i]));
  for (int i = 0; i < lanes; ++i) {
    Line();
    if (!pred.empty()) body_ << "if (" << pred[i] << ") ";
    body_ << Element(buffer, idx[i]) << " = " << held[i] << ";\n";
  }
}

void CudaPrinter::VisitStmt_(const AllocBufferNode* op) {
  const Buffer& buffer = op->buffer;
  std::string scope = buffer->scope();
  DataType t = buffer->dtype;
  if (t.lanes() > 1) Unsupported("allocation '" + buffer->name + "' of vector dtype " + t.ToString());
  PrimExpr count = make_const(DataType::Int(64), int64_t{1});
  for (const auto& d : buffer->shape) count = mul(count, cast(DataType::Int(64), d));
  const int64_t* n = AsConstInt(count);
  std::string type = TypeName(t);
  bool dynamic = scope == "shared.dyn" || (scope == "shared" && !n && use_dyn_shared_);
  if (dynamic) {
    if (++dyn_shared_allocs_ > 1) {
      Unsupported("a second dynamic shared allocation '" + buffer->name +
                  "' (merge them first: MergeDynamicSharedMemoryAllocations)");
    }
    helpers_.insert("dyn_shared");
    std::string name = Define(buffer->data.get());
    Line() << type << "* " << name << " = (" << type << "*)wb_dyn_shared;\n";
  } else if (scope == "shared" || scope == "local" || scope == "") {
    if (!n) {
      Unsupported("allocation '" + buffer->name + "' in scope " + scope + " of symbolic size" +
                  (scope == "shared" ? " (use dynamic shared memory: tir.use_dyn_shared_memory)" : ""));
    }
    std::string name = Define(buffer->data.get());
    Line() << (scope == "shared" ? "__shared__ " : "") << "__align__(16) " << type << " " << name << "["
           << std::max<int64_t>(1, *n) << "];\n";
  } else {
    Unsupported("allocation '" + buffer->name + "' in scope '" + scope + "' inside a kernel" +
                (scope == "global" ? " (the host allocates global memory)" : ""));
  }
  pointer_elem_[buffer->data.get()] = t;
  pointer_align_[buffer->data.get()] = 16;
}

void CudaPrinter::VisitStmt_(const DeclBufferNode* op) {
  if (!names_.count(op->buffer->data.get())) {
    Unsupported("buffer '" + op->buffer->name + "' declared over a pointer the kernel does not have");
  }
  if (op->buffer->dtype != pointer_elem_[op->buffer->data.get()]) {
    // A view with another element type: keep only the alignment both agree on.
    auto it = pointer_align_.find(op->buffer->data.get());
    if (it != pointer_align_.end()) it->second = std::min<int64_t>(it->second, op->buffer->data_alignment);
  }
}

void CudaPrinter::VisitStmt_(const ForNode* op) {
  switch (op->kind) {
    case ForKind::kParallel:
      Unsupported("parallel loop '" + op->loop_var->name_hint + "' (bind it to GPU threads instead)");
    case ForKind::kThreadBinding:
      Unsupported("loop '" + op->loop_var->name_hint + "' bound to a thread (lower bindings to T.launch_thread first)");
    default: break;
  }
  DataType t = op->loop_var->dtype;
  std::string begin = CastString(op->min->dtype, t, Print(op->min));
  std::string end = CastString(op->extent->dtype, t, Print(add(cast(t, op->min), cast(t, op->extent))));
  std::string step = op->step.defined() ? CastString(op->step->dtype, t, Print(op->step)) : "";
  if (op->kind == ForKind::kUnrolled || op->kind == ForKind::kVectorized) Line() << "#pragma unroll\n";
  std::string name = Define(op->loop_var.get());
  Line() << "for (" << TypeName(t) << " " << name << " = " << begin << "; " << name << " < " << end << "; "
         << (step.empty() ? "++" + name : name + " += " + step) << ") {\n";
  if (!op->step.defined()) {
    analyzer_.Bind(op->loop_var, ir::MakeRange(op->min, op->extent), /*allow_override=*/true);
  }
  ++indent_;
  PrintStmt(op->body);
  --indent_;
  Line() << "}\n";
}

void CudaPrinter::VisitStmt_(const WhileNode* op) {
  // The condition may declare Let values: they are re-evaluated on every iteration.
  Line() << "while (true) {\n";
  ++indent_;
  std::string cond = Print(op->condition);
  Line() << "if (!" << cond << ") break;\n";
  PrintStmt(op->body);
  --indent_;
  Line() << "}\n";
}

void CudaPrinter::VisitStmt_(const IfThenElseNode* op) {
  std::string cond = Print(op->condition);
  if (cond.front() != '(') cond = "(" + cond + ")";
  Line() << "if " << cond << " {\n";
  ++indent_;
  PrintStmt(op->then_case);
  --indent_;
  if (op->else_case.defined()) {
    Line() << "} else {\n";
    ++indent_;
    PrintStmt(op->else_case);
    --indent_;
  }
  Line() << "}\n";
}

void CudaPrinter::VisitStmt_(const SeqStmtNode* op) {
  for (const auto& s : op->seq) PrintStmt(s);
}

void CudaPrinter::VisitStmt_(const EvaluateNode* op) {
  if (op->value.as<IntImmNode>() || op->value.as<FloatImmNode>()) return;
  std::string v = Print(op->value);
  Line() << v << ";\n";
}

void CudaPrinter::VisitStmt_(const BreakNode*) { Line() << "break;\n"; }
void CudaPrinter::VisitStmt_(const ContinueNode*) { Line() << "continue;\n"; }

void CudaPrinter::VisitStmt_(const SBlockNode* op) {
  Unsupported("block '" + op->name_hint + "' (lower the function first)");
}
void CudaPrinter::VisitStmt_(const SBlockRealizeNode* op) {
  Unsupported("block '" + op->block->name_hint + "' (lower the function first)");
}

// --- entry points ------------------------------------------------------------------------------

}  // namespace wb::codegen::cuda

namespace wb::codegen {

CudaSource CodegenCUDA(const ir::IRModule& device_module, const std::string& arch) {
  cuda::CudaPrinter printer(arch);
  CudaSource source;
  for (size_t i = 0; i < device_module->functions.size(); ++i) {
    auto* func = device_module->functions[i].as<tir::PrimFuncNode>();
    if (!func) continue;
    tir::PrimFunc f = ir::GetRef(func);
    if (!cuda::IsDeviceKernel(f)) continue;
    std::string name = f->global_symbol();
    if (name.empty()) name = device_module->global_vars[i]->name_hint;
    source.kernels.push_back(printer.AddKernel(name, f));
  }
  source.code = printer.Finish();
  return source;
}

}  // namespace wb::codegen
