#include "transform/tir/verify_gpu_binding.h"

#include <set>

#include "tir/functor.h"
#include "tir/transform.h"
#include "transform/registry.h"

namespace wb::transform {

namespace {

using namespace tir;

bool IsLaunchTag(const std::string& tag) {
  return tag.rfind("blockIdx.", 0) == 0 || tag.rfind("threadIdx.", 0) == 0;
}

class BindingChecker : public StmtExprVisitor {
 public:
  using StmtExprVisitor::VisitStmt_;
  std::vector<Diagnostic> errors;

  void VisitStmt_(const ForNode* op) override {
    const bool launch = op->kind == ForKind::kThreadBinding && op->thread_binding.defined() &&
                        IsLaunchTag(op->thread_binding->thread_tag);
    depth_ += launch;
    StmtExprVisitor::VisitStmt_(op);
    depth_ -= launch;
  }
  void VisitStmt_(const AttrStmtNode* op) override {
    auto* iv = op->node.as<IterVarNode>();
    const bool launch = iv && op->attr_key == "thread_extent" && IsLaunchTag(iv->thread_tag);
    depth_ += launch;
    StmtExprVisitor::VisitStmt_(op);
    depth_ -= launch;
  }
  void VisitStmt_(const SBlockNode* op) override {
    blocks_.push_back(op);
    StmtExprVisitor::VisitStmt_(op);
    blocks_.pop_back();
  }
  void VisitStmt_(const BufferStoreNode* op) override {
    if (depth_ == 0) Unbound(op->buffer, op->span);
    StmtExprVisitor::VisitStmt_(op);
  }
  void VisitExpr_(const BufferLoadNode* op) override {
    if (depth_ == 0) Unbound(op->buffer, op->span);
    StmtExprVisitor::VisitExpr_(op);
  }

 private:
  void Unbound(const Buffer& buffer, const Span& span) {
    const SBlockNode* block = blocks_.empty() ? nullptr : blocks_.back();
    if (block && !reported_blocks_.insert(block).second) return;
    if (!block && !reported_buffers_.insert(buffer.get()).second) return;
    std::string what = block ? "block '" + block->name_hint + "'" : "an access to '" + buffer->name + "'";
    errors.push_back(Diagnostic::Error(
        what + " is not bound to GPU threads: it accesses '" + buffer->name +
            "' outside every blockIdx/threadIdx loop and T.launch_thread, so it would run on the "
            "host. Did you forget to bind? (schedule.bind its loops, or run DefaultGPUSchedule)",
        block && block->span.defined() ? block->span : span));
  }

  int depth_ = 0;
  std::vector<const SBlockNode*> blocks_;
  std::set<const SBlockNode*> reported_blocks_;
  std::set<const BufferNode*> reported_buffers_;
};

bool IsSplit(const PrimFuncNode* func) {
  const Object* cc = func->GetAttr("calling_conv");
  auto* i = dynamic_cast<const ir::IntObj*>(cc);
  if ((i && i->value == 2) || func->GetAttr("tir.is_global_func")) return true;
  // A host function that already launches kernels.
  bool launches = false;
  PostOrderVisit(func->body, [&](const Object* n) {
    auto* call = dynamic_cast<const CallNode*>(n);
    if (call && (call->op.as<ir::GlobalVarNode>() ||
                 (call->op.as<ir::OpNode>() && call->op.as<ir::OpNode>()->name == "tirx.tvm_call_packed"))) {
      launches = true;
    }
  });
  return launches;
}

}  // namespace

ir::Pass VerifyGPUBinding() {
  return CreatePrimFuncPass(
      [](PrimFunc func, const ir::IRModule&, const ir::PassContext&) {
        if (IsSplit(func.get())) return func;
        BindingChecker checker;
        checker(func->body);
        if (!checker.errors.empty()) {
          Diagnostic d = checker.errors[0];
          for (size_t i = 1; i < checker.errors.size(); ++i) {
            d.notes.push_back({checker.errors[i].message, checker.errors[i].span});
          }
          throw ir::PassError(d);
        }
        return func;
      },
      0, "VerifyGPUBinding");
}

static PassRegistrar registrar({"VerifyGPUBinding",
                                "fails, naming the block, when a GPU function accesses memory "
                                "outside its thread bindings",
                                {},
                                [](const PassArgs&) { return VerifyGPUBinding(); }});

}  // namespace wb::transform
