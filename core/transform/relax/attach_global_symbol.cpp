#include "transform/relax/attach_global_symbol.h"

#include <unordered_map>

#include "relax/expr.h"
#include "tir/functor.h"
#include "tir/stmt.h"
#include "transform/registry.h"
#include "transform/relax/expr_mutator.h"

namespace wb::transform {

namespace {

using GlobalMap = std::unordered_map<const ir::Object*, ir::GlobalVar>;

// References to renamed PrimFuncs, in Relax functions (call_tir callees, direct calls).
class RelaxGlobalRenamer : public RelaxExprMutator {
 public:
  explicit RelaxGlobalRenamer(const GlobalMap& map) : map_(map) {}
  relax::Expr VisitExpr(const relax::Expr& expr) override {
    if (auto it = map_.find(expr.get()); it != map_.end()) return it->second;
    return RelaxExprMutator::VisitExpr(expr);
  }

 private:
  const GlobalMap& map_;
};

// ... and in PrimFuncs calling each other.
class TirGlobalRenamer : public tir::StmtExprMutator {
 public:
  explicit TirGlobalRenamer(const GlobalMap& map) : map_(map) {}
  using tir::StmtExprMutator::VisitExpr_;
  ir::PrimExpr VisitExpr_(const tir::CallNode* op) override {
    ir::PrimExpr e = tir::StmtExprMutator::VisitExpr_(op);
    auto* call = e.as<tir::CallNode>();
    auto it = call ? map_.find(call->op.get()) : map_.end();
    if (it == map_.end()) return e;
    tir::Call out = ir::GetRef(call);
    out.CopyOnWrite()->op = it->second;
    return out;
  }

 private:
  const GlobalMap& map_;
};

}  // namespace

ir::Pass AttachGlobalSymbol() {
  return ir::CreateModulePass(
      [](ir::IRModule module, const ir::PassContext&) {
        // With a system library prefix, PrimFuncs are exported (and renamed) as prefix + name.
        std::string prefix;
        if (auto it = module->attrs.find("system_lib_prefix"); it != module->attrs.end()) {
          if (auto* str = it->second.as<ir::StringObj>()) prefix = str->value;
        }
        std::vector<ir::GlobalVar> vars = module->global_vars;
        std::vector<ir::BaseFunc> funcs;
        GlobalMap renamed;
        bool changed = false;
        for (size_t i = 0; i < module->functions.size(); ++i) {
          ir::BaseFunc f = module->functions[i];
          std::string name = module->global_vars[i]->name_hint;
          if (f.as<tir::PrimFuncNode>() && !prefix.empty()) {
            name = prefix + name;
            vars[i] = ir::MakeGlobalVar(name);
            renamed[module->global_vars[i].get()] = vars[i];
          }
          bool attachable = f.as<tir::PrimFuncNode>() || f.as<relax::FunctionNode>();
          auto it = f->attrs.find("global_symbol");
          auto* current = it == f->attrs.end() ? nullptr : it->second.as<ir::StringObj>();
          if (attachable && (!current || current->value != name)) {
            ir::Object* copy = f->Clone();
            static_cast<ir::BaseFuncNode*>(copy)->attrs["global_symbol"] = ir::MakeString(name);
            f = ir::BaseFunc(static_cast<ir::BaseFuncNode*>(copy));
            changed = true;
          }
          funcs.push_back(f);
        }
        if (!changed) return module;
        if (!renamed.empty()) {
          for (auto& f : funcs) {
            if (auto* rf = f.as<relax::FunctionNode>()) {
              f = ir::Downcast<relax::FunctionNode>(RelaxGlobalRenamer(renamed).VisitExpr(ir::GetRef(rf)));
            } else if (auto* pf = f.as<tir::PrimFuncNode>()) {
              TirGlobalRenamer renamer(renamed);
              tir::Stmt body = renamer(pf->body);
              if (!body.same_as(pf->body)) {
                tir::PrimFunc copy = ir::GetRef(pf);
                copy.CopyOnWrite()->body = body;
                f = copy;
              }
            }
          }
        }
        return ir::WithFunctions(module, std::move(vars), std::move(funcs));
      },
      0, "AttachGlobalSymbol");
}

static PassRegistrar registrar(
    {"AttachGlobalSymbol",
     "gives every function the external symbol of its name (global_symbol)",
     {},
     [](const PassArgs&) { return AttachGlobalSymbol(); }});

}  // namespace wb::transform
