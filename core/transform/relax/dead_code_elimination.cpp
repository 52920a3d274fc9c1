#include "transform/relax/dead_code_elimination.h"

#include <algorithm>
#include <set>
#include <unordered_map>

#include "relax/type_analysis.h"
#include "tir/functor.h"
#include "transform/registry.h"
#include "transform/relax/expr_mutator.h"

namespace wb::transform {

namespace {

using namespace relax;

// Removes unused pure bindings, innermost scopes first.
class BindingEliminator : public RelaxExprMutator {
 public:
  explicit BindingEliminator(ir::IRModule module) : module_(std::move(module)) {}

  Expr VisitSeqExpr(const SeqExprNode* seq) override {
    // Inner scopes (If branches, nested functions) first, so their uses are final.
    Expr visited = RelaxExprMutator::VisitSeqExpr(seq);
    auto* s = visited.as<SeqExprNode>();
    std::unordered_map<const VarNode*, int> uses;
    CollectVarUses(s->body, &uses);
    std::vector<std::vector<Binding>> kept(s->blocks.size());
    bool changed = false;
    for (size_t bi = s->blocks.size(); bi-- > 0;) {
      const auto& bindings = s->blocks[bi]->bindings;
      for (size_t k = bindings.size(); k-- > 0;) {
        const Binding& b = bindings[k];
        Expr value = b.as<VarBindingNode>() ? b.as<VarBindingNode>()->value
                                            : b.as<MatchCastNode>()->value;
        bool live = uses.count(b->var.get()) || !IsPureValue(value, module_);
        if (auto* mc = b.as<MatchCastNode>(); mc && !VarsOf(mc->struct_info).empty()) live = true;
        if (!live) {
          changed = true;
          continue;
        }
        CollectVarUses(value, &uses);
        kept[bi].push_back(b);
      }
    }
    if (!changed) return visited;
    std::vector<BindingBlock> blocks;
    for (size_t bi = 0; bi < s->blocks.size(); ++bi) {
      if (kept[bi].empty()) continue;
      std::vector<Binding> in_order(kept[bi].rbegin(), kept[bi].rend());
      blocks.push_back(RebuildBlock(s->blocks[bi], std::move(in_order)));
    }
    SeqExpr out = GetRef(s);
    out.CopyOnWrite()->blocks = std::move(blocks);
    return out;
  }

 private:
  ir::IRModule module_;
};

// The GlobalVars that a function refers to (Relax calls and call_tir callees; TensorIR calls of
// other PrimFuncs).
class GlobalCollector : public RelaxExprMutator {
 public:
  explicit GlobalCollector(std::set<std::string>* out) : out_(out) {}
  Expr VisitExpr(const Expr& expr) override {
    if (auto* gv = expr.as<ir::GlobalVarNode>()) out_->insert(gv->name_hint);
    return RelaxExprMutator::VisitExpr(expr);
  }

 private:
  std::set<std::string>* out_;
};

class TirGlobalCollector : public tir::StmtExprVisitor {
 public:
  explicit TirGlobalCollector(std::set<std::string>* out) : out_(out) {}
  using tir::StmtExprVisitor::VisitExpr_;
  void VisitExpr_(const tir::CallNode* op) override {
    if (auto* gv = op->op.as<ir::GlobalVarNode>()) out_->insert(gv->name_hint);
    tir::StmtExprVisitor::VisitExpr_(op);
  }

 private:
  std::set<std::string>* out_;
};

bool IsExternal(const ir::BaseFunc& f) { return f->attrs.count("global_symbol") > 0; }

ir::IRModule RemoveUnusedFunctions(const ir::IRModule& module,
                                   const std::vector<std::string>& entries) {
  std::set<std::string> reached;
  std::vector<std::string> work;
  for (size_t i = 0; i < module->functions.size(); ++i) {
    const std::string& name = module->global_vars[i]->name_hint;
    bool entry = IsExternal(module->functions[i]) ||
                 std::find(entries.begin(), entries.end(), name) != entries.end();
    if (entry && reached.insert(name).second) work.push_back(name);
  }
  while (!work.empty()) {
    std::string name = work.back();
    work.pop_back();
    ir::BaseFunc f = module->Lookup(name);
    if (!f.defined()) continue;
    std::set<std::string> refs;
    if (auto* rf = f.as<FunctionNode>()) {
      GlobalCollector(&refs).VisitExpr(GetRef(rf));
    } else if (auto* pf = f.as<tir::PrimFuncNode>()) {
      TirGlobalCollector collector(&refs);
      collector(pf->body);
    }
    for (const auto& r : refs) {
      if (reached.insert(r).second) work.push_back(r);
    }
  }
  std::vector<ir::GlobalVar> vars;
  std::vector<ir::BaseFunc> funcs;
  for (size_t i = 0; i < module->functions.size(); ++i) {
    const ir::BaseFunc& f = module->functions[i];
    if (!reached.count(module->global_vars[i]->name_hint)) continue;
    vars.push_back(module->global_vars[i]);
    funcs.push_back(f);
  }
  if (funcs.size() == module->functions.size()) return module;
  return ir::WithFunctions(module, std::move(vars), std::move(funcs));
}

}  // namespace

ir::Pass DeadCodeElimination(std::vector<std::string> entry_functions) {
  return ir::CreateModulePass(
      [entry_functions](ir::IRModule module, const ir::PassContext&) {
        for (const auto& name : entry_functions) {
          if (!module->Lookup(name).defined()) {
            throw ir::PassError(Diagnostic::Error(
                "DeadCodeElimination: entry function '" + name + "' is not in the module"));
          }
        }
        ir::IRModule out = MapRelaxFunctions(module, [&](const Function& f, const ir::GlobalVar&) {
          return Downcast<FunctionNode>(BindingEliminator(module).VisitExpr(f));
        });
        return RemoveUnusedFunctions(out, entry_functions);
      },
      0, "DeadCodeElimination");
}

static PassRegistrar registrar(
    {"DeadCodeElimination",
     "removes unused pure bindings and unreachable private functions (Relax)",
     {{"entry_functions", ParamType::kStringList, ir::MakeArray({}),
       "private functions to keep with what they reach, besides the externally visible ones"}},
     [](const PassArgs& args) { return DeadCodeElimination(args.StringList("entry_functions")); }});

}  // namespace wb::transform
