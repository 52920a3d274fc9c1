#include "transform/relax/eliminate_common_subexpr.h"

#include <unordered_map>

#include "ir/structural_equal.h"
#include "ir/structural_hash.h"
#include "transform/registry.h"
#include "transform/relax/expr_mutator.h"

namespace wb::transform {

namespace {

using namespace relax;

bool IsAllocation(const Expr& value) {
  auto* call = value.as<CallNode>();
  auto* op = call ? call->op.as<ir::OpNode>() : nullptr;
  if (!op) return false;
  return op->name == "relax.builtin.alloc_tensor" || op->name == "relax.memory.alloc_tensor" ||
         op->name == "relax.memory.alloc_storage";
}

class CommonSubexprEliminator : public RelaxExprMutator {
 public:
  CommonSubexprEliminator(ir::IRModule module, bool call_only)
      : module_(std::move(module)), call_only_(call_only) {}

  void VisitBindingBlock(const BindingBlock& block, std::vector<BindingBlock>* out) override {
    // Values are remembered per block: a later block may run under other conditions (If
    // branches are SeqExprs of their own).
    std::unordered_multimap<uint64_t, std::pair<Expr, Var>> seen;
    std::vector<Binding> bindings;
    for (const Binding& b : block->bindings) {
      auto* vb = b.as<VarBindingNode>();
      if (!vb) {
        VisitBinding(b, &bindings);
        continue;
      }
      Expr value = VisitExpr(vb->value);
      bool candidate = !value.as<VarNode>() && !value.as<FunctionNode>() &&
                       !value.as<IfNode>() && !value.as<ConstantNode>() &&
                       (!call_only_ || value.as<CallNode>()) && !IsAllocation(value) &&
                       IsPureValue(value, module_);
      if (candidate) {
        uint64_t h = ir::StructuralHash(value, false);
        auto [lo, hi] = seen.equal_range(h);
        Var earlier;
        for (auto it = lo; it != hi; ++it) {
          if (ir::StructuralEqual(it->second.first, value, false) &&
              ir::StructuralEqual(it->second.second->struct_info, vb->var->struct_info, false)) {
            earlier = it->second.second;
            break;
          }
        }
        if (earlier.defined()) {
          if (earlier.as<DataflowVarNode>() && !vb->var.as<DataflowVarNode>()) {
            bindings.push_back(MakeVarBinding(vb->var, earlier, vb->span));
          } else {
            var_remap_[vb->var.get()] = earlier;
          }
          continue;
        }
        seen.emplace(h, std::make_pair(value, vb->var));
      }
      bindings.push_back(value.same_as(vb->value) ? b : MakeVarBinding(vb->var, value, vb->span));
    }
    if (bindings.empty()) return;
    bool changed = bindings.size() != block->bindings.size();
    for (size_t i = 0; !changed && i < bindings.size(); ++i) {
      changed = !bindings[i].same_as(block->bindings[i]);
    }
    out->push_back(changed ? RebuildBlock(block, std::move(bindings)) : block);
  }

 private:
  ir::IRModule module_;
  bool call_only_;
};

}  // namespace

ir::Pass EliminateCommonSubexpr(bool call_only) {
  return ir::CreateModulePass(
      [call_only](ir::IRModule module, const ir::PassContext&) {
        return MapRelaxFunctions(module, [&](const Function& f, const ir::GlobalVar&) {
          return Downcast<FunctionNode>(CommonSubexprEliminator(module, call_only).VisitExpr(f));
        });
      },
      1, "EliminateCommonSubexpr");
}

static PassRegistrar registrar(
    {"EliminateCommonSubexpr",
     "replaces a pure value computed again in a block by the earlier var (Relax)",
     {{"call_only", ParamType::kBool, ir::MakeBool(false), "only merge calls"}},
     [](const PassArgs& args) { return EliminateCommonSubexpr(args.Bool("call_only")); }});

}  // namespace wb::transform
