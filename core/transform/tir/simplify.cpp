#include "transform/tir/simplify.h"

#include "arith/analyzer.h"
#include "tir/functor.h"
#include "tir/transform.h"
#include "transform/registry.h"

namespace wb::transform {

namespace {

using namespace tir;

class Simplifier : public StmtExprMutator {
 public:
  using StmtExprMutator::VisitStmt_;

  // Whole expressions go to the analyzer, which simplifies their subexpressions itself.
  PrimExpr VisitExpr(const PrimExpr& e) override {
    if (!e.defined()) return e;
    PrimExpr simplified = analyzer_.Simplify(e);
    return StructurallyIdenticalLeaf(simplified, e) ? e : simplified;
  }

  Stmt VisitStmt_(const ForNode* op) override {
    PrimExpr min = VisitExpr(op->min);
    PrimExpr extent = VisitExpr(op->extent);
    if (!op->step.defined() || IsConstInt(op->step, 1)) {
      analyzer_.Bind(op->loop_var, ir::MakeRange(min, extent), /*allow_override=*/true);
    }
    Stmt body = VisitStmt(op->body);
    if (min.same_as(op->min) && extent.same_as(op->extent) && body.same_as(op->body)) {
      return GetRef(op);
    }
    For copy = GetRef(op);
    ForNode* n = copy.CopyOnWrite();
    n->min = min;
    n->extent = extent;
    n->body = body;
    return copy;
  }

  Stmt VisitStmt_(const SBlockNode* op) override {
    for (const auto& iv : op->iter_vars) {
      analyzer_.Bind(iv->var, iv->dom, /*allow_override=*/true);
    }
    return StmtExprMutator::VisitStmt_(op);
  }

  Stmt VisitStmt_(const IfThenElseNode* op) override {
    PrimExpr cond = VisitExpr(op->condition);
    if (IsConstInt(cond, 1)) return VisitStmt(op->then_case);
    if (IsConstInt(cond, 0)) {
      return op->else_case.defined() ? VisitStmt(op->else_case)
                                     : MakeEvaluate(MakeIntImm(DataType::Int(32), 0));
    }
    Stmt then_case, else_case;
    {
      auto scope = analyzer_.constraint(cond);
      then_case = VisitStmt(op->then_case);
    }
    if (op->else_case.defined()) {
      auto scope = analyzer_.constraint(MakeNot(cond));
      else_case = VisitStmt(op->else_case);
    }
    if (cond.same_as(op->condition) && then_case.same_as(op->then_case) &&
        else_case.same_as(op->else_case)) {
      return GetRef(op);
    }
    return MakeIfThenElse(cond, then_case, else_case, op->span);
  }

 private:
  // The analyzer rebuilds constants and variables; keep the original node when nothing changed
  // so unchanged functions keep their identity.
  static bool StructurallyIdenticalLeaf(const PrimExpr& a, const PrimExpr& b) {
    if (a.same_as(b)) return true;
    auto* ia = a.as<IntImmNode>();
    auto* ib = b.as<IntImmNode>();
    return ia && ib && ia->value == ib->value && ia->dtype == ib->dtype;
  }

  arith::Analyzer analyzer_;
};

}  // namespace

ir::Pass Simplify() {
  return tir::CreateBodyRewritePass([](const Stmt& body) { return Simplifier()(body); }, 0,
                                   "Simplify");
}

static PassRegistrar registrar({"Simplify",
                                "simplifies index arithmetic and provable conditions using loop ranges",
                                {},
                                [](const PassArgs&) { return Simplify(); }});

}  // namespace wb::transform
