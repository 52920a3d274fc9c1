#include "transform/relax/fuse_expr_rewrite.h"

#include <unordered_set>

#include "tir/functor.h"

namespace wb::transform::fuse {

using namespace relax;

namespace {

bool SameExprs(const std::vector<Expr>& a, const std::vector<Expr>& b) {
  for (size_t i = 0; i < a.size(); ++i) {
    if (!a[i].same_as(b[i])) return false;
  }
  return true;
}

}  // namespace

Type ExprRewriter::RewriteType(const Type& type) {
  if (!type.defined() || dim_map.empty()) return type;
  Type out = SubstituteDims(type, dim_map);
  if (simplify && !out.same_as(type)) out = MapDims(out, simplify);
  return out;
}

Expr ExprRewriter::Rewrite(const Expr& expr) {
  if (!expr.defined()) return expr;
  // Vars, and leaves passed as arguments (a constant becomes a parameter), by identity.
  if (auto it = var_map.find(expr.get()); it != var_map.end()) return it->second;
  switch (expr->type_index()) {
    case TypeIndex::kTuple: {
      auto* t = expr.as<TupleNode>();
      std::vector<Expr> fields;
      for (const Expr& f : t->fields) fields.push_back(Rewrite(f));
      Type type = RewriteType(t->struct_info);
      if (SameExprs(fields, t->fields) && type.same_as(t->struct_info)) return expr;
      Tuple out = MakeTuple(std::move(fields), t->span);
      out.CopyOnWrite()->struct_info = type;
      return out;
    }
    case TypeIndex::kTupleGetItem: {
      auto* t = expr.as<TupleGetItemNode>();
      Expr tuple = Rewrite(t->tuple);
      Type type = RewriteType(t->struct_info);
      if (tuple.same_as(t->tuple) && type.same_as(t->struct_info)) return expr;
      TupleGetItem out = MakeTupleGetItem(tuple, t->index, t->span);
      out.CopyOnWrite()->struct_info = type;
      return out;
    }
    case TypeIndex::kShapeExpr: {
      auto* s = expr.as<ShapeExprNode>();
      if (dim_map.empty()) return expr;
      std::vector<PrimExpr> values;
      bool changed = false;
      for (const PrimExpr& v : s->values) {
        values.push_back(SubstituteDims(v, dim_map));
        if (simplify && !values.back().same_as(v)) values.back() = simplify(values.back());
        changed = changed || !values.back().same_as(v);
      }
      return changed ? Expr(MakeShapeExpr(std::move(values), s->span)) : expr;
    }
    case TypeIndex::kPrimValue: {
      auto* p = expr.as<PrimValueNode>();
      if (dim_map.empty()) return expr;
      PrimExpr v = SubstituteDims(p->value, dim_map);
      if (simplify && !v.same_as(p->value)) v = simplify(v);
      return v.same_as(p->value) ? expr : Expr(MakePrimValue(v, p->span));
    }
    case TypeIndex::kRelaxCall: {
      auto* c = expr.as<CallNode>();
      Expr op = Rewrite(c->op);
      std::vector<Expr> args;
      for (const Expr& a : c->args) args.push_back(Rewrite(a));
      std::vector<Type> sinfo_args;
      bool types_changed = false;
      for (const Type& t : c->sinfo_args) {
        sinfo_args.push_back(RewriteType(t));
        types_changed = types_changed || !sinfo_args.back().same_as(t);
      }
      Type type = RewriteType(c->struct_info);
      if (op.same_as(c->op) && SameExprs(args, c->args) && !types_changed &&
          type.same_as(c->struct_info)) {
        return expr;
      }
      Call out = MakeCall(op, std::move(args), c->attrs, std::move(sinfo_args), c->span);
      out.CopyOnWrite()->struct_info = type;
      return out;
    }
    case TypeIndex::kRelaxIf: {
      auto* i = expr.as<IfNode>();
      Expr cond = Rewrite(i->cond);
      Expr t = Rewrite(i->true_branch);
      Expr f = Rewrite(i->false_branch);
      Type type = RewriteType(i->struct_info);
      if (cond.same_as(i->cond) && t.same_as(i->true_branch) && f.same_as(i->false_branch) &&
          type.same_as(i->struct_info)) {
        return expr;
      }
      If out = MakeIf(cond, t, f, i->span);
      out.CopyOnWrite()->struct_info = type;
      return out;
    }
    case TypeIndex::kSeqExpr: {
      auto* s = expr.as<SeqExprNode>();
      std::vector<BindingBlock> blocks;
      bool changed = false;
      for (const BindingBlock& b : s->blocks) {
        blocks.push_back(RewriteBlock(b));
        changed = changed || !blocks.back().same_as(b);
      }
      Expr body = Rewrite(s->body);
      if (!changed && body.same_as(s->body)) return expr;
      return MakeSeqExpr(std::move(blocks), body, s->span);
    }
    default:
      // Constants, strings, dtypes, globals, ops and nested functions hold no outer vars that
      // fusion moves.
      return expr;
  }
}

Binding ExprRewriter::RewriteBinding(const Binding& binding) {
  Var var = binding->var;
  Type type = RewriteType(var->struct_info);
  if (!type.same_as(var->struct_info)) {
    var = ir::IsInstance<DataflowVarNode>(var.get())
              ? Var(MakeDataflowVar(var->name_hint, type, var->span))
              : MakeVar(var->name_hint, type, var->span);
    var_map[binding->var.get()] = var;
  }
  if (auto* vb = binding.as<VarBindingNode>()) {
    Expr value = Rewrite(vb->value);
    if (value.same_as(vb->value) && var.same_as(vb->var)) return binding;
    return MakeVarBinding(var, value, vb->span);
  }
  auto* mc = binding.as<MatchCastNode>();
  Expr value = Rewrite(mc->value);
  Type target = RewriteType(mc->struct_info);
  if (value.same_as(mc->value) && var.same_as(mc->var) && target.same_as(mc->struct_info)) {
    return binding;
  }
  return MakeMatchCast(var, value, target, mc->span);
}

BindingBlock ExprRewriter::RewriteBlock(const BindingBlock& block) {
  std::vector<Binding> bindings;
  bool changed = false;
  for (const Binding& b : block->bindings) {
    bindings.push_back(RewriteBinding(b));
    changed = changed || !bindings.back().same_as(b);
  }
  if (!changed) return block;
  if (ir::IsInstance<DataflowBlockNode>(block.get())) {
    return MakeDataflowBlock(std::move(bindings), block->span);
  }
  return MakeBindingBlock(std::move(bindings), block->span);
}

namespace {

class SymbolicVarCollector {
 public:
  std::vector<tir::Var> vars;

  void Add(const PrimExpr& e) {
    for (const tir::Var& v : VarsOf(e)) {
      if (seen_.insert(v.get()).second) vars.push_back(v);
    }
  }
  void Add(const Type& t) {
    if (!t.defined()) return;
    for (const tir::Var& v : VarsOf(t)) {
      if (seen_.insert(v.get()).second) vars.push_back(v);
    }
  }
  void Visit(const Expr& expr) {
    if (!expr.defined()) return;
    if (auto* e = expr.as<ExprNode>()) Add(e->struct_info);
    switch (expr->type_index()) {
      case TypeIndex::kTuple:
        for (const Expr& f : expr.as<TupleNode>()->fields) Visit(f);
        break;
      case TypeIndex::kTupleGetItem:
        Visit(expr.as<TupleGetItemNode>()->tuple);
        break;
      case TypeIndex::kShapeExpr:
        for (const PrimExpr& v : expr.as<ShapeExprNode>()->values) Add(v);
        break;
      case TypeIndex::kPrimValue:
        Add(expr.as<PrimValueNode>()->value);
        break;
      case TypeIndex::kRelaxCall: {
        auto* c = expr.as<CallNode>();
        Visit(c->op);
        for (const Expr& a : c->args) Visit(a);
        for (const Type& t : c->sinfo_args) Add(t);
        break;
      }
      case TypeIndex::kRelaxIf: {
        auto* i = expr.as<IfNode>();
        Visit(i->cond);
        Visit(i->true_branch);
        Visit(i->false_branch);
        break;
      }
      case TypeIndex::kSeqExpr: {
        auto* s = expr.as<SeqExprNode>();
        for (const BindingBlock& b : s->blocks) {
          for (const Binding& binding : b->bindings) {
            Add(binding->var->struct_info);
            if (auto* vb = binding.as<VarBindingNode>()) Visit(vb->value);
            if (auto* mc = binding.as<MatchCastNode>()) {
              Visit(mc->value);
              Add(mc->struct_info);
            }
          }
        }
        Visit(s->body);
        break;
      }
      case TypeIndex::kRelaxFunction: {
        auto* f = expr.as<FunctionNode>();
        for (const Var& p : f->params) Add(p->struct_info);
        Visit(f->body);
        Add(f->ret_struct_info);
        break;
      }
      default:
        break;
    }
  }

 private:
  std::unordered_set<const ir::Object*> seen_;
};

}  // namespace

std::vector<tir::Var> SymbolicVarsOf(const Expr& expr) {
  SymbolicVarCollector collector;
  collector.Visit(expr);
  return collector.vars;
}

bool HasNonzeroAttr(const ir::BaseFuncNode* func, const std::string& key) {
  const ir::Object* value = func->GetAttr(key);
  if (!value) return false;
  if (auto* b = ir::Ref<ir::Object>(value).as<ir::BoolObj>()) return b->value;
  if (auto* i = ir::Ref<ir::Object>(value).as<ir::IntObj>()) return i->value != 0;
  if (auto* imm = ir::Ref<ir::Object>(value).as<tir::IntImmNode>()) return imm->value != 0;
  return false;
}

}  // namespace wb::transform::fuse
