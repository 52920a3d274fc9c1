#include "transform/relax/remove_purity_checking.h"

#include "transform/registry.h"
#include "transform/relax/expr_mutator.h"

namespace wb::transform {

namespace {

using namespace relax;

class ForcePure : public RelaxExprMutator {
 public:
  Expr VisitFunction(const FunctionNode* func) override {
    Expr visited = RelaxExprMutator::VisitFunction(func);
    auto* f = visited.as<FunctionNode>();
    if (!f->is_pure) return visited;
    auto it = f->attrs.find("relax.force_pure");
    if (it != f->attrs.end() && it->second.as<ir::BoolObj>() && it->second.as<ir::BoolObj>()->value) {
      return visited;
    }
    Function out = GetRef(f);
    out.CopyOnWrite()->attrs["relax.force_pure"] = ir::MakeBool(true);
    return out;
  }
};

}  // namespace

ir::Pass RemovePurityChecking() {
  return ir::CreateModulePass(
      [](ir::IRModule module, const ir::PassContext&) {
        return MapRelaxFunctions(module, [](const Function& f, const ir::GlobalVar&) {
          return Downcast<FunctionNode>(ForcePure().VisitExpr(f));
        });
      },
      0, "RemovePurityChecking");
}

static PassRegistrar registrar(
    {"RemovePurityChecking",
     "marks pure Relax functions relax.force_pure, so they may hold impure calls",
     {},
     [](const PassArgs&) { return RemovePurityChecking(); }});

}  // namespace wb::transform
