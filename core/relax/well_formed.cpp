#include "relax/well_formed.h"

#include <unordered_set>

#include "relax/op/registry.h"
#include "relax/type_analysis.h"

namespace wb::relax {

namespace {

class WellFormedChecker {
 public:
  WellFormedChecker(const ir::IRModule& module, DiagnosticList* out) : module_(module), out_(out) {}

  void CheckFunction(const FunctionNode* f) {
    bool outer_pure = in_pure_function_;
    // relax.force_pure (RemovePurityChecking) vouches for the body: it may hold impure calls.
    auto force = f->attrs.find("relax.force_pure");
    bool forced = force != f->attrs.end() && force->second.as<ir::BoolObj>() &&
                  force->second.as<ir::BoolObj>()->value;
    in_pure_function_ = f->is_pure && !forced;
    for (const Var& p : f->params) {
      DefineSymbolicVars(p->struct_info, p->span, /*define=*/true);
      CheckVDevices(p->struct_info, p->span, "the type of " + p->name_hint);
      Define(p, p->span);
    }
    VisitExpr(f->body, f->span);
    CheckSymbolicVars(f->ret_struct_info, f->span, "the result type");
    CheckVDevices(f->ret_struct_info, f->span, "the result type");
    in_pure_function_ = outer_pure;
  }

 private:
  void Error(std::string message, const Span& span) {
    out_->Add(Diagnostic::Error(std::move(message), span));
  }

  void Define(const Var& var, const Span& span) {
    if (!defined_.insert(var.get()).second) {
      Error("variable " + var->name_hint + " is defined more than once", span);
    }
  }

  void DefineSymbolicVars(const Type& type, const Span& span, bool define) {
    ForEachDim(type, [&](const PrimExpr& d) {
      if (define && d.as<tir::VarNode>()) symbolic_.insert(d.get());
    });
    CheckSymbolicVars(type, span, "a type");
  }

  void CheckSymbolicVars(const Type& type, const Span& span, const std::string& where) {
    for (const tir::Var& v : VarsOf(type)) {
      if (!symbolic_.count(v.get()) && reported_.insert(v.get()).second) {
        Error("symbolic var " + v->name_hint + " in " + where +
                  " is not defined by a parameter or an earlier match_cast",
              span);
      }
    }
  }

  // Every vdevice a type names must be one of the module's global_infos["vdevice"]: that list
  // is what "cuda:0" in TVMScript indexes, so an unlisted one cannot even be printed.
  void CheckVDevices(const Type& type, const Span& span, const std::string& where) {
    if (!module_.defined() || !type.defined()) return;
    if (auto* t = type.as<TensorTypeNode>()) {
      if (t->vdevice.defined() &&
          ir::VDeviceReference(*t->vdevice, module_->global_infos).empty()) {
        Error(where + " names vdevice " + VDeviceToString(t->vdevice) +
                  ", which the module's global_infos do not list",
              span);
      }
    } else if (auto* t = type.as<ir::TupleTypeNode>()) {
      for (const Type& f : t->fields) CheckVDevices(f, span, where);
    } else if (auto* t = type.as<FuncTypeNode>()) {
      for (const Type& p : t->params) CheckVDevices(p, span, where);
      CheckVDevices(t->ret, span, where);
    } else if (auto* t = type.as<PackedFuncTypeNode>()) {
      CheckVDevices(t->ret, span, where);
    }
  }

  void CheckUse(const VarNode* var, const Span& use_span) {
    if (!defined_.count(var)) {
      Error("variable " + var->name_hint + " is used but not defined", use_span);
      return;
    }
    if (ir::IsInstance<DataflowVarNode>(var) && !dataflow_scope_.count(var)) {
      Error("dataflow var " + var->name_hint + " is used outside the dataflow block that binds it",
            use_span);
    }
  }

  // The purity of calling `callee`, or true when unknown.
  bool CalleeIsPure(const CallNode* call) {
    if (auto* op = call->op.as<ir::OpNode>()) {
      const OpInfo* info = InfoOf(GetRef(op));
      return !info || info->pure;
    }
    Type t = GetType(call->op);
    if (auto* gv = call->op.as<ir::GlobalVarNode>(); gv && module_.defined()) {
      ir::BaseFunc f = module_->Lookup(GetRef(gv));
      if (f.defined()) t = GetType(f);
    }
    if (auto* f = t.as<FuncTypeNode>()) return f->purity;
    if (auto* f = t.as<PackedFuncTypeNode>()) return f->purity;
    return true;
  }

  std::string CalleeName(const CallNode* call) {
    if (auto* op = call->op.as<ir::OpNode>()) return op->name;
    if (auto* gv = call->op.as<ir::GlobalVarNode>()) return gv->name_hint;
    if (auto* v = call->op.as<VarNode>()) return v->name_hint;
    if (auto* e = call->op.as<ExternFuncNode>()) return e->global_symbol;
    return call->op->type_key();
  }

  void VisitExpr(const Expr& expr, const Span& context) {
    if (!expr.defined()) return;
    const Span& span = expr->span.defined() ? expr->span : context;
    if (auto* v = expr.as<VarNode>()) {
      CheckUse(v, context.defined() ? context : v->span);
      return;
    }
    if (auto* t = expr.as<TupleNode>()) {
      for (const Expr& f : t->fields) VisitExpr(f, span);
    } else if (auto* t = expr.as<TupleGetItemNode>()) {
      VisitExpr(t->tuple, span);
    } else if (auto* c = expr.as<CallNode>()) {
      VisitExpr(c->op, span);
      for (const Expr& a : c->args) VisitExpr(a, span);
      for (const Type& t : c->sinfo_args) CheckSymbolicVars(t, span, "an out_sinfo");
      if (!CalleeIsPure(c)) {
        if (in_dataflow_) {
          Error("impure call to " + CalleeName(c) + " inside a dataflow block", span);
        } else if (in_pure_function_) {
          Error("impure call to " + CalleeName(c) + " inside a function annotated pure", span);
        }
      }
    } else if (auto* s = expr.as<ShapeExprNode>()) {
      CheckSymbolicVars(s->struct_info, span, "a shape");
    } else if (auto* i = expr.as<IfNode>()) {
      VisitExpr(i->cond, span);
      VisitExpr(i->true_branch, span);
      VisitExpr(i->false_branch, span);
    } else if (auto* s = expr.as<SeqExprNode>()) {
      for (const BindingBlock& b : s->blocks) VisitBlock(b);
      VisitExpr(s->body, span);
    } else if (auto* f = expr.as<FunctionNode>()) {
      CheckFunction(f);
    }
  }

  void VisitBlock(const BindingBlock& block) {
    bool dataflow = ir::IsInstance<DataflowBlockNode>(block.get());
    in_dataflow_ = dataflow;
    std::vector<const Object*> locals;
    for (const Binding& b : block->bindings) {
      const Span& span = b->span.defined() ? b->span : b->var->span;
      if (auto* vb = b.as<VarBindingNode>()) {
        VisitExpr(vb->value, span);
      } else if (auto* mc = b.as<MatchCastNode>()) {
        VisitExpr(mc->value, span);
        DefineSymbolicVars(mc->struct_info, span, /*define=*/true);
      }
      if (ir::IsInstance<DataflowVarNode>(b->var.get())) {
        if (!dataflow) {
          Error("dataflow var " + b->var->name_hint + " is bound outside a dataflow block", span);
        }
        dataflow_scope_.insert(b->var.get());
        locals.push_back(b->var.get());
      }
      CheckSymbolicVars(b->var->struct_info, span, "the type of " + b->var->name_hint);
      CheckVDevices(b->var->struct_info, span, "the type of " + b->var->name_hint);
      Define(b->var, span);
    }
    for (const Object* v : locals) dataflow_scope_.erase(v);
    in_dataflow_ = false;
  }

  ir::IRModule module_;
  DiagnosticList* out_;
  std::unordered_set<const Object*> defined_;
  std::unordered_set<const Object*> dataflow_scope_;
  std::unordered_set<const Object*> symbolic_;
  std::unordered_set<const Object*> reported_;
  bool in_dataflow_ = false;
  bool in_pure_function_ = false;
};

}  // namespace

DiagnosticList VerifyWellFormed(const Function& func, const ir::IRModule& module) {
  DiagnosticList out;
  WellFormedChecker checker(module, &out);
  checker.CheckFunction(func.get());
  return out;
}

DiagnosticList VerifyWellFormed(const ir::IRModule& module) {
  DiagnosticList out;
  for (const ir::BaseFunc& f : module->functions) {
    if (auto* rf = f.as<FunctionNode>()) out.Append(VerifyWellFormed(GetRef(rf), module));
  }
  return out;
}

}  // namespace wb::relax
