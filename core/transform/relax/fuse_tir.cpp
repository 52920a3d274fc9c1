#include "transform/relax/fuse_tir.h"

#include <functional>
#include <set>
#include <unordered_map>

#include "relax/op/registry.h"
#include "tir/functor.h"
#include "transform/registry.h"
#include "transform/relax/fuse_expr_rewrite.h"
#include "transform/relax/fuse_tir_renew.h"

namespace wb::transform {

namespace {

using namespace relax;
using tir::DefRenewer;

[[noreturn]] void Fail(const std::string& message, const Span& span = {}) {
  throw ir::PassError(Diagnostic::Error("FuseTIR: " + message, span));
}

const ir::Op& CallTIROp() {
  static const ir::Op op = GetOp("relax.call_tir");
  return op;
}

std::vector<PrimExpr> KnownShape(const Type& type, const std::string& what) {
  auto* tensor = type.as<TensorTypeNode>();
  if (!tensor || !tensor->shape || tensor->IsUnknownDtype()) {
    Fail(what + " must be a tensor with a known shape and dtype, got " + TypeToString(type));
  }
  return *tensor->shape;
}

// The tensor types inside `type`, tuples flattened in order.
void FlattenTensorTypes(const Type& type, std::vector<Type>* out) {
  if (auto* tuple = type.as<TupleTypeNode>()) {
    for (const Type& f : tuple->fields) FlattenTensorTypes(f, out);
    return;
  }
  out->push_back(type);
}

size_t CountTensors(const Type& type) {
  std::vector<Type> flat;
  FlattenTensorTypes(type, &flat);
  return flat.size();
}

// --- One Primitive function -> one PrimFunc ----------------------------------------------------

class FusedTIRConstructor {
 public:
  explicit FusedTIRConstructor(ir::IRModule module) : module_(std::move(module)) {}

  tir::PrimFunc Build(const Function& func) {
    // Parameters: one buffer per tensor, tuples flattened (x_0, x_1, ...).
    for (const Var& param : func->params) {
      if (param->struct_info.as<ShapeTypeNode>()) continue;
      std::vector<tir::Buffer> buffers;
      int index = param->struct_info.as<TupleTypeNode>() ? 0 : -1;
      CreateParamBuffers(param->struct_info, param->name_hint, &index, &buffers);
      expr2buffers_[param.get()] = buffers;
    }
    auto* seq = func->body.as<SeqExprNode>();
    if (!seq) Fail("the body of a Primitive function must be a sequence of bindings");
    for (const BindingBlock& block : seq->blocks) {
      for (const Binding& binding : block->bindings) {
        auto* vb = binding.as<VarBindingNode>();
        if (!vb) Fail("match_cast is not supported in a Primitive function", binding->var->span);
        expr2buffers_[binding->var.get()] = BuffersOf(vb->value, binding->var);
      }
    }
    // Results: the buffers the body's value lives in, passed by the caller.
    std::vector<tir::Buffer> outputs = BuffersOf(seq->body, Var());
    for (size_t i = 0; i < outputs.size(); ++i) {
      params_.push_back(tir::MakeVar("p_output" + std::to_string(i),
                                     ir::MakePointerType(ir::MakePrimType(outputs[i]->dtype))));
      buffer_map_.push_back(outputs[i]);
      allocs_.erase(std::remove_if(allocs_.begin(), allocs_.end(),
                                   [&](const tir::Buffer& b) { return b.same_as(outputs[i]); }),
                    allocs_.end());
    }
    // Symbolic vars passed in a trailing shape.
    if (!func->params.empty()) {
      if (auto* shape = func->params.back()->struct_info.as<ShapeTypeNode>()) {
        if (!shape->values) Fail("the shape parameter of a Primitive function must list its dims");
        for (const PrimExpr& v : *shape->values) {
          auto* var = v.as<tir::VarNode>();
          if (!var) Fail("the shape parameter of a Primitive function must hold bare vars");
          params_.push_back(GetRef(var));
          buffer_map_.push_back(tir::Buffer());
        }
      }
    }

    tir::Stmt body = fuse::DeduplicateBlockNames(tir::MakeSeq(bodies_));
    if (has_root_) {
      tir::SBlock root = tir::MakeSBlock({}, {}, {}, "root", body, {}, allocs_);
      body = tir::MakeSBlockRealize({}, tir::MakeIntImm(ir::DataType::Bool(), 1), root);
    } else {
      std::vector<tir::Stmt> seq_stmts;
      for (const tir::Buffer& b : allocs_) seq_stmts.push_back(tir::MakeAllocBuffer(b));
      seq_stmts.push_back(body);
      body = tir::MakeSeq(std::move(seq_stmts));
    }
    // What TVM's FuseTIR sets: no aliasing between the buffers, and a schedulable (s_tir)
    // function, as the kernels that LegalizeOps builds are. Kernels without blocks (written by
    // hand) make a plain function.
    ir::AttrMap attrs;
    attrs["tirx.noalias"] = ir::MakeBool(true);
    if (has_root_) attrs["s_tir"] = ir::MakeBool(true);
    // Fresh definitions: the fused kernel shares no var with the Relax function it replaces.
    return tir::RenewDefs(tir::MakePrimFunc(params_, buffer_map_, body, {}, std::move(attrs)));
  }

 private:
  void CreateParamBuffers(const Type& type, const std::string& name, int* index,
                          std::vector<tir::Buffer>* buffers) {
    if (auto* tuple = type.as<TupleTypeNode>()) {
      for (const Type& f : tuple->fields) CreateParamBuffers(f, name, index, buffers);
      return;
    }
    std::string buffer_name = *index < 0 ? name : name + "_" + std::to_string((*index)++);
    std::vector<PrimExpr> shape = KnownShape(type, "parameter " + name);
    DataType dtype = type.as<TensorTypeNode>()->dtype;
    tir::Buffer buffer = tir::MakeBuffer(buffer_name, shape, dtype);
    params_.push_back(tir::MakeVar(buffer_name, ir::MakePointerType(ir::MakePrimType(dtype))));
    buffer_map_.push_back(buffer);
    buffers->push_back(buffer);
  }

  // The buffers holding the value of `expr` (a call_tir, a var, a tuple or a tuple item).
  std::vector<tir::Buffer> BuffersOf(const Expr& expr, const Var& bound_to) {
    if (auto it = expr2buffers_.find(expr.get()); it != expr2buffers_.end()) return it->second;
    if (auto* call = expr.as<CallNode>()) {
      if (!call->op.same_as(CallTIROp())) {
        Fail("only call_tir can be fused into a kernel, got a call of another function",
             call->span);
      }
      return InlineCall(call);
    }
    if (auto* tuple = expr.as<TupleNode>()) {
      std::vector<tir::Buffer> out;
      for (const Expr& f : tuple->fields) {
        std::vector<tir::Buffer> part = BuffersOf(f, Var());
        out.insert(out.end(), part.begin(), part.end());
      }
      return out;
    }
    if (auto* item = expr.as<TupleGetItemNode>()) {
      std::vector<tir::Buffer> all = BuffersOf(item->tuple, Var());
      auto* tuple_type = GetType(item->tuple).as<TupleTypeNode>();
      if (!tuple_type) Fail("a tuple item of a value that is not a tuple", item->span);
      size_t begin = 0;
      for (int64_t i = 0; i < item->index; ++i)
        begin += CountTensors(tuple_type->fields[size_t(i)]);
      size_t count = CountTensors(tuple_type->fields[size_t(item->index)]);
      return std::vector<tir::Buffer>(all.begin() + long(begin), all.begin() + long(begin + count));
    }
    if (expr.as<ConstantNode>()) {
      Fail(
          "a constant inside a Primitive function cannot be fused (FuseOps lifts constants to "
          "parameters)",
          expr->span);
    }
    std::string name = bound_to.defined() ? bound_to->name_hint : std::string("a value");
    Fail("cannot fuse the binding of " + name + ": only call_tir, tuples and tuple items can be",
         expr.defined() ? expr->span : Span());
  }

  // Inlines the kernel a call_tir calls: its input buffers become the buffers of its
  // arguments, its outputs new intermediate buffers, and its body is copied fresh.
  std::vector<tir::Buffer> InlineCall(const CallNode* call) {
    auto* gv = call->args[0].as<ir::GlobalVarNode>();
    ir::BaseFunc base = gv ? module_->Lookup(GetRef(gv)) : ir::BaseFunc();
    auto* callee = base.defined() ? base.as<tir::PrimFuncNode>() : nullptr;
    if (!callee) Fail("call_tir of something that is not a PrimFunc of the module", call->span);
    const std::string& kernel = gv->name_hint;

    std::vector<tir::Buffer> inputs;
    std::vector<PrimExpr> scalars;
    std::vector<Expr> args;
    if (call->args.size() > 1) {
      if (auto* t = call->args[1].as<TupleNode>()) {
        args = t->fields;
      } else {
        args = {call->args[1]};
      }
    }
    for (const Expr& arg : args) {
      if (auto* pv = arg.as<PrimValueNode>()) {
        scalars.push_back(pv->value);
        continue;
      }
      std::vector<tir::Buffer> b = BuffersOf(arg, Var());
      inputs.insert(inputs.end(), b.begin(), b.end());
    }
    if (call->args.size() > 2) {
      auto* tir_vars = call->args[2].as<ShapeExprNode>();
      if (!tir_vars) Fail("the tir_vars of call_tir must be a shape", call->span);
      scalars.insert(scalars.end(), tir_vars->values.begin(), tir_vars->values.end());
    }
    if (call->sinfo_args.size() != 1) Fail("call_tir needs exactly one out_ty", call->span);
    std::vector<Type> out_types;
    FlattenTensorTypes(call->sinfo_args[0], &out_types);

    DefRenewer renewer;
    size_t next_input = 0;
    size_t next_output = 0;
    size_t next_scalar = 0;
    std::vector<tir::Buffer> results;
    // Scalars first: a tir_var (trailing) may be what a buffer's compound dim (`n * 4`) needs
    // to be matched.
    for (size_t i = 0; i < callee->params.size(); ++i) {
      if (callee->buffer_map[i].defined()) continue;
      if (next_scalar >= scalars.size()) {
        Fail("kernel " + kernel + " takes more scalar arguments than the call passes", call->span);
      }
      renewer.var_map[callee->params[i].get()] = scalars[next_scalar++];
    }
    for (size_t i = 0; i < callee->params.size(); ++i) {
      const tir::Buffer& pb = callee->buffer_map[i];
      if (!pb.defined()) continue;
      tir::Buffer target;
      if (next_input < inputs.size()) {
        target = inputs[next_input++];
      } else if (next_output < out_types.size()) {
        const Type& out = out_types[next_output++];
        std::vector<PrimExpr> shape = KnownShape(out, "the result of " + kernel);
        tir::BufferOptions options;
        options.scope = pb->scope();
        target = tir::MakeBuffer(pb->name + "_intermediate", shape, out.as<TensorTypeNode>()->dtype,
                                 options);
        results.push_back(target);
      } else {
        Fail("kernel " + kernel + " takes more buffers than the call passes and returns",
             call->span);
      }
      std::string mismatch = fuse::MatchShape(pb->shape, target->shape, &renewer.var_map);
      if (!mismatch.empty()) {
        Fail("the shape of " + target->name + " does not fit parameter " + pb->name + " of " +
                 kernel + " (" + mismatch + ")",
             call->span);
      }
      if (pb->dtype != target->dtype) {
        Fail("parameter " + pb->name + " of " + kernel + " is " + pb->dtype.ToString() +
                 " but receives " + target->dtype.ToString(),
             call->span);
      }
      renewer.buffer_map[pb.get()] = target;
    }
    if (next_input != inputs.size() || next_output != out_types.size() ||
        next_scalar != scalars.size()) {
      Fail("the arguments of the call do not match the parameters of kernel " + kernel, call->span);
    }

    // Schedulable kernels have a root block: its allocations join the fused root block.
    tir::Stmt body = callee->body;
    if (auto* realize = body.as<tir::SBlockRealizeNode>();
        realize && realize->block->name_hint == "root" && realize->block->iter_vars.empty()) {
      has_root_ = true;
      for (const tir::Buffer& b : realize->block->alloc_buffers) {
        allocs_.push_back(renewer.RenewBuffer(b));
      }
      body = realize->block->body;
    }
    // The kernel's own allocations come first, then its results, as TVM orders them.
    allocs_.insert(allocs_.end(), results.begin(), results.end());
    bodies_.push_back(renewer.VisitStmt(body));
    return results;
  }

  ir::IRModule module_;
  std::unordered_map<const Object*, std::vector<tir::Buffer>> expr2buffers_;
  std::vector<tir::Var> params_;
  std::vector<tir::Buffer> buffer_map_;
  std::vector<tir::Buffer> allocs_;
  std::vector<tir::Stmt> bodies_;
  bool has_root_ = false;
};

// --- Callers ---------------------------------------------------------------------------------

class CallRewriter {
 public:
  explicit CallRewriter(const std::unordered_map<std::string, GlobalVar>& fused) : fused_(fused) {}

  Function Rewrite(const Function& func) {
    auto* seq = func->body.as<SeqExprNode>();
    if (!seq) return func;
    Expr body = RewriteSeq(GetRef(seq));
    if (body.same_as(func->body)) return func;
    Function copy = func;
    copy.CopyOnWrite()->body = body;
    return copy;
  }

 private:
  Expr RewriteSeq(const SeqExpr& seq) {
    std::vector<BindingBlock> blocks;
    bool changed = false;
    for (const BindingBlock& block : seq->blocks) {
      bool dataflow = ir::IsInstance<DataflowBlockNode>(block.get());
      std::vector<Binding> bindings;
      bool block_changed = false;
      for (const Binding& b : block->bindings) {
        auto* vb = b.as<VarBindingNode>();
        Expr value = vb ? RewriteValue(vb->value, dataflow, &bindings) : Expr();
        if (vb && !value.same_as(vb->value)) {
          bindings.push_back(MakeVarBinding(vb->var, value, vb->span));
          block_changed = true;
        } else {
          bindings.push_back(b);
        }
      }
      if (block_changed) {
        changed = true;
        blocks.push_back(dataflow
                             ? BindingBlock(MakeDataflowBlock(std::move(bindings), block->span))
                             : MakeBindingBlock(std::move(bindings), block->span));
      } else {
        blocks.push_back(block);
      }
    }
    if (!changed) return seq;
    return MakeSeqExpr(std::move(blocks), seq->body, seq->span);
  }

  Expr RewriteValue(const Expr& value, bool dataflow, std::vector<Binding>* prelude) {
    if (auto* i = value.as<IfNode>()) {
      Expr t = i->true_branch.as<SeqExprNode>() ? RewriteSeq(Downcast<SeqExprNode>(i->true_branch))
                                                : i->true_branch;
      Expr f = i->false_branch.as<SeqExprNode>()
                   ? RewriteSeq(Downcast<SeqExprNode>(i->false_branch))
                   : i->false_branch;
      if (t.same_as(i->true_branch) && f.same_as(i->false_branch)) return value;
      If out = MakeIf(i->cond, t, f, i->span);
      out.CopyOnWrite()->struct_info = i->struct_info;
      return out;
    }
    auto* call = value.as<CallNode>();
    auto* gv = call ? call->op.as<ir::GlobalVarNode>() : nullptr;
    if (!gv) return value;
    auto it = fused_.find(gv->name_hint);
    if (it == fused_.end()) return value;
    // FuseOps's trailing shape parameter holds the symbolic vars the fused kernel takes as its
    // trailing scalars (after the outputs): it becomes call_tir's tir_vars.
    std::vector<Expr> call_args = call->args;
    std::vector<Expr> operands = {it->second};
    Expr tir_vars;
    if (!call_args.empty()) {
      auto* shape = GetType(call_args.back()).as<ShapeTypeNode>();
      if (shape && shape->values) {
        tir_vars = call_args.back().as<ShapeExprNode>() ? call_args.back() : Expr(MakeShapeExpr(*shape->values));
        call_args.pop_back();
      }
    }
    std::vector<Expr> args;
    for (const Expr& a : call_args) Flatten(a, dataflow, prelude, &args);
    std::vector<Type> arg_types;
    for (const Expr& a : args) arg_types.push_back(GetType(a));
    operands.push_back(WithType(MakeTuple(args), ir::MakeTupleType(std::move(arg_types))));
    if (tir_vars.defined()) operands.push_back(tir_vars);
    Type type = call->struct_info;
    Call out = MakeCall(CallTIROp(), std::move(operands), {}, {type}, call->span);
    out.CopyOnWrite()->struct_info = type;
    return out;
  }

  // call_tir takes tensors and symbolic values, no tuples: tuples are passed field by field.
  void Flatten(const Expr& arg, bool dataflow, std::vector<Binding>* prelude,
               std::vector<Expr>* out) {
    Type type = GetType(arg);
    if (auto* tuple = type.as<TupleTypeNode>()) {
      for (size_t i = 0; i < tuple->fields.size(); ++i) {
        Expr item = WithType(MakeTupleGetItem(arg, int64_t(i)), tuple->fields[i]);
        std::string name = "lv";
        if (auto* v = arg.as<VarNode>()) name = v->name_hint + "_" + std::to_string(i);
        Var var = dataflow ? Var(MakeDataflowVar(name, tuple->fields[i]))
                           : MakeVar(name, tuple->fields[i]);
        prelude->push_back(MakeVarBinding(var, item));
        Flatten(var, dataflow, prelude, out);
      }
      return;
    }
    if (auto* shape = type.as<ShapeTypeNode>()) {
      if (!shape->values) Fail("a shape argument of a fused function must list its dims");
      for (const PrimExpr& v : *shape->values) {
        out->push_back(WithType(MakePrimValue(v), ir::MakePrimType(v->dtype)));
      }
      return;
    }
    out->push_back(arg);
  }

  const std::unordered_map<std::string, GlobalVar>& fused_;
};

// The module functions that `func` refers to by name.
void CollectReferences(const ObjectRef& node, std::set<std::string>* names) {
  if (!node.defined()) return;
  if (auto* gv = node.as<ir::GlobalVarNode>()) {
    names->insert(gv->name_hint);
    return;
  }
  if (auto* prim = node.as<tir::PrimFuncNode>()) {
    tir::PostOrderVisit(prim->body, [&](const Object* n) {
      if (auto* call = ObjectRef(n).as<tir::CallNode>()) {
        if (auto* g = call->op.as<ir::GlobalVarNode>()) names->insert(g->name_hint);
      }
    });
    return;
  }
  switch (node->type_index()) {
    case TypeIndex::kRelaxFunction:
      CollectReferences(node.as<FunctionNode>()->body, names);
      break;
    case TypeIndex::kTuple:
      for (const Expr& f : node.as<TupleNode>()->fields) CollectReferences(f, names);
      break;
    case TypeIndex::kTupleGetItem:
      CollectReferences(node.as<TupleGetItemNode>()->tuple, names);
      break;
    case TypeIndex::kRelaxCall: {
      auto* c = node.as<CallNode>();
      CollectReferences(c->op, names);
      for (const Expr& a : c->args) CollectReferences(a, names);
      break;
    }
    case TypeIndex::kRelaxIf: {
      auto* i = node.as<IfNode>();
      CollectReferences(i->cond, names);
      CollectReferences(i->true_branch, names);
      CollectReferences(i->false_branch, names);
      break;
    }
    case TypeIndex::kSeqExpr: {
      auto* s = node.as<SeqExprNode>();
      for (const BindingBlock& b : s->blocks) {
        for (const Binding& binding : b->bindings) {
          if (auto* vb = binding.as<VarBindingNode>()) CollectReferences(vb->value, names);
          if (auto* mc = binding.as<MatchCastNode>()) CollectReferences(mc->value, names);
        }
      }
      CollectReferences(s->body, names);
      break;
    }
    default:
      break;
  }
}

ir::IRModule FuseTIRModule(const ir::IRModule& module) {
  std::unordered_map<std::string, GlobalVar> fused_vars;
  std::unordered_map<std::string, tir::PrimFunc> fused_funcs;
  for (size_t i = 0; i < module->functions.size(); ++i) {
    auto* func = module->functions[i].as<FunctionNode>();
    if (!func || !fuse::HasNonzeroAttr(func, "Primitive")) continue;
    const GlobalVar& gv = module->global_vars[i];
    fused_funcs[gv->name_hint] = FusedTIRConstructor(module).Build(GetRef(func));
    fused_vars[gv->name_hint] = gv;
  }
  if (fused_funcs.empty()) return module;

  CallRewriter rewriter(fused_vars);
  std::map<std::string, std::pair<GlobalVar, ir::BaseFunc>> kept;
  std::vector<std::string> worklist;
  for (size_t i = 0; i < module->functions.size(); ++i) {
    const ir::BaseFunc& f = module->functions[i];
    const GlobalVar& gv = module->global_vars[i];
    if (auto* func = f.as<FunctionNode>()) {
      if (fuse::HasNonzeroAttr(func, "Primitive")) continue;
      kept[gv->name_hint] = {gv, rewriter.Rewrite(GetRef(func))};
      worklist.push_back(gv->name_hint);
    } else if (f.as<ExternFuncNode>()) {
      kept[gv->name_hint] = {gv, f};
    }
  }
  // Keep what the remaining functions still reach; unused kernels go.
  while (!worklist.empty()) {
    std::string name = worklist.back();
    worklist.pop_back();
    std::set<std::string> refs;
    CollectReferences(kept.at(name).second, &refs);
    for (const std::string& ref : refs) {
      if (kept.count(ref)) continue;
      if (auto it = fused_funcs.find(ref); it != fused_funcs.end()) {
        kept[ref] = {fused_vars.at(ref), it->second};
      } else if (ir::BaseFunc f = module->Lookup(ref); f.defined()) {
        kept[ref] = {module->GetGlobalVar(ref), f};
      } else {
        continue;
      }
      worklist.push_back(ref);
    }
  }
  std::vector<GlobalVar> vars;
  std::vector<ir::BaseFunc> funcs;
  for (auto& [name, entry] : kept) {
    vars.push_back(entry.first);
    funcs.push_back(entry.second);
  }
  return ir::WithFunctions(module, std::move(vars), std::move(funcs));
}

}  // namespace

ir::Pass FuseTIR() {
  return ir::CreateModulePass(
      [](ir::IRModule module, const ir::PassContext&) { return FuseTIRModule(module); }, 0,
      "FuseTIR");
}

static PassRegistrar registrar(
    {"FuseTIR",
     "merges the kernels of each Primitive function (from FuseOps) into one PrimFunc called by "
     "one call_tir, and removes the kernels no longer used",
     {},
     [](const PassArgs&) { return FuseTIR(); }});

}  // namespace wb::transform
