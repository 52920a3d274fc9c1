#include "transform/tir/split_host_device.h"

#include <algorithm>
#include <set>
#include <unordered_set>

#include "tir/functor.h"
#include "tir/substitute.h"
#include "transform/registry.h"

namespace wb::transform {

namespace {

using namespace tir;

bool IsLaunchTag(const std::string& tag) {
  return tag.rfind("blockIdx.", 0) == 0 || tag.rfind("threadIdx.", 0) == 0;
}

bool IsDeviceFunc(const PrimFuncNode* func) {
  const Object* cc = func->GetAttr("calling_conv");
  auto* i = dynamic_cast<const ir::IntObj*>(cc);
  return (i && i->value == 2) || func->GetAttr("tir.is_global_func") != nullptr;
}

// The variables a region uses without defining them, in order of first use, and the buffers
// it accesses without declaring them.
class FreeVarCollector : public StmtExprVisitor {
 public:
  using StmtExprVisitor::VisitExpr_;
  using StmtExprVisitor::VisitStmt_;

  std::vector<Var> free_vars;
  std::vector<Buffer> undeclared;

  void Run(const Stmt& s) {
    // Definitions first: a well-formed region defines each variable once, so anything it
    // defines anywhere is not free.
    PostOrderVisit(s, [&](const Object* n) {
      if (auto* f = dynamic_cast<const ForNode*>(n)) defined_.insert(f->loop_var.get());
      if (auto* b = dynamic_cast<const BindNode*>(n)) defined_.insert(b->var.get());
      if (auto* l = dynamic_cast<const LetNode*>(n)) defined_.insert(l->var.get());
      if (auto* a = dynamic_cast<const AttrStmtNode*>(n)) {
        if (auto* iv = a->node.as<IterVarNode>()) defined_.insert(iv->var.get());
      }
      if (auto* a = dynamic_cast<const AllocBufferNode*>(n)) {
        defined_.insert(a->buffer->data.get());
        declared_.insert(a->buffer.get());
      }
      if (auto* d = dynamic_cast<const DeclBufferNode*>(n)) declared_.insert(d->buffer.get());
      if (auto* b = dynamic_cast<const SBlockNode*>(n)) {
        for (const auto& iv : b->iter_vars) defined_.insert(iv->var.get());
        for (const auto& buf : b->alloc_buffers) {
          defined_.insert(buf->data.get());
          declared_.insert(buf.get());
        }
      }
    });
    VisitStmt(s);
  }

  void VisitExpr_(const VarNode* op) override { Use(op); }
  void VisitExpr_(const SizeVarNode* op) override { Use(op); }

 protected:
  void VisitBufferUse(const Buffer& buffer) override {
    if (declared_.count(buffer.get()) || !seen_buffers_.insert(buffer.get()).second) return;
    undeclared.push_back(buffer);
    Use(buffer->data.get());
    for (const auto& d : buffer->shape) VisitExpr(d);
    for (const auto& st : buffer->strides) VisitExpr(st);
    if (buffer->elem_offset.defined()) VisitExpr(buffer->elem_offset);
  }

 private:
  void Use(const VarNode* v) {
    if (defined_.count(v) || !seen_vars_.insert(v).second) return;
    free_vars.push_back(GetRef(v));
  }

  std::unordered_set<const VarNode*> defined_;
  std::unordered_set<const VarNode*> seen_vars_;
  std::unordered_set<const BufferNode*> declared_;
  std::unordered_set<const BufferNode*> seen_buffers_;
};

// Gives the kernel its own parameter variables (the host keeps its own: a module where two
// functions share a Var would not be structurally what its printed text parses to), and its
// own buffer objects over them.
class ParamRemapper : public StmtExprMutator {
 public:
  using StmtExprMutator::VisitExpr_;
  using StmtExprMutator::VisitStmt_;
  explicit ParamRemapper(const VarMap& vmap) : vmap_(vmap) {}

  PrimExpr VisitExpr_(const VarNode* op) override {
    auto it = vmap_.find(op);
    return it == vmap_.end() ? PrimExpr(GetRef(op)) : it->second;
  }
  PrimExpr VisitExpr_(const SizeVarNode* op) override {
    auto it = vmap_.find(op);
    return it == vmap_.end() ? PrimExpr(GetRef(op)) : it->second;
  }

  // A thread IterVar's domain may use the parameters too (a symbolic launch extent).
  Stmt VisitStmt_(const AttrStmtNode* op) override {
    Stmt s = StmtExprMutator::VisitStmt_(op);
    auto* attr = s.as<AttrStmtNode>();
    auto* iv = attr ? attr->node.as<IterVarNode>() : nullptr;
    if (!iv || !iv->dom.defined()) return s;
    PrimExpr min = VisitExpr(iv->dom->min), extent = VisitExpr(iv->dom->extent);
    if (min.same_as(iv->dom->min) && extent.same_as(iv->dom->extent)) return s;
    AttrStmt a = Downcast<AttrStmtNode>(s);
    a.CopyOnWrite()->node = MakeIterVar(ir::MakeRange(min, extent), iv->var, iv->iter_type,
                                        iv->thread_tag, iv->span);
    return a;
  }

  Buffer Remap(const Buffer& buffer) {
    auto it = buffers_.find(buffer.get());
    if (it != buffers_.end()) return it->second;
    Buffer b = buffer;
    auto* n = b.CopyOnWrite();
    if (auto v = vmap_.find(buffer->data.get()); v != vmap_.end()) {
      n->data = Downcast<VarNode>(v->second);
    }
    for (auto& d : n->shape) d = VisitExpr(d);
    for (auto& st : n->strides) st = VisitExpr(st);
    if (n->elem_offset.defined()) n->elem_offset = VisitExpr(n->elem_offset);
    buffers_[buffer.get()] = b;
    return b;
  }

 protected:
  Buffer VisitBufferUse(const Buffer& buffer) override { return Remap(buffer); }
  Buffer VisitBufferDef(const Buffer& buffer) override { return Remap(buffer); }

 private:
  const VarMap& vmap_;
  std::unordered_map<const BufferNode*, Buffer> buffers_;
};

class HostDeviceSplitter : public StmtMutator {
 public:
  HostDeviceSplitter(std::string prefix, std::set<std::string>* names)
      : prefix_(std::move(prefix)), names_(names) {}

  std::vector<std::pair<ir::GlobalVar, PrimFunc>> kernels;

  Stmt VisitStmt_(const AttrStmtNode* op) override {
    auto* iv = op->node.as<IterVarNode>();
    if (iv && op->attr_key == "thread_extent" && IsLaunchTag(iv->thread_tag)) {
      return Split(GetRef(op));
    }
    return StmtMutator::VisitStmt_(op);
  }

  Stmt VisitStmt_(const ForNode* op) override {
    if (op->kind == ForKind::kThreadBinding) {
      throw ir::PassError(Diagnostic::Error(
          "loop '" + op->loop_var->name_hint +
              "' is still bound to a thread; run LowerOpaqueBlock before SplitHostDevice",
          op->span));
    }
    return StmtMutator::VisitStmt_(op);
  }

 private:
  Stmt Split(const Stmt& region) {
    FreeVarCollector collector;
    collector.Run(region);
    for (const auto& b : collector.undeclared) {
      const std::string scope = b->scope();
      if (scope != "global" && !scope.empty()) {
        throw ir::PassError(Diagnostic::Error(
            "buffer '" + b->name + "' in scope " + scope +
                " is used in a kernel but allocated outside it; device memory of scope " + scope +
                " must be allocated inside the thread launch",
            region->span));
      }
    }
    std::vector<Var> params = collector.free_vars;
    std::stable_sort(params.begin(), params.end(), [](const Var& a, const Var& b) {
      return std::make_tuple(!a->dtype.is_handle(), a->name_hint) <
             std::make_tuple(!b->dtype.is_handle(), b->name_hint);
    });
    std::string name = prefix_ + "_kernel";
    for (int k = 1; names_->count(name); ++k) name = prefix_ + "_kernel_" + std::to_string(k);
    names_->insert(name);

    VarMap vmap;
    std::vector<Var> kernel_params;
    for (const auto& p : params) {
      Var v = p->type_annotation.defined() ? MakeVar(p->name_hint, p->type_annotation, p->span)
                                           : MakeVar(p->name_hint, p->dtype, p->span);
      vmap[p.get()] = v;
      kernel_params.push_back(v);
    }
    ParamRemapper remap(vmap);
    std::vector<Stmt> body;
    for (const auto& b : collector.undeclared) {
      body.push_back(MakeDeclBuffer(remap.Remap(b), region->span));
    }
    body.push_back(remap(region));
    AttrMap attrs;
    attrs["global_symbol"] = ir::MakeString(name);
    attrs["tir.noalias"] = ir::MakeBool(true);
    attrs["tir.is_global_func"] = ir::MakeBool(true);
    ir::GlobalVar gv = ir::MakeGlobalVar(name, region->span);
    kernels.emplace_back(gv, MakePrimFunc(kernel_params, {}, MakeSeq(std::move(body), region->span),
                                            {}, std::move(attrs), region->span));
    std::vector<PrimExpr> args(params.begin(), params.end());
    return MakeEvaluate(
        MakeCall(DataType::Int(32), gv, std::move(args),
                 region->span),
        region->span);
  }

  std::string prefix_;
  std::set<std::string>* names_;
};

ir::IRModule Run(ir::IRModule module, const ir::PassContext&) {
  std::set<std::string> names;
  for (const auto& gv : module->global_vars) names.insert(gv->name_hint);
  std::vector<ir::GlobalVar> vars = module->global_vars;
  std::vector<ir::BaseFunc> funcs = module->functions;
  bool changed = false;
  for (size_t i = 0; i < module->functions.size(); ++i) {
    auto* func = module->functions[i].as<PrimFuncNode>();
    if (!func || IsDeviceFunc(func)) continue;
    std::string prefix = func->global_symbol();
    if (prefix.empty()) prefix = module->global_vars[i]->name_hint;
    HostDeviceSplitter splitter(prefix, &names);
    Stmt body = splitter(func->body);
    if (splitter.kernels.empty()) continue;
    changed = true;
    PrimFunc host = GetRef(func);
    host.CopyOnWrite()->body = body;
    funcs[i] = host;
    for (auto& [gv, kernel] : splitter.kernels) {
      vars.push_back(gv);
      funcs.push_back(kernel);
    }
  }
  if (!changed) return module;
  return ir::MakeIRModule(std::move(vars), std::move(funcs), module->attrs, module->span);
}

}  // namespace

ir::Pass SplitHostDevice() { return ir::CreateModulePass(Run, 0, "SplitHostDevice"); }

static PassRegistrar registrar({"SplitHostDevice",
                                "moves each thread-launch region into a device PrimFunc "
                                "\"<func>_kernel\" called from the host function",
                                {},
                                [](const PassArgs&) { return SplitHostDevice(); }});

}  // namespace wb::transform
