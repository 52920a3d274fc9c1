#include "transform/relax/canonicalize_bindings.h"

#include <unordered_set>

#include "ir/structural_equal.h"
#include "transform/registry.h"
#include "transform/relax/expr_mutator.h"

namespace wb::transform {

namespace {

using namespace relax;

class BindingCanonicalizer : public RelaxExprMutator {
 public:
  void VisitBindingBlock(const BindingBlock& block, std::vector<BindingBlock>* out) override {
    // Output vars that take over the binding of the dataflow var they copy: `lv = v; gv = lv`
    // becomes `gv = v`. Only the first copy of lv takes it over.
    std::unordered_map<const VarNode*, Var> takeover;
    if (block.as<DataflowBlockNode>()) {
      for (const Binding& b : block->bindings) {
        auto* vb = b.as<VarBindingNode>();
        if (!vb || vb->var.as<DataflowVarNode>()) continue;
        auto* src = vb->value.as<DataflowVarNode>();
        if (src && !takeover.count(src)) takeover[src] = vb->var;
      }
    }
    std::vector<Binding> bindings;
    for (const Binding& b : block->bindings) {
      auto it = takeover.find(b->var.get());
      if (it != takeover.end()) {
        // Bind the output var directly; lv's uses read it.
        var_remap_[b->var.get()] = it->second;
        taken_.insert(it->second.get());
        if (auto* vb = b.as<VarBindingNode>()) {
          bindings.push_back(MakeVarBinding(it->second, VisitExpr(vb->value), vb->span));
        } else {
          auto* mc = b.as<MatchCastNode>();
          bindings.push_back(MakeMatchCast(it->second, VisitExpr(mc->value), mc->struct_info, mc->span));
        }
        continue;
      }
      if (auto* vb = b.as<VarBindingNode>(); vb && taken_.count(vb->var.get())) {
        continue;  // `gv = lv`, already bound above
      }
      VisitBinding(b, &bindings);
    }
    if (bindings.empty()) return;
    bool changed = bindings.size() != block->bindings.size();
    for (size_t i = 0; !changed && i < bindings.size(); ++i) {
      changed = !bindings[i].same_as(block->bindings[i]);
    }
    out->push_back(changed ? RebuildBlock(block, std::move(bindings)) : block);
  }

  void VisitBinding(const Binding& binding, std::vector<Binding>* out) override {
    Expr value;
    Type declared = binding->var->struct_info;
    if (auto* vb = binding.as<VarBindingNode>()) {
      value = VisitExpr(vb->value);
    } else {
      auto* mc = binding.as<MatchCastNode>();
      value = VisitExpr(mc->value);
      // A match_cast to exactly the value's type checks nothing and defines nothing new.
      Type from = GetType(value);
      if (!from.defined() || !ir::StructuralEqual(from, mc->struct_info, false)) {
        RelaxExprMutator::VisitBinding(binding, out);
        return;
      }
    }
    Expr replacement;
    if (value.as<VarNode>()) {
      replacement = value;
    } else if (auto* g = value.as<TupleGetItemNode>()) {
      // t[i] of a tuple bound in this function: the field itself, when it is a var or a leaf.
      Expr tuple = g->tuple;
      if (auto* v = tuple.as<VarNode>()) {
        auto it = tuples_.find(v);
        if (it != tuples_.end()) tuple = it->second;
      }
      if (auto* t = tuple.as<TupleNode>(); t && g->index >= 0 &&
                                            g->index < static_cast<int64_t>(t->fields.size())) {
        const Expr& field = t->fields[g->index];
        if (field.as<VarNode>() || field.as<ConstantNode>()) replacement = field;
      }
    }
    if (replacement.defined() && CanReplace(binding->var, replacement, declared)) {
      var_remap_[binding->var.get()] = replacement;
      return;
    }
    if (auto* t = value.as<TupleNode>()) tuples_[binding->var.get()] = GetRef(t);
    if (auto* vb = binding.as<VarBindingNode>()) {
      out->push_back(value.same_as(vb->value) ? binding : MakeVarBinding(vb->var, value, vb->span));
    } else {
      // A match_cast that reaches here checks nothing (see above): a plain binding.
      auto* mc = binding.as<MatchCastNode>();
      out->push_back(MakeVarBinding(mc->var, value, mc->span));
    }
  }

 private:
  // `var`'s uses may read `value` instead: `value` is visible wherever var is (a dataflow var
  // cannot stand in for an output var) and its type is at least as precise as var's.
  static bool CanReplace(const Var& var, const Expr& value, const Type& declared) {
    if (value.as<DataflowVarNode>() && !var.as<DataflowVarNode>()) return false;
    Type t = GetType(value);
    return t.defined() && declared.defined() && IsBaseOf(declared, t);
  }

  std::unordered_map<const VarNode*, Tuple> tuples_;
  std::unordered_set<const VarNode*> taken_;
};

}  // namespace

ir::Pass CanonicalizeBindings() {
  return ir::CreateModulePass(
      [](ir::IRModule module, const ir::PassContext&) {
        return MapRelaxFunctions(module, [](const Function& f, const ir::GlobalVar&) {
          return Downcast<FunctionNode>(BindingCanonicalizer().VisitExpr(f));
        });
      },
      0, "CanonicalizeBindings");
}

static PassRegistrar registrar({"CanonicalizeBindings",
                                "removes bindings that only rename a value (Relax)",
                                {},
                                [](const PassArgs&) { return CanonicalizeBindings(); }});

}  // namespace wb::transform
