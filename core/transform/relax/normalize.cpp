#include "transform/relax/normalize.h"

#include "relax/block_builder.h"
#include "transform/registry.h"
#include "transform/relax/expr_mutator.h"

namespace wb::transform {

namespace {

using namespace relax;

bool IsLeaf(const Expr& e) {
  return e.as<VarNode>() || e.as<ConstantNode>() || e.as<ShapeExprNode>() ||
         e.as<PrimValueNode>() || e.as<StringImmNode>() || e.as<DataTypeImmNode>() ||
         e.as<ExternFuncNode>() || e->type_index() == ir::TypeIndex::kGlobalVar ||
         e->type_index() == ir::TypeIndex::kOp;
}

class Normalizer {
 public:
  explicit Normalizer(ir::IRModule module) : builder_(std::move(module)) {}

  Function NormalizeFunction(const FunctionNode* f) {
    SeqExpr body = NormalizeSeq(f->body);
    if (body.same_as(f->body)) return GetRef(f);
    Function out = GetRef(f);
    out.CopyOnWrite()->body = body;
    return out;
  }

 private:
  struct Scope {
    std::vector<BindingBlock> blocks;
    std::vector<Binding> current;
    bool dataflow = false;
    Span span;
  };

  void Flush(bool dataflow_next, const Span& span) {
    Scope& s = scopes_.back();
    if (!s.current.empty()) {
      s.blocks.push_back(s.dataflow ? BindingBlock(MakeDataflowBlock(std::move(s.current), s.span))
                                    : MakeBindingBlock(std::move(s.current), s.span));
      s.current.clear();
    }
    s.dataflow = dataflow_next;
    s.span = span;
  }

  SeqExpr NormalizeSeq(const Expr& expr) {
    scopes_.push_back(Scope{});
    Expr body = expr;
    if (auto* seq = expr.as<SeqExprNode>()) {
      for (const BindingBlock& block : seq->blocks) {
        Flush(block.as<DataflowBlockNode>() != nullptr, block->span);
        for (const Binding& b : block->bindings) NormalizeBinding(b);
      }
      body = seq->body;
    }
    // A result computed in place is bound in a plain block of its own.
    Flush(false, {});
    Expr result = NormalizeArg(body);
    Flush(false, {});
    Scope s = std::move(scopes_.back());
    scopes_.pop_back();
    // Already normal: the same object, so that an untouched module stays the same object.
    if (auto* seq = expr.as<SeqExprNode>(); seq && result.same_as(seq->body) &&
                                            Same(s.blocks, seq->blocks) && GetType(expr).defined()) {
      return GetRef(seq);
    }
    return Downcast<SeqExprNode>(Typed(MakeSeqExpr(std::move(s.blocks), result, expr->span)));
  }

  static bool Same(const std::vector<BindingBlock>& a, const std::vector<BindingBlock>& b) {
    if (a.size() != b.size()) return false;
    for (size_t i = 0; i < a.size(); ++i) {
      if (a[i]->bindings.size() != b[i]->bindings.size() ||
          (a[i].as<DataflowBlockNode>() != nullptr) != (b[i].as<DataflowBlockNode>() != nullptr)) {
        return false;
      }
      for (size_t k = 0; k < a[i]->bindings.size(); ++k) {
        if (!a[i]->bindings[k].same_as(b[i]->bindings[k])) return false;
      }
    }
    return true;
  }

  void NormalizeBinding(const Binding& b) {
    if (auto* vb = b.as<VarBindingNode>()) {
      Expr value = NormalizeValue(vb->value);
      Scope& s = scopes_.back();
      s.current.push_back(value.same_as(vb->value) ? b : MakeVarBinding(vb->var, value, vb->span));
      return;
    }
    auto* mc = b.as<MatchCastNode>();
    Expr value = NormalizeArg(mc->value);
    scopes_.back().current.push_back(
        value.same_as(mc->value) ? b : MakeMatchCast(mc->var, value, mc->struct_info, mc->span));
  }

  // The value of a binding: one level of computation over leaves.
  Expr NormalizeValue(const Expr& e) {
    if (auto* c = e.as<CallNode>()) {
      std::vector<Expr> args;
      bool changed = false;
      for (const Expr& a : c->args) {
        args.push_back(NormalizeArg(a));
        changed |= !args.back().same_as(a);
      }
      Expr op = IsLeaf(c->op) ? c->op : NormalizeArg(c->op);
      changed |= !op.same_as(c->op);
      if (!changed) return Typed(e);
      return Typed(MakeCall(op, std::move(args), c->attrs, c->sinfo_args, c->span));
    }
    if (auto* t = e.as<TupleNode>()) return NormalizeTuple(t);
    if (auto* g = e.as<TupleGetItemNode>()) {
      Expr tuple = NormalizeArg(g->tuple);
      if (tuple.same_as(g->tuple)) return Typed(e);
      return Typed(MakeTupleGetItem(tuple, g->index, g->span));
    }
    if (auto* i = e.as<IfNode>()) {
      Expr cond = NormalizeArg(i->cond);
      SeqExpr t = NormalizeSeq(i->true_branch);
      SeqExpr f = NormalizeSeq(i->false_branch);
      if (cond.same_as(i->cond) && t.same_as(i->true_branch) && f.same_as(i->false_branch)) {
        return Typed(e);
      }
      return Typed(MakeIf(cond, t, f, i->span));
    }
    if (auto* f = e.as<FunctionNode>()) return NormalizeFunction(f);
    if (e.as<SeqExprNode>()) return NormalizeSeq(e);
    return Typed(e);
  }

  Expr NormalizeTuple(const TupleNode* t) {
    std::vector<Expr> fields;
    bool changed = false;
    for (const Expr& f : t->fields) {
      fields.push_back(NormalizeArg(f));
      changed |= !fields.back().same_as(f);
    }
    if (!changed) return Typed(GetRef(t));
    return Typed(MakeTuple(std::move(fields), t->span));
  }

  // An operand: a leaf or a tuple of leaves; anything else is bound to a fresh var first.
  Expr NormalizeArg(const Expr& e) {
    if (IsLeaf(e)) return e;
    if (auto* t = e.as<TupleNode>()) return NormalizeTuple(t);
    Expr value = NormalizeValue(e);
    Scope& s = scopes_.back();
    Type type = GetType(value);
    Var v = s.dataflow ? Var(MakeDataflowVar("lv", type, e->span)) : MakeVar("lv", type, e->span);
    s.current.push_back(MakeVarBinding(v, value, e->span));
    return v;
  }

  Expr Typed(const Expr& e) {
    if (GetType(e).defined()) return e;
    Expr out = builder_.Normalize(e);
    if (builder_.diagnostics().HasErrors()) throw ir::PassError(builder_.diagnostics()[0]);
    return out;
  }

  BlockBuilder builder_;
  std::vector<Scope> scopes_;
};

}  // namespace

ir::Pass Normalize() {
  return ir::CreateModulePass(
      [](ir::IRModule module, const ir::PassContext&) {
        return MapRelaxFunctions(module, [&](const Function& f, const ir::GlobalVar&) {
          return Normalizer(module).NormalizeFunction(f.get());
        });
      },
      0, "Normalize");
}

static PassRegistrar registrar({"Normalize",
                                "puts Relax functions into normal form (operands are leaves)",
                                {},
                                [](const PassArgs&) { return Normalize(); }});

}  // namespace wb::transform
