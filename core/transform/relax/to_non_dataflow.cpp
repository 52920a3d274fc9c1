#include "transform/relax/to_non_dataflow.h"

#include "transform/registry.h"
#include "transform/relax/expr_mutator.h"

namespace wb::transform {

namespace {

using namespace relax;

class DataflowRemover : public RelaxExprMutator {
 public:
  Var VisitVarDef(const Var& var) override {
    if (!var.as<DataflowVarNode>()) return var;
    Var plain = MakeVar(var->name_hint, var->struct_info, var->span);
    var_remap_[var.get()] = plain;
    return plain;
  }
  // Adjacent blocks become one plain block: the form the text has (consecutive plain bindings
  // are one block), so the result prints and parses back to itself.
  void VisitBindingBlock(const BindingBlock& block, std::vector<BindingBlock>* out) override {
    std::vector<Binding> bindings;
    if (!out->empty() && !out->back().as<DataflowBlockNode>()) {
      bindings = out->back()->bindings;
      out->pop_back();
    }
    for (const Binding& b : block->bindings) VisitBinding(b, &bindings);
    if (bindings.empty()) return;
    out->push_back(MakeBindingBlock(std::move(bindings), block->span));
  }
};

}  // namespace

ir::Pass ToNonDataflow() {
  return ir::CreateModulePass(
      [](ir::IRModule module, const ir::PassContext&) {
        return MapRelaxFunctions(module, [](const Function& f, const ir::GlobalVar&) {
          return Downcast<FunctionNode>(DataflowRemover().VisitExpr(f));
        });
      },
      0, "ToNonDataflow");
}

static PassRegistrar registrar({"ToNonDataflow",
                                "turns dataflow blocks into plain binding blocks (Relax)",
                                {},
                                [](const PassArgs&) { return ToNonDataflow(); }});

}  // namespace wb::transform
