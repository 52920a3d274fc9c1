#include "transform/tir/lower_init_block.h"

#include "tir/functor.h"
#include "tir/op.h"
#include "tir/transform.h"
#include "transform/registry.h"

namespace wb::transform {

namespace {

using namespace tir;

class InitLowerer : public StmtExprMutator {
 public:
  using StmtExprMutator::VisitStmt_;

  Stmt VisitStmt_(const SBlockNode* op) override {
    Stmt lowered = StmtExprMutator::VisitStmt_(op);
    const auto* block = lowered.as<SBlockNode>();
    if (!block->init.defined()) return lowered;
    PrimExpr at_start;
    for (const auto& iv : block->iter_vars) {
      if (iv->iter_type != IterVarType::kCommReduce) continue;
      PrimExpr first = equal(iv->var, iv->dom->min);
      at_start = at_start.defined() ? logical_and(at_start, first) : first;
    }
    // The guard and the sequence keep the lines of the init and of the block (debug lines).
    Stmt init = at_start.defined() ? MakeIfThenElse(at_start, block->init, {}, block->init->span) : block->init;
    SBlock copy = Downcast<SBlockNode>(lowered);
    SBlockNode* n = copy.CopyOnWrite();
    n->body = MakeSeq({init, block->body}, block->span);
    n->init = Stmt();
    return copy;
  }
};

}  // namespace

ir::Pass LowerInitBlock() {
  return tir::CreateBodyRewritePass([](const Stmt& body) { return InitLowerer()(body); }, 0,
                                   "LowerInitBlock");
}

static PassRegistrar registrar({"LowerInitBlock",
                                "turns T.init() into a guarded update at the first reduction step",
                                {},
                                [](const PassArgs&) { return LowerInitBlock(); }});

}  // namespace wb::transform
