#include "transform/tir/convert_blocks_to_opaque.h"

#include "tir/functor.h"
#include "tir/substitute.h"
#include "tir/transform.h"
#include "transform/registry.h"

namespace wb::transform {

namespace {

using namespace tir;

class OpaqueConverter : public StmtExprMutator {
 public:
  using StmtExprMutator::VisitExpr_;
  using StmtExprMutator::VisitStmt_;

  PrimExpr VisitExpr_(const VarNode* op) override {
    auto it = bindings_.find(op);
    return it == bindings_.end() ? PrimExpr(GetRef(op)) : it->second;
  }

  Stmt VisitStmt_(const SBlockRealizeNode* op) override {
    const SBlockNode* block = op->block.get();
    if (block->init.defined()) {
      throw ir::PassError(Diagnostic::Error(
          "block '" + block->name_hint + "' still has an init statement; run LowerInitBlock first",
          block->span));
    }
    // Bindings may use outer iter vars (nested blocks): substitute them first.
    std::vector<PrimExpr> values;
    for (const auto& v : op->iter_values) values.push_back(VisitExpr(v));
    for (size_t i = 0; i < block->iter_vars.size() && i < values.size(); ++i) {
      bindings_[block->iter_vars[i]->var.get()] = values[i];
    }
    PrimExpr predicate = VisitExpr(op->predicate);
    Stmt new_block = VisitStmt(op->block);
    for (const auto& iv : block->iter_vars) bindings_.erase(iv->var.get());
    SBlock b = Downcast<SBlockNode>(new_block);
    if (!b->iter_vars.empty()) b.CopyOnWrite()->iter_vars.clear();
    return MakeSBlockRealize({}, predicate, b, op->span);
  }

 private:
  VarMap bindings_;
};

}  // namespace

ir::Pass ConvertBlocksToOpaque() {
  return tir::CreateBodyRewritePass([](const Stmt& body) { return OpaqueConverter()(body); }, 0,
                                   "ConvertBlocksToOpaque");
}

static PassRegistrar registrar({"ConvertBlocksToOpaque",
                                "replaces block iter vars by their bindings",
                                {},
                                [](const PassArgs&) { return ConvertBlocksToOpaque(); }});

}  // namespace wb::transform
