#include "transform/relax/lift_transform_params.h"

#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "relax/block_builder.h"
#include "relax/type_analysis.h"
#include "transform/registry.h"
#include "transform/relax/expr_mutator.h"
#include "transform/relax/fuse_expr_rewrite.h"

namespace wb::transform {

namespace {

using namespace relax;

constexpr char kSuffix[] = "_transform_params";

bool EndsWith(const std::string& s, const std::string& tail) {
  return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}

// The attribute num_input, checked against the function's parameters; nullopt when absent.
std::optional<size_t> NumInput(const FunctionNode* f, const std::string& name) {
  const ir::Object* value = f->GetAttr("num_input");
  if (!value) return std::nullopt;
  int64_t n = 0;
  if (auto* i = dynamic_cast<const ir::IntObj*>(value)) {
    n = i->value;
  } else if (auto* imm = dynamic_cast<const tir::IntImmNode*>(value)) {
    n = imm->value;
  } else {
    throw ir::PassError(Diagnostic::Error(
        "LiftTransformParams: the attribute num_input of '" + name + "' is not an integer", f->span));
  }
  if (n < 0 || static_cast<size_t>(n) > f->params.size()) {
    throw ir::PassError(Diagnostic::Error(
        "LiftTransformParams: '" + name + "' declares num_input = " + std::to_string(n) + ", but it has " +
            std::to_string(f->params.size()) + " parameter" + (f->params.size() == 1 ? "" : "s"),
        f->span));
  }
  return static_cast<size_t>(n);
}

// The symbolic vars that a type defines: its bare-var dims (TVM's DefinableTIRVarsInType).
void AddDefinable(const Type& type, std::unordered_set<const Object*>* out) {
  ForEachDim(type, [&](const PrimExpr& d) {
    if (d.as<tir::VarNode>()) out->insert(d.get());
  });
}

const Expr& ValueOf(const Binding& b) {
  if (auto* vb = b.as<VarBindingNode>()) return vb->value;
  return b.as<MatchCastNode>()->value;
}

// True when `e` is, or is a tuple holding, a tensor constant.
bool HoldsConstant(const Expr& e) {
  if (e.as<ConstantNode>()) return true;
  if (auto* t = e.as<TupleNode>()) {
    for (const Expr& f : t->fields) {
      if (HoldsConstant(f)) return true;
    }
  }
  return false;
}

// The partition of one function.
class Lifter {
 public:
  Lifter(const Function& f, size_t num_input, bool lift_constants)
      : f_(f), num_input_(num_input), lift_constants_(lift_constants) {
    for (size_t i = num_input; i < f->params.size(); ++i) {
      liftable_.insert(f->params[i].get());
      requires_weights_.insert(f->params[i].get());
      AddDefinable(f->params[i]->struct_info, &weight_dims_);
    }
    for (size_t i = 0; i < num_input; ++i) AddDefinable(f->params[i]->struct_info, &input_dims_);
  }

  // Decides, binding by binding, what moves.
  void Collect() {
    auto* seq = f_->body.as<SeqExprNode>();
    if (!seq) return;
    for (const BindingBlock& block : seq->blocks) {
      bool dataflow = ir::IsInstance<DataflowBlockNode>(block.get());
      for (const Binding& b : block->bindings) {
        if (!dataflow || !CanLift(b)) continue;
        const Expr& value = ValueOf(b);
        lifted_.push_back(b);
        liftable_.insert(b->var.get());
        std::unordered_map<const VarNode*, int> uses;
        CollectVarUses(value, &uses);
        bool needs = false;
        for (const auto& [v, _] : uses) needs = needs || requires_weights_.count(v) || constants_.count(v);
        if (lift_constants_ && value.as<CallNode>()) {
          for (const Expr& a : value.as<CallNode>()->args) needs = needs || HoldsConstant(a);
        }
        if (needs) requires_weights_.insert(b->var.get());
        if (lift_constants_ && value.as<ConstantNode>()) constants_.insert(b->var.get());
      }
    }
  }

  // The rewritten function and its transform function, named `transform_name`.
  std::pair<Function, Function> Split(const ir::IRModule& module, const std::string& transform_name) {
    auto* seq = f_->body.as<SeqExprNode>();
    // The function without the bindings that moved.
    std::vector<BindingBlock> blocks;
    for (const BindingBlock& block : seq->blocks) {
      std::vector<Binding> kept;
      for (const Binding& b : block->bindings) {
        if (!Moves(b)) kept.push_back(b);
      }
      if (kept.empty()) continue;
      blocks.push_back(ir::IsInstance<DataflowBlockNode>(block.get())
                           ? BindingBlock(MakeDataflowBlock(std::move(kept), block->span))
                           : MakeBindingBlock(std::move(kept), block->span));
    }
    SeqExpr remaining = MakeSeqExpr(std::move(blocks), seq->body, seq->span);
    remaining = Downcast<SeqExprNode>(WithType(remaining, seq->struct_info));
    // What it still reads from the weights' side: the outputs of the transform function.
    std::unordered_map<const VarNode*, int> uses;
    CollectVarUses(remaining, &uses);
    std::vector<Var> outputs;
    for (size_t i = num_input_; i < f_->params.size(); ++i) {
      if (uses.count(f_->params[i].get())) outputs.push_back(f_->params[i]);
    }
    for (const Binding& b : lifted_) {
      if (Moves(b) && uses.count(b->var.get())) outputs.push_back(b->var);
    }
    // Symbolic vars only the weights defined, which the outputs' types do not define again.
    std::unordered_set<const Object*> defined = input_dims_;
    for (const Var& v : outputs) AddDefinable(v->struct_info, &defined);
    std::vector<PrimExpr> carried;
    std::vector<tir::Var> mentioned = fuse::SymbolicVarsOf(remaining);
    for (const tir::Var& v : VarsOf(f_->ret_struct_info)) mentioned.push_back(v);
    std::unordered_set<const Object*> seen;
    for (const tir::Var& v : mentioned) {
      if (weight_dims_.count(v.get()) && !defined.count(v.get()) && seen.insert(v.get()).second) {
        carried.push_back(v);
      }
    }
    return {MakeRuntime(remaining, outputs, carried), MakeTransform(module, transform_name, outputs, carried)};
  }

 private:
  bool Moves(const Binding& b) const { return requires_weights_.count(b->var.get()) > 0; }

  bool CanLift(const Binding& b) const {
    const Expr& value = ValueOf(b);
    if (value.as<FunctionNode>() || value.as<ExternFuncNode>()) return false;
    std::unordered_map<const VarNode*, int> uses;
    CollectVarUses(value, &uses);
    for (const auto& [v, _] : uses) {
      if (!liftable_.count(v)) return false;
    }
    std::vector<tir::Var> dims = fuse::SymbolicVarsOf(value);
    for (const tir::Var& v : VarsOf(b->var->struct_info)) dims.push_back(v);
    if (auto* mc = b.as<MatchCastNode>()) {
      for (const tir::Var& v : VarsOf(mc->struct_info)) dims.push_back(v);
    }
    for (const tir::Var& v : dims) {
      if (!weight_dims_.count(v.get())) return false;
    }
    return true;
  }

  Function MakeRuntime(const SeqExpr& remaining, const std::vector<Var>& outputs,
                       const std::vector<PrimExpr>& carried) const {
    fuse::ExprRewriter rewriter;
    std::vector<Var> params(f_->params.begin(), f_->params.begin() + num_input_);
    if (!carried.empty()) {
      params.push_back(MakeVar("vars_from_compile_time_params", MakeShapeType(carried)));
    }
    for (const Var& v : outputs) {
      bool is_param = false;
      for (const Var& q : f_->params) is_param = is_param || q.same_as(v);
      Var p = is_param ? v : MakeVar(v->name_hint, v->struct_info, v->span);
      if (!is_param) rewriter.var_map[v.get()] = p;
      params.push_back(p);
    }
    Expr body = rewriter.Rewrite(remaining);
    return MakeFunction(std::move(params), body, f_->ret_struct_info, f_->is_pure, f_->attrs, f_->span);
  }

  Function MakeTransform(const ir::IRModule& module, const std::string& name,
                         const std::vector<Var>& outputs, const std::vector<PrimExpr>& carried) const {
    // Only what the outputs need, found backwards from them.
    std::unordered_set<const VarNode*> needed;
    for (const Var& v : outputs) needed.insert(v.get());
    std::vector<bool> emit(lifted_.size(), false);
    for (size_t k = lifted_.size(); k-- > 0;) {
      if (!needed.count(lifted_[k]->var.get())) continue;
      emit[k] = true;
      std::unordered_map<const VarNode*, int> uses;
      CollectVarUses(ValueOf(lifted_[k]), &uses);
      for (const auto& [v, _] : uses) needed.insert(v);
    }
    // The transform function has symbolic vars of its own, as every function does.
    fuse::ExprRewriter rewriter;
    for (const Object* v : weight_dims_) {
      auto* var = static_cast<const tir::VarNode*>(v);
      rewriter.dim_map[v] = tir::MakeVar(var->name_hint, var->dtype, var->span);
    }
    std::vector<Type> weight_types;
    for (size_t i = num_input_; i < f_->params.size(); ++i) {
      weight_types.push_back(rewriter.RewriteType(f_->params[i]->struct_info));
    }
    Var tuple = MakeVar("params", ir::MakeTupleType(weight_types), f_->span);
    ir::AttrMap attrs{{"global_symbol", ir::MakeString(name)}, {"num_input", ir::MakeInt(0)}};
    BlockBuilder builder(module);
    builder.BeginFunction(name, {tuple}, attrs, true, f_->span);
    builder.BeginDataflowBlock();
    for (size_t i = num_input_; i < f_->params.size(); ++i) {
      const Var& w = f_->params[i];
      if (!needed.count(w.get())) continue;
      rewriter.var_map[w.get()] =
          builder.Emit(MakeTupleGetItem(tuple, static_cast<int64_t>(i - num_input_)), w->name_hint);
    }
    for (size_t k = 0; k < lifted_.size(); ++k) {
      if (!emit[k]) continue;
      const Binding& b = lifted_[k];
      Expr value = rewriter.Rewrite(ValueOf(b));
      Type type = rewriter.RewriteType(b->var->struct_info);
      Var v = b.as<MatchCastNode>()
                  ? builder.EmitMatchCast(value, rewriter.RewriteType(b.as<MatchCastNode>()->struct_info),
                                          b->var->name_hint, b->span)
                  : builder.EmitBinding(MakeDataflowVar(b->var->name_hint, type, b->var->span), value, b->span);
      rewriter.var_map[b->var.get()] = v;
    }
    std::vector<Expr> fields;
    if (!carried.empty()) fields.push_back(rewriter.Rewrite(MakeShapeExpr(carried)));
    for (const Var& v : outputs) fields.push_back(rewriter.Rewrite(v));
    Var result = builder.EmitOutput(MakeTuple(std::move(fields)), "transformed");
    builder.EndBlock();
    Function out = builder.EndFunction(result);
    if (builder.diagnostics().HasErrors()) throw ir::PassError(builder.diagnostics()[0]);
    return out;
  }

  Function f_;
  size_t num_input_;
  bool lift_constants_;
  std::vector<Binding> lifted_;                          // liftable bindings, in order
  std::unordered_set<const VarNode*> liftable_;          // weights and lifted vars
  std::unordered_set<const VarNode*> requires_weights_;  // what depends on weights: moves
  std::unordered_set<const VarNode*> constants_;         // vars bound to R.const (lift_constants)
  std::unordered_set<const Object*> weight_dims_;        // symbolic vars the weights define
  std::unordered_set<const Object*> input_dims_;         // ... and those the inputs define
};

ir::IRModule Lift(const ir::IRModule& module, bool lift_constants) {
  ir::IRModule out = module;
  for (size_t i = 0; i < module->size(); ++i) {
    auto f = module->functions[i].as_ref<FunctionNode>();
    const std::string& name = module->global_vars[i]->name_hint;
    if (!f.defined() || EndsWith(name, "transform_params")) continue;
    std::optional<size_t> num_input = NumInput(f.get(), name);
    if (!num_input || module->Lookup(name + kSuffix).defined()) continue;
    Lifter lifter(f, *num_input, lift_constants);
    lifter.Collect();
    auto [runtime, transform] = lifter.Split(module, name + kSuffix);
    out = ir::WithFunction(out, module->global_vars[i], runtime);
    out = ir::WithFunction(out, ir::MakeGlobalVar(name + kSuffix), transform);
  }
  return out;
}

}  // namespace

ir::Pass LiftTransformParams(bool lift_constants) {
  return ir::CreateModulePass(
      [lift_constants](ir::IRModule module, const ir::PassContext&) { return Lift(module, lift_constants); }, 1,
      "LiftTransformParams");
}

std::optional<LiftedParams> FindLiftedParams(const ir::IRModule& module, const std::string& name) {
  auto* f = module->Lookup(name).as<relax::FunctionNode>();
  auto* t = module->Lookup(name + kSuffix).as<relax::FunctionNode>();
  if (!f || !t || t->params.size() != 1 || !t->params[0]->struct_info.as<ir::TupleTypeNode>()) {
    return std::nullopt;
  }
  const ir::Object* value = f->GetAttr("num_input");
  int64_t n = -1;
  if (auto* i = dynamic_cast<const ir::IntObj*>(value)) n = i->value;
  if (auto* imm = dynamic_cast<const tir::IntImmNode*>(value)) n = imm->value;
  if (n < 0 || static_cast<size_t>(n) > f->params.size()) return std::nullopt;
  return LiftedParams{name + kSuffix, static_cast<size_t>(n)};
}

static PassRegistrar registrar(
    {"LiftTransformParams",
     "moves the bindings that depend only on the weights (the parameters after num_input) of each "
     "function into <name>_transform_params, run once (Relax)",
     {{"lift_constants", ParamType::kBool, ir::MakeBool(false),
       "tensor constants count as weights: computations on them move too"}},
     [](const PassArgs& args) { return LiftTransformParams(args.Bool("lift_constants")); }});

}  // namespace wb::transform
