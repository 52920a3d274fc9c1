#include "transform/tir/lower_device_kernel_launch.h"

#include <algorithm>
#include <map>
#include <set>

#include "tir/builtin.h"
#include "tir/functor.h"
#include "tir/op.h"
#include "tir/substitute.h"
#include "transform/registry.h"

namespace wb::transform {

namespace {

using namespace tir;

struct KernelInfo {
  std::vector<Var> params;
  std::vector<std::string> launch_params;
  std::vector<PrimExpr> launch_args;  // in terms of params
};

bool IsLaunchTag(const std::string& tag) {
  return tag.rfind("blockIdx.", 0) == 0 || tag.rfind("threadIdx.", 0) == 0;
}

KernelInfo Collect(const PrimFunc& func, const std::string& name) {
  KernelInfo info;
  info.params = func->params;
  PrimExpr dyn_shared;
  // Pre-order, so that "first launch" is the outermost, earliest one.
  class Collector : public StmtVisitor {
   public:
    KernelInfo* info;
    PrimExpr* dyn;
    std::string name;
    void VisitStmt_(const AttrStmtNode* op) override {
      auto* iv = op->node.as<IterVarNode>();
      if (iv && op->attr_key == "thread_extent" && IsLaunchTag(iv->thread_tag)) {
        auto& tags = info->launch_params;
        if (std::find(tags.begin(), tags.end(), iv->thread_tag) == tags.end()) {
          tags.push_back(iv->thread_tag);
          info->launch_args.push_back(op->value);
        }
      }
      StmtVisitor::VisitStmt_(op);
    }
    void VisitStmt_(const AllocBufferNode* op) override {
      if (op->buffer->scope() == "shared.dyn") {
        if (dyn->defined()) {
          throw ir::PassError(Diagnostic::Error(
              "kernel " + name + " allocates dynamic shared memory twice; only one "
              "shared.dyn allocation is allowed per kernel",
              op->span));
        }
        PrimExpr bytes = MakeIntImm(DataType::Int(32), op->buffer->dtype.bytes() * op->buffer->dtype.lanes());
        for (const auto& d : op->buffer->shape) bytes = mul(bytes, d);
        *dyn = bytes;
      }
      StmtVisitor::VisitStmt_(op);
    }
  } collector;
  collector.info = &info;
  collector.dyn = &dyn_shared;
  collector.name = name;
  collector(func->body);
  if (dyn_shared.defined()) {
    info.launch_params.push_back("tir.use_dyn_shared_memory");
    info.launch_args.push_back(dyn_shared);
  }
  return info;
}

class LaunchRewriter : public StmtExprMutator {
 public:
  using StmtExprMutator::VisitExpr_;
  explicit LaunchRewriter(const std::map<std::string, KernelInfo>* kernels) : kernels_(kernels) {}
  std::set<std::string> launched;

  PrimExpr VisitExpr_(const CallNode* op) override {
    PrimExpr e = StmtExprMutator::VisitExpr_(op);
    auto* call = e.as<CallNode>();
    auto* gv = call ? call->op.as<ir::GlobalVarNode>() : nullptr;
    if (!gv) return e;
    auto it = kernels_->find(gv->name_hint);
    if (it == kernels_->end()) return e;
    const KernelInfo& info = it->second;
    if (call->args.size() != info.params.size()) {
      throw ir::PassError(Diagnostic::Error(
          "kernel " + gv->name_hint + " takes " + std::to_string(info.params.size()) +
              " arguments but is called with " + std::to_string(call->args.size()),
          op->span));
    }
    VarMap vmap;
    for (size_t i = 0; i < call->args.size(); ++i) vmap[info.params[i].get()] = call->args[i];
    std::vector<PrimExpr> args;
    args.push_back(MakeStringImm(gv->name_hint, op->span));
    for (const auto& a : call->args) args.push_back(a);
    for (const auto& extent : info.launch_args) args.push_back(Substitute(extent, vmap));
    launched.insert(gv->name_hint);
    return MakeCall(DataType::Int(32), GetOp("tirx.tvm_call_packed"), std::move(args), op->span);
  }

 private:
  const std::map<std::string, KernelInfo>* kernels_;
};

ir::IRModule Run(ir::IRModule module, const ir::PassContext&) {
  // Kernels: the device PrimFuncs SplitHostDevice made (or already marked as kernels).
  std::map<std::string, KernelInfo> kernels;
  for (size_t i = 0; i < module->functions.size(); ++i) {
    auto* func = module->functions[i].as<PrimFuncNode>();
    if (!func || !func->GetAttr("tir.is_global_func")) continue;
    const std::string& name = module->global_vars[i]->name_hint;
    kernels[name] = Collect(GetRef(func), name);
  }
  if (kernels.empty()) return module;
  LaunchRewriter rewriter(&kernels);
  std::vector<ir::BaseFunc> funcs = module->functions;
  for (size_t i = 0; i < funcs.size(); ++i) {
    auto* func = funcs[i].as<PrimFuncNode>();
    if (!func || kernels.count(module->global_vars[i]->name_hint)) continue;
    Stmt body = rewriter(func->body);
    if (body.same_as(func->body)) continue;
    PrimFunc host = GetRef(func);
    host.CopyOnWrite()->body = body;
    funcs[i] = host;
  }
  for (size_t i = 0; i < funcs.size(); ++i) {
    const std::string& name = module->global_vars[i]->name_hint;
    auto it = kernels.find(name);
    if (it == kernels.end() || !rewriter.launched.count(name)) continue;
    PrimFunc kernel = Downcast<PrimFuncNode>(funcs[i]);
    auto* k = kernel.CopyOnWrite();
    k->ret_type = {};
    k->attrs["calling_conv"] = ir::MakeInt(2);
    std::vector<ir::ObjectRef> tags;
    for (const auto& t : it->second.launch_params) tags.push_back(ir::MakeString(t));
    k->attrs["tir.kernel_launch_params"] = ir::MakeArray(std::move(tags));
    k->attrs["global_symbol"] = ir::MakeString(name);
    funcs[i] = kernel;
  }
  return ir::MakeIRModule(module->global_vars, std::move(funcs), module->attrs, module->span);
}

}  // namespace

ir::Pass LowerDeviceKernelLaunch() {
  return ir::CreateModulePass(Run, 0, "LowerDeviceKernelLaunch");
}

static PassRegistrar registrar({"LowerDeviceKernelLaunch",
                                "host calls of device PrimFuncs become T.call_packed kernel "
                                "launches with host-computed launch extents",
                                {},
                                [](const PassArgs&) { return LowerDeviceKernelLaunch(); }});

}  // namespace wb::transform
