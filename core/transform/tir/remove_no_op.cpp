#include "transform/tir/remove_no_op.h"

#include "tir/functor.h"
#include "tir/transform.h"
#include "transform/registry.h"

namespace wb::transform {

namespace {

using namespace tir;

bool IsNoOp(const Stmt& s) {
  if (!s.defined()) return true;
  if (auto* e = s.as<EvaluateNode>()) {
    return e->value.as<IntImmNode>() || e->value.as<FloatImmNode>() ||
           e->value.as<StringImmNode>();
  }
  if (auto* seq = s.as<SeqStmtNode>()) return seq->seq.empty();
  return false;
}

class NoOpRemover : public StmtExprMutator {
 public:
  using StmtExprMutator::VisitStmt_;

  Stmt VisitStmt_(const EvaluateNode* op) override {
    Stmt s = GetRef(op);
    return IsNoOp(s) ? NoOp() : s;
  }
  Stmt VisitStmt_(const ForNode* op) override {
    Stmt s = StmtExprMutator::VisitStmt_(op);
    auto* loop = s.as<ForNode>();
    if (loop && IsNoOp(loop->body)) return NoOp();
    if (loop && IsConstInt(loop->extent, 0)) return NoOp();
    return s;
  }
  Stmt VisitStmt_(const WhileNode* op) override { return StmtExprMutator::VisitStmt_(op); }
  Stmt VisitStmt_(const IfThenElseNode* op) override {
    Stmt s = StmtExprMutator::VisitStmt_(op);
    auto* branch = s.as<IfThenElseNode>();
    if (!branch) return s;
    bool then_noop = IsNoOp(branch->then_case);
    bool else_noop = IsNoOp(branch->else_case);
    if (then_noop && else_noop) return NoOp();
    if (else_noop && branch->else_case.defined()) {
      return MakeIfThenElse(branch->condition, branch->then_case, {}, branch->span);
    }
    if (then_noop) {
      return MakeIfThenElse(MakeNot(branch->condition), branch->else_case, {}, branch->span);
    }
    return s;
  }
  Stmt VisitStmt_(const AttrStmtNode* op) override {
    Stmt s = StmtExprMutator::VisitStmt_(op);
    auto* attr = s.as<AttrStmtNode>();
    if (attr && IsNoOp(attr->body)) return NoOp();
    return s;
  }
  Stmt VisitStmt_(const SeqStmtNode* op) override {
    Stmt s = StmtExprMutator::VisitStmt_(op);
    auto* seq = s.as<SeqStmtNode>();
    if (!seq) return s;
    std::vector<Stmt> kept;
    for (const auto& child : seq->seq) {
      if (!IsNoOp(child)) kept.push_back(child);
    }
    if (kept.size() == seq->seq.size()) return s;
    return MakeSeq(std::move(kept), seq->span);
  }

 private:
  static Stmt NoOp() { return MakeEvaluate(MakeIntImm(DataType::Int(32), 0)); }
};

}  // namespace

ir::Pass RemoveNoOp() {
  return tir::CreateBodyRewritePass([](const Stmt& body) { return NoOpRemover()(body); }, 0,
                                   "RemoveNoOp");
}

static PassRegistrar registrar({"RemoveNoOp", "removes statements that do nothing", {},
                                [](const PassArgs&) { return RemoveNoOp(); }});

}  // namespace wb::transform
