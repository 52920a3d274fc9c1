#include "transform/relax/expr_mutator.h"

#include "relax/op/registry.h"

namespace wb::transform {

using namespace relax;

Expr RelaxExprMutator::VisitExpr(const Expr& expr) {
  if (!expr.defined()) return expr;
  if (auto* v = expr.as<VarNode>()) return VisitVar(GetRef(v));
  if (auto* c = expr.as<CallNode>()) return VisitCall(c);
  if (auto* f = expr.as<FunctionNode>()) return VisitFunction(f);
  if (auto* s = expr.as<SeqExprNode>()) return VisitSeqExpr(s);
  if (auto* t = expr.as<TupleNode>()) {
    std::vector<Expr> fields;
    bool changed = false;
    for (const Expr& f : t->fields) {
      fields.push_back(VisitExpr(f));
      changed |= !fields.back().same_as(f);
    }
    if (!changed) return expr;
    Tuple out = GetRef(t);
    out.CopyOnWrite()->fields = std::move(fields);
    return out;
  }
  if (auto* g = expr.as<TupleGetItemNode>()) {
    Expr tuple = VisitExpr(g->tuple);
    if (tuple.same_as(g->tuple)) return expr;
    TupleGetItem out = GetRef(g);
    out.CopyOnWrite()->tuple = tuple;
    return out;
  }
  if (auto* i = expr.as<IfNode>()) {
    Expr cond = VisitExpr(i->cond);
    Expr t = VisitExpr(i->true_branch);
    Expr f = VisitExpr(i->false_branch);
    if (cond.same_as(i->cond) && t.same_as(i->true_branch) && f.same_as(i->false_branch)) {
      return expr;
    }
    If out = GetRef(i);
    auto* n = out.CopyOnWrite();
    n->cond = cond;
    n->true_branch = t;
    n->false_branch = f;
    return out;
  }
  return expr;
}

Expr RelaxExprMutator::VisitVar(const Var& var) {
  auto it = var_remap_.find(var.get());
  return it == var_remap_.end() ? Expr(var) : it->second;
}

Expr RelaxExprMutator::VisitCall(const CallNode* call) {
  Expr op = VisitExpr(call->op);
  bool changed = !op.same_as(call->op);
  std::vector<Expr> args;
  for (const Expr& a : call->args) {
    args.push_back(VisitExpr(a));
    changed |= !args.back().same_as(a);
  }
  if (!changed) return GetRef(call);
  Call out = GetRef(call);
  auto* n = out.CopyOnWrite();
  n->op = op;
  n->args = std::move(args);
  return out;
}

Expr RelaxExprMutator::VisitFunction(const FunctionNode* func) {
  std::vector<Var> params;
  bool changed = false;
  for (const Var& p : func->params) {
    params.push_back(VisitVarDef(p));
    changed |= !params.back().same_as(p);
  }
  Expr body = VisitExpr(func->body);
  if (!changed && body.same_as(func->body)) return GetRef(func);
  Function out = GetRef(func);
  auto* n = out.CopyOnWrite();
  n->params = std::move(params);
  n->body = body;
  return out;
}

Expr RelaxExprMutator::VisitSeqExpr(const SeqExprNode* seq) {
  std::vector<BindingBlock> blocks;
  for (const BindingBlock& b : seq->blocks) VisitBindingBlock(b, &blocks);
  Expr body = VisitExpr(seq->body);
  bool changed = !body.same_as(seq->body) || blocks.size() != seq->blocks.size();
  for (size_t i = 0; !changed && i < blocks.size(); ++i) changed = !blocks[i].same_as(seq->blocks[i]);
  if (!changed) return GetRef(seq);
  SeqExpr out = GetRef(seq);
  auto* n = out.CopyOnWrite();
  n->blocks = std::move(blocks);
  n->body = body;
  return out;
}

BindingBlock RelaxExprMutator::RebuildBlock(const BindingBlock& block,
                                            std::vector<Binding> bindings) {
  if (block.as<DataflowBlockNode>()) return MakeDataflowBlock(std::move(bindings), block->span);
  return MakeBindingBlock(std::move(bindings), block->span);
}

void RelaxExprMutator::VisitBindingBlock(const BindingBlock& block, std::vector<BindingBlock>* out) {
  std::vector<Binding> bindings;
  for (const Binding& b : block->bindings) VisitBinding(b, &bindings);
  if (bindings.empty()) return;
  bool changed = bindings.size() != block->bindings.size();
  for (size_t i = 0; !changed && i < bindings.size(); ++i) {
    changed = !bindings[i].same_as(block->bindings[i]);
  }
  out->push_back(changed ? RebuildBlock(block, std::move(bindings)) : block);
}

void RelaxExprMutator::VisitBinding(const Binding& binding, std::vector<Binding>* out) {
  if (auto* vb = binding.as<VarBindingNode>()) {
    Expr value = VisitExpr(vb->value);
    Var var = VisitVarDef(vb->var);
    if (value.same_as(vb->value) && var.same_as(vb->var)) {
      out->push_back(binding);
    } else {
      out->push_back(MakeVarBinding(var, value, vb->span));
    }
    return;
  }
  auto* mc = binding.as<MatchCastNode>();
  Expr value = VisitExpr(mc->value);
  Var var = VisitVarDef(mc->var);
  if (value.same_as(mc->value) && var.same_as(mc->var)) {
    out->push_back(binding);
  } else {
    out->push_back(MakeMatchCast(var, value, mc->struct_info, mc->span));
  }
}

ir::IRModule MapRelaxFunctions(
    const ir::IRModule& module,
    const std::function<Function(const Function&, const ir::GlobalVar&)>& fn) {
  std::vector<ir::BaseFunc> funcs;
  bool changed = false;
  for (size_t i = 0; i < module->functions.size(); ++i) {
    ir::BaseFunc f = module->functions[i];
    if (auto* rf = f.as<FunctionNode>()) {
      Function g = fn(GetRef(rf), module->global_vars[i]);
      changed |= !g.same_as(f);
      f = g;
    }
    funcs.push_back(f);
  }
  if (!changed) return module;
  return ir::WithFunctions(module, module->global_vars, std::move(funcs));
}

namespace {

class UseCollector : public RelaxExprMutator {
 public:
  explicit UseCollector(std::unordered_map<const VarNode*, int>* uses) : uses_(uses) {}
  Expr VisitVar(const Var& var) override {
    ++(*uses_)[var.get()];
    return var;
  }

 private:
  std::unordered_map<const VarNode*, int>* uses_;
};

}  // namespace

void CollectVarUses(const Expr& expr, std::unordered_map<const VarNode*, int>* uses) {
  UseCollector collector(uses);
  collector.VisitExpr(expr);
}

bool IsPureValue(const Expr& value, const ir::IRModule& module) {
  if (auto* t = value.as<TupleNode>()) {
    for (const Expr& f : t->fields) {
      if (!IsPureValue(f, module)) return false;
    }
    return true;
  }
  if (auto* g = value.as<TupleGetItemNode>()) return IsPureValue(g->tuple, module);
  if (value.as<IfNode>() || value.as<SeqExprNode>()) return false;  // conservatively
  auto* call = value.as<CallNode>();
  if (!call) return true;
  for (const Expr& a : call->args) {
    if (!IsPureValue(a, module)) return false;
  }
  if (auto* op = call->op.as<ir::OpNode>()) {
    const OpInfo* info = InfoOf(GetRef(op));
    return info && info->pure;
  }
  if (auto* gv = call->op.as<ir::GlobalVarNode>()) {
    ir::BaseFunc f = module.defined() ? module->Lookup(GetRef(gv)) : ir::BaseFunc();
    auto* rf = f.defined() ? f.as<FunctionNode>() : nullptr;
    return rf && rf->is_pure;
  }
  // A call of a local function or an extern function: its purity is its type's.
  Type t = GetType(call->op);
  if (auto* ft = t.defined() ? t.as<FuncTypeNode>() : nullptr) return ft->purity;
  return false;
}

}  // namespace wb::transform
