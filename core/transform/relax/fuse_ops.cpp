#include "transform/relax/fuse_ops.h"

#include <algorithm>
#include <functional>
#include <map>
#include <optional>
#include <unordered_map>
#include <unordered_set>

#include "ir/structural_equal.h"
#include "relax/analysis/graph_partitioner.h"
#include "relax/op/registry.h"
#include "tir/stmt.h"
#include "transform/pass_control.h"
#include "transform/registry.h"
#include "transform/relax/fuse_expr_rewrite.h"

namespace wb::transform {

namespace {

using namespace relax;
using fuse::ExprRewriter;
using Group = GraphPartitioner::Group;
using GNode = IndexedForwardGraph::Node;

constexpr int64_t kMaxFusedOps = 256;

bool IsCallTIR(const CallNode* call) {
  static const ir::Op op = GetOp("relax.call_tir");
  return call->op.same_as(op);
}

// The call_tir arguments (the fields of its argument tuple).
std::vector<Expr> CallTIRArgs(const CallNode* call) {
  if (call->args.size() < 2) return {};
  if (auto* t = call->args[1].as<TupleNode>()) return t->fields;
  return {call->args[1]};
}

OpPatternKind PatternOfCallee(const ir::IRModule& module, const CallNode* call) {
  auto* gv = call->args.empty() ? nullptr : call->args[0].as<ir::GlobalVarNode>();
  if (!gv) return OpPatternKind::kOpaque;
  ir::BaseFunc f = module->Lookup(GetRef(gv));
  auto* prim = f.defined() ? f.as<tir::PrimFuncNode>() : nullptr;
  if (!prim) return OpPatternKind::kOpaque;
  ObjectRef attr(prim->GetAttr("op_pattern"));
  if (auto* i = attr.as<ir::IntObj>()) return static_cast<OpPatternKind>(i->value);
  if (auto* imm = attr.as<tir::IntImmNode>()) return static_cast<OpPatternKind>(imm->value);
  return OpPatternKind::kOpaque;
}

bool IsLeafValue(const Object* node) {
  switch (node->type_index()) {
    case TypeIndex::kConstant:
    case TypeIndex::kShapeExpr:
    case TypeIndex::kPrimValue:
    case TypeIndex::kRelaxStringImm:
    case TypeIndex::kDataTypeImm:
      return true;
    default:
      return false;
  }
}

bool IsVar(const Object* node) { return ir::IsInstance<VarNode>(node); }

// Calls `fn` on every Relax var and constant inside `expr`.
void ForEachVarOrConstant(const Expr& expr, const std::function<void(const Expr&)>& fn) {
  if (!expr.defined()) return;
  if (IsVar(expr.get()) || expr.as<ConstantNode>()) {
    fn(expr);
    return;
  }
  switch (expr->type_index()) {
    case TypeIndex::kTuple:
      for (const Expr& f : expr.as<TupleNode>()->fields) ForEachVarOrConstant(f, fn);
      break;
    case TypeIndex::kTupleGetItem:
      ForEachVarOrConstant(expr.as<TupleGetItemNode>()->tuple, fn);
      break;
    case TypeIndex::kRelaxCall: {
      auto* c = expr.as<CallNode>();
      ForEachVarOrConstant(c->op, fn);
      for (const Expr& a : c->args) ForEachVarOrConstant(a, fn);
      break;
    }
    case TypeIndex::kRelaxIf: {
      auto* i = expr.as<IfNode>();
      ForEachVarOrConstant(i->cond, fn);
      ForEachVarOrConstant(i->true_branch, fn);
      ForEachVarOrConstant(i->false_branch, fn);
      break;
    }
    case TypeIndex::kSeqExpr: {
      auto* s = expr.as<SeqExprNode>();
      for (const BindingBlock& b : s->blocks) {
        for (const Binding& binding : b->bindings) {
          if (auto* vb = binding.as<VarBindingNode>()) ForEachVarOrConstant(vb->value, fn);
          if (auto* mc = binding.as<MatchCastNode>()) ForEachVarOrConstant(mc->value, fn);
        }
      }
      ForEachVarOrConstant(s->body, fn);
      break;
    }
    default:
      break;
  }
}

Expr BindingValue(const Binding& binding) {
  if (auto* vb = binding.as<VarBindingNode>()) return vb->value;
  return binding.as<MatchCastNode>()->value;
}

// --- The graph of one dataflow block ------------------------------------------------------------

class GraphCreator {
 public:
  explicit GraphCreator(ir::IRModule module) : module_(std::move(module)) {}

  IndexedForwardGraph Create(const DataflowBlockNode* block) {
    for (const Binding& binding : block->bindings) {
      if (binding.as<MatchCastNode>()) {
        // A match_cast checks its value at run time: never fused, and it adds no edges.
        graph_.AddNode(binding->var.get(), OpPatternKind::kOpaque, false);
        continue;
      }
      const Expr& value = binding.as<VarBindingNode>()->value;
      bool extern_ref = !ir::IsInstance<DataflowVarNode>(binding->var.get());
      // Inputs first: leaves met here for the first time precede the binding in post-DFS order.
      std::vector<std::pair<GNode*, OpPatternKind>> inputs;
      OpPatternKind pattern = OpPatternKind::kOpaque;
      if (auto* call = value.as<CallNode>()) {
        std::vector<Expr> args = call->args;
        if (IsCallTIR(call)) {
          pattern = PatternOfCallee(module_, call);
          args = CallTIRArgs(call);
        }
        for (const Expr& arg : args) CollectLeaf(arg, pattern, &inputs);
      } else if (auto* item = value.as<TupleGetItemNode>()) {
        pattern = OpPatternKind::kInjective;
        CollectLeaf(item->tuple, pattern, &inputs);
      } else {
        ForEachVarOrConstant(
            value, [&](const Expr& leaf) { CollectLeaf(leaf, OpPatternKind::kOpaque, &inputs); });
      }
      GNode* node = graph_.AddNode(binding->var.get(), pattern, extern_ref);
      for (auto& [input, edge_pattern] : inputs) graph_.AddEdge(input, node, edge_pattern);
    }
    return std::move(graph_);
  }

 private:
  void CollectLeaf(const Expr& leaf, OpPatternKind pattern,
                   std::vector<std::pair<GNode*, OpPatternKind>>* inputs) {
    if (auto* tuple = leaf.as<TupleNode>()) {
      for (const Expr& f : tuple->fields) CollectLeaf(f, pattern, inputs);
      return;
    }
    GNode* node = graph_.Find(leaf.get());
    if (!node) {
      if (IsVar(leaf.get())) {
        // Defined outside the block (a parameter, an earlier block): an external input.
        node = graph_.AddNode(leaf.get(), OpPatternKind::kOpaque, true);
      } else if (IsLeafValue(leaf.get())) {
        // Constants and other literal leaves are never fused.
        node = graph_.AddNode(leaf.get(), OpPatternKind::kOpaque, false);
      } else {
        return;  // globals, ops, extern functions
      }
    }
    inputs->emplace_back(node, pattern);
  }

  ir::IRModule module_;
  IndexedForwardGraph graph_;
};

// --- One grouped function under construction -----------------------------------------------------

class FunctionCreator {
 public:
  void AppendBinding(const Binding& binding) {
    if (auto* vb = binding.as<VarBindingNode>()) {
      if (auto* call = vb->value.as<CallNode>()) {
        if (IsCallTIR(call)) {
          if (auto* gv = call->args[0].as<ir::GlobalVarNode>()) name_ += "_" + gv->name_hint;
          for (const Expr& arg : CallTIRArgs(call)) CheckDefAndUpdateParam(arg);
        } else {
          if (auto* op = call->op.as<ir::OpNode>()) {
            name_ += "_" + op->name;
          } else if (auto* gv = call->op.as<ir::GlobalVarNode>()) {
            std::string callee = gv->name_hint;
            name_ += "_" + (callee.rfind("fused_", 0) == 0 ? callee.substr(6) : callee);
          }
          for (const Expr& arg : call->args) {
            CheckDefAndUpdateParam(arg);
            // Passed whole: no longer a candidate for splitting into its fields.
            EraseTuple(arg.get());
          }
        }
      } else if (auto* item = vb->value.as<TupleGetItemNode>()) {
        CheckDefAndUpdateParam(item->tuple);
        for (auto& [tuple, indices] : partial_tuples_) {
          if (tuple == item->tuple.get() &&
              std::find(indices.begin(), indices.end(), item->index) == indices.end()) {
            indices.push_back(item->index);
          }
        }
      }
      defined_.insert(binding->var.get());
      if (!ir::IsInstance<DataflowVarNode>(binding->var.get())) AppendOutput(binding->var);
    }
    bindings_.push_back(binding);
  }

  // Makes `var` (bound in this group) one of the function's results; returns its index.
  size_t AppendOutput(const Var& var) {
    auto it = std::find_if(outputs_.begin(), outputs_.end(),
                           [&](const Var& v) { return v.same_as(var); });
    if (it != outputs_.end()) return size_t(it - outputs_.begin());
    outputs_.push_back(var);
    return outputs_.size() - 1;
  }

  void CreateFunction() {
    if (outputs_.empty()) return;  // nothing of the group is used: dead code, dropped
    SplitPartialTuples();

    // The function over the caller's symbolic vars first.
    ExprRewriter to_params;
    for (size_t i = 0; i < arguments_.size(); ++i)
      to_params.var_map[arguments_[i].get()] = params_[i];
    std::vector<Binding> bindings;
    std::map<const Object*, Expr> output_values;
    for (const Binding& binding : bindings_) {
      if (auto* vb = binding.as<VarBindingNode>()) {
        if (auto* item = vb->value.as<TupleGetItemNode>()) {
          auto it = item_params_.find({item->tuple.get(), item->index});
          if (it != item_params_.end()) {
            to_params.var_map[binding->var.get()] = it->second;
            output_values[binding->var.get()] = it->second;
            continue;
          }
        }
      }
      Binding rewritten = to_params.RewriteBinding(binding);
      bool is_output = std::any_of(outputs_.begin(), outputs_.end(),
                                   [&](const Var& v) { return v.same_as(binding->var); });
      if (is_output && ir::IsInstance<DataflowVarNode>(rewritten->var.get())) {
        // A result must outlive the dataflow block.
        Var out = MakeVar(rewritten->var->name_hint, rewritten->var->struct_info);
        to_params.var_map[binding->var.get()] = out;
        rewritten = MakeVarBinding(out, BindingValue(rewritten));
      }
      if (is_output) output_values[binding->var.get()] = rewritten->var;
      bindings.push_back(rewritten);
    }
    std::vector<Expr> results;
    for (const Var& v : outputs_) results.push_back(output_values.at(v.get()));
    Function func = Build(params_, bindings, results);

    // Dims the parameters cannot define (only named in a call's out_ty, say) come in a shape.
    std::unordered_set<const Object*> definable;
    for (const Var& p : params_) {
      ForEachDim(p->struct_info, [&](const PrimExpr& d) {
        if (d.as<tir::VarNode>()) definable.insert(d.get());
      });
    }
    std::vector<PrimExpr> free_vars;
    for (const tir::Var& v : fuse::SymbolicVarsOf(func)) {
      if (!definable.count(v.get())) free_vars.push_back(v);
    }
    if (!free_vars.empty()) {
      Var shape_param = MakeVar("tir_vars", MakeShapeType(free_vars));
      params_.push_back(shape_param);
      arguments_.push_back(MakeShapeExpr(free_vars));
      func = Build(params_, bindings, results);
    }

    // Fresh symbolic vars: a function must not share its TensorIR vars with another.
    ExprRewriter renew;
    for (const tir::Var& v : fuse::SymbolicVarsOf(func)) {
      tir::Var fresh = tir::MakeVar(v->name_hint, v->dtype);
      renew.dim_map[v.get()] = fresh;
    }
    std::vector<Var> params;
    for (const Var& p : params_) {
      Var fresh = MakeVar(p->name_hint, renew.RewriteType(p->struct_info), p->span);
      renew.var_map[p.get()] = fresh;
      params.push_back(fresh);
    }
    std::vector<Binding> renewed;
    for (const Binding& b : bindings) renewed.push_back(renew.RewriteBinding(b));
    std::vector<Expr> renewed_results;
    for (const Expr& r : results) renewed_results.push_back(renew.Rewrite(r));
    function_ = Build(params, renewed, renewed_results);
  }

  const std::vector<Binding>& bindings() const { return bindings_; }
  const std::vector<Expr>& arguments() const { return arguments_; }
  const std::vector<Var>& outputs() const { return outputs_; }
  const std::string& name() const { return name_; }
  const Function& function() const { return function_; }

 private:
  static Function Build(const std::vector<Var>& params, const std::vector<Binding>& bindings,
                        const std::vector<Expr>& results) {
    Expr body;
    if (results.size() == 1) {
      body = results[0];
    } else {
      std::vector<Type> types;
      for (const Expr& r : results) types.push_back(GetType(r));
      body = WithType(MakeTuple(results), ir::MakeTupleType(std::move(types)));
    }
    SeqExpr seq = MakeSeqExpr({MakeDataflowBlock(bindings)}, body);
    ir::AttrMap attrs;
    attrs["Primitive"] = ir::MakeBool(true);
    return MakeFunction(params, seq, GetType(body), true, std::move(attrs));
  }

  void CheckDefAndUpdateParam(const Expr& expr) {
    if (std::find_if(arguments_.begin(), arguments_.end(),
                     [&](const Expr& a) { return a.same_as(expr); }) != arguments_.end()) {
      return;
    }
    bool is_var = IsVar(expr.get());
    if (is_var && defined_.count(expr.get())) return;
    // Prim values stay in the body: they are not tensors to pass.
    if (expr.as<PrimValueNode>()) return;
    std::string name;
    if (is_var) {
      name = expr.as<VarNode>()->name_hint;
    } else {
      name = "param_" + std::to_string(n_const_params_++);
    }
    Type type = GetType(expr);
    params_.push_back(MakeVar(name, type));
    arguments_.push_back(expr);
    if (type.as<TupleTypeNode>()) partial_tuples_.emplace_back(expr.get(), std::vector<int64_t>{});
  }

  void EraseTuple(const Object* tuple) {
    partial_tuples_.erase(std::remove_if(partial_tuples_.begin(), partial_tuples_.end(),
                                         [&](const auto& entry) { return entry.first == tuple; }),
                          partial_tuples_.end());
  }

  // A tuple parameter used only through `t[i]` is replaced by parameters for the fields used
  // (`t_0`, `t_1`), and the caller passes the fields.
  void SplitPartialTuples() {
    for (const auto& [tuple, indices] : partial_tuples_) {
      if (indices.empty()) continue;
      size_t index = 0;
      while (index < arguments_.size() && arguments_[index].get() != tuple) ++index;
      if (index == arguments_.size()) continue;
      Expr tuple_arg = arguments_[index];
      Var tuple_param = params_[index];
      auto* tuple_type = GetType(tuple_arg).as<TupleTypeNode>();
      std::vector<Expr> item_args;
      std::vector<Var> item_params;
      for (int64_t i : indices) {
        Type field = tuple_type->fields[size_t(i)];
        Var param = MakeVar(tuple_param->name_hint + "_" + std::to_string(i), field);
        item_args.push_back(WithType(MakeTupleGetItem(tuple_arg, i), field));
        item_params.push_back(param);
        item_params_[{tuple, i}] = param;
      }
      arguments_.erase(arguments_.begin() + long(index));
      arguments_.insert(arguments_.begin() + long(index), item_args.begin(), item_args.end());
      params_.erase(params_.begin() + long(index));
      params_.insert(params_.begin() + long(index), item_params.begin(), item_params.end());
    }
  }

  std::vector<Binding> bindings_;
  std::vector<Var> params_;
  std::vector<Expr> arguments_;
  std::string name_ = "fused";
  std::unordered_set<const Object*> defined_;
  std::vector<Var> outputs_;
  std::vector<std::pair<const Object*, std::vector<int64_t>>> partial_tuples_;
  std::map<std::pair<const Object*, int64_t>, Var> item_params_;
  int n_const_params_ = 0;
  Function function_;
};

// --- Rewriting the module
// -------------------------------------------------------------------------

class OperatorFusor {
 public:
  OperatorFusor(ir::IRModule module, int opt_level, size_t max_depth)
      : module_(std::move(module)), opt_level_(opt_level), max_depth_(max_depth) {}

  ir::IRModule Transform() {
    ir::IRModule input = module_;
    for (size_t i = 0; i < input->functions.size(); ++i) {
      auto* func = input->functions[i].as<FunctionNode>();
      if (!func || fuse::HasNonzeroAttr(func, "Primitive")) continue;
      Function updated = VisitFunction(GetRef(func));
      if (!updated.same_as(input->functions[i])) {
        module_ = ir::WithFunction(module_, input->global_vars[i], updated);
      }
    }
    return module_;
  }

 private:
  Function VisitFunction(const Function& func) {
    auto* seq = func->body.as<SeqExprNode>();
    if (!seq) return func;
    ExprRewriter remap;  // vars of fused bindings -> the results of the calls that replace them
    std::vector<BindingBlock> blocks;
    bool changed = false;
    for (const BindingBlock& block : seq->blocks) {
      BindingBlock out;
      if (auto* df = block.as<DataflowBlockNode>()) {
        out = VisitDataflowBlock(df, &remap);
      } else {
        out = remap.RewriteBlock(block);
      }
      changed = changed || !out.same_as(block);
      blocks.push_back(out);
    }
    if (!changed) return func;
    Expr body = remap.Rewrite(seq->body);
    Function copy = func;
    copy.CopyOnWrite()->body = MakeSeqExpr(std::move(blocks), body, seq->span);
    return copy;
  }

  BindingBlock VisitDataflowBlock(const DataflowBlockNode* block, ExprRewriter* remap) {
    IndexedForwardGraph graph = GraphCreator(module_).Create(block);
    GraphPartitioner partitioner(opt_level_, max_depth_);
    std::vector<Group*> groups = partitioner.Partition(graph);
    std::unordered_map<const Object*, Group*> var_group;
    for (size_t i = 0; i < graph.post_dfs_order.size(); ++i) {
      var_group[graph.post_dfs_order[i]->ref] = groups[i]->FindRoot();
    }
    auto group_of = [&](const Object* var) -> Group* {
      auto it = var_group.find(var);
      return it == var_group.end() ? nullptr : it->second;
    };

    // Step 1: the bindings of each group of more than one.
    std::unordered_map<Group*, FunctionCreator> creators;
    std::vector<Group*> creator_order;
    for (const Binding& b : block->bindings) {
      Group* g = group_of(b->var.get());
      if (g->num_nodes <= 1) continue;
      if (!creators.count(g)) creator_order.push_back(g);
      creators[g].AppendBinding(b);
    }
    if (creators.empty()) return remap->RewriteBlock(GetRef(block));

    // Step 2: what crosses a group boundary becomes a result of the producing group.
    std::unordered_map<Group*, std::vector<Group*>> deps;
    for (const Binding& b : block->bindings) {
      Group* current = group_of(b->var.get());
      ForEachVarOrConstant(BindingValue(b), [&](const Expr& used) {
        if (!IsVar(used.get())) return;
        Group* producer = group_of(used.get());
        if (!producer || producer == current) return;
        for (Group* d : deps[producer]) {
          if (d == current) {
            throw ir::PassError(
                Diagnostic::Error("FuseOps: a cyclic dependency between the groups of " +
                                      b->var->name_hint + " and " + used.as<VarNode>()->name_hint,
                                  b->var->span));
          }
        }
        deps[current].push_back(producer);
        auto it = creators.find(producer);
        if (it != creators.end()) it->second.AppendOutput(Downcast<VarNode>(used));
      });
    }

    // Step 3: the grouped functions.
    for (Group* g : creator_order) creators[g].CreateFunction();

    // Step 4: the new block, in an order where every group follows the groups it uses.
    std::vector<Binding> out;
    for (const Binding& b : TopoSortByGroupDep(block->bindings, group_of, deps)) {
      Group* g = group_of(b->var.get());
      auto it = creators.find(g);
      if (it == creators.end()) {
        out.push_back(remap->RewriteBinding(b));
        continue;
      }
      const FunctionCreator& creator = it->second;
      if (!creator.function().defined()) continue;
      if (!creator.bindings().back().same_as(b)) continue;
      GlobalVar gv = AddFunction(creator.function(), creator.name());
      std::vector<Expr> args;
      for (const Expr& a : creator.arguments()) args.push_back(remap->Rewrite(a));
      const std::vector<Var>& outputs = creator.outputs();
      Type type;
      if (outputs.size() == 1) {
        type = outputs[0]->struct_info;
      } else {
        std::vector<Type> fields;
        for (const Var& v : outputs) fields.push_back(v->struct_info);
        type = ir::MakeTupleType(std::move(fields));
      }
      Expr call = WithType(MakeCall(gv, std::move(args)), type);
      const Var& last = b->var;
      bool any_output_var = false;
      for (const Var& v : outputs) {
        any_output_var = any_output_var || !ir::IsInstance<DataflowVarNode>(v.get());
      }
      Var result = outputs.size() == 1 ? SameKindVar(outputs[0], outputs[0]->name_hint, type)
                   : any_output_var    ? Var(MakeVar(last->name_hint, type))
                                       : Var(MakeDataflowVar(last->name_hint, type));
      // The call stands for the group's bindings: it spans them, so what is built from the fused
      // function (FuseTIR's PrimFunc) points back at the text they came from.
      Span span;
      for (const Binding& grouped : creator.bindings()) span = Span::Merge(span, grouped->span);
      out.push_back(MakeVarBinding(result, call, span));
      if (outputs.size() == 1) {
        remap->var_map[outputs[0].get()] = result;
        continue;
      }
      for (size_t i = 0; i < outputs.size(); ++i) {
        const Var& v = outputs[i];
        Var item = SameKindVar(v, v->name_hint, v->struct_info);
        out.push_back(
            MakeVarBinding(item, WithType(MakeTupleGetItem(result, int64_t(i)), v->struct_info)));
        remap->var_map[v.get()] = item;
      }
    }
    return MakeDataflowBlock(std::move(out), block->span);
  }

  static Var SameKindVar(const Var& like, const std::string& name, const Type& type) {
    if (ir::IsInstance<DataflowVarNode>(like.get())) return MakeDataflowVar(name, type);
    return MakeVar(name, type);
  }

  static std::vector<Binding> TopoSortByGroupDep(
      const std::vector<Binding>& bindings, const std::function<Group*(const Object*)>& group_of,
      std::unordered_map<Group*, std::vector<Group*>>& deps) {
    std::unordered_map<Group*, std::vector<Binding>> per_group;
    std::vector<Group*> order;
    for (const Binding& b : bindings) {
      Group* g = group_of(b->var.get());
      order.push_back(g);
      per_group[g].push_back(b);
    }
    std::unordered_set<Group*> visited;
    std::vector<Binding> sorted;
    std::function<void(Group*)> visit = [&](Group* g) {
      if (!visited.insert(g).second) return;
      for (Group* d : deps[g]) visit(d);
      for (const Binding& b : per_group[g]) sorted.push_back(b);
    };
    for (Group* g : order) visit(g);
    return sorted;
  }

  // Adds a grouped function, reusing an identical one; names are made unique with a number.
  GlobalVar AddFunction(const Function& func, const std::string& name) {
    // Kernels (GlobalVars) must be the same objects, not merely mapped onto each other:
    // exp-then-relu is not negative-then-relu.
    for (const auto& [gv, existing] : added_) {
      if (ir::StructuralEqual(existing, func, /*map_free_vars=*/false)) return gv;
    }
    std::string unique = name;
    for (int n = 1; module_->GetGlobalVar(unique).defined(); ++n) unique = name + std::to_string(n);
    GlobalVar gv = ir::MakeGlobalVar(unique);
    module_ = ir::WithFunction(module_, gv, func);
    added_.emplace_back(gv, func);
    return gv;
  }

  ir::IRModule module_;
  int opt_level_;
  size_t max_depth_;
  std::vector<std::pair<GlobalVar, Function>> added_;
};

}  // namespace

ir::Pass FuseOps(int fuse_opt_level) {
  auto fn = [fuse_opt_level](ir::IRModule module, const ir::PassContext& context) {
    int opt_level = fuse_opt_level == -1 ? context.opt_level : fuse_opt_level;
    int64_t max_depth = kMaxFusedOps;
    if (auto* v = ObjectRef(context.GetConfig("relax.FuseOps", "max_depth")).as<ir::IntObj>()) {
      max_depth = v->value;
    }
    return OperatorFusor(std::move(module), opt_level, size_t(std::max<int64_t>(max_depth, 0)))
        .Transform();
  };
  return ir::CreateModulePass(fn, 0, "FuseOps");
}

static PassConfigRegistrar config_registrar(
    {"relax.FuseOps",
     "limits of FuseOps",
     {{"max_depth", ParamType::kInt, ir::MakeInt(kMaxFusedOps),
       "the most bindings one fused function holds"}}});

static PassRegistrar registrar(
    {"FuseOps",
     "groups the call_tir bindings of each dataflow block into Primitive functions by their "
     "op_pattern (TVM's post-dominator fusion)",
     {{"fuse_opt_level", ParamType::kInt, ir::MakeInt(-1),
       "fusion level; -1 takes the PassContext's opt_level, 0 fuses nothing"}},
     [](const PassArgs& args) { return FuseOps(int(args.Int("fuse_opt_level"))); }});

}  // namespace wb::transform
