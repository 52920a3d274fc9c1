#include "relax/block_builder.h"

#include "relax/op/registry.h"
#include "relax/type_analysis.h"

namespace wb::relax {

BlockBuilder::BlockBuilder(ir::IRModule context)
    : module_(context.defined() ? std::move(context) : ir::MakeIRModule({}, {})) {}

void BlockBuilder::Error(std::string message, Span span) {
  diagnostics_.Add(Diagnostic::Error(std::move(message), std::move(span)));
}

std::string BlockBuilder::FreshName(std::string hint) {
  if (hint.empty()) hint = "lv";
  int& count = name_counts_[hint];
  std::string name = count == 0 ? hint : hint + std::to_string(count);
  ++count;
  return name;
}

// --- Functions --------------------------------------------------------------------------------

void BlockBuilder::BeginFunction(std::string name, std::vector<Var> params, AttrMap attrs,
                                 bool is_pure, Span span) {
  FunctionFrame frame;
  frame.name = std::move(name);
  frame.attrs = std::move(attrs);
  frame.is_pure = is_pure;
  frame.span = std::move(span);
  frame.block_depth = blocks_.size();
  functions_.push_back(std::move(frame));
  for (const Var& p : params) DefineSymbolicVars(p->struct_info);
  functions_.back().params = std::move(params);
}

Function BlockBuilder::EndFunction(Expr output, Type ret_type) {
  if (functions_.empty()) throw std::logic_error("BlockBuilder::EndFunction without BeginFunction");
  while (blocks_.size() > functions_.back().block_depth) EndBlock();
  Expr body = Normalize(output);
  FunctionFrame frame = std::move(functions_.back());
  functions_.pop_back();
  Type out_type = TypeOf(body);
  // Vars bound inside the function may not appear in its result type: only the params' do.
  std::unordered_map<const Object*, bool> param_vars;
  for (const Var& p : frame.params) {
    for (const tir::Var& v : VarsOf(p->struct_info)) param_vars[v.get()] = true;
  }
  auto in_scope = [&](const tir::VarNode* v) { return param_vars.count(v) > 0; };
  if (ret_type.defined()) {
    if (out_type.defined() && !IsBaseOf(ret_type, out_type)) {
      Error("function " + frame.name + " returns " + TypeToString(out_type) +
                " but its declared result type is " + TypeToString(ret_type),
            output.defined() ? output->span : frame.span);
    }
  } else {
    ret_type = out_type.defined() ? EraseToWellDefined(out_type, in_scope) : Type(MakeObjectType());
  }
  SeqExpr seq = MakeSeqExpr(std::move(frame.blocks), body);
  Function func = MakeFunction(std::move(frame.params), seq, ret_type, frame.is_pure,
                               std::move(frame.attrs), frame.span);
  AddFunction(func, frame.name);
  return func;
}

GlobalVar BlockBuilder::AddFunction(const ir::BaseFunc& func, const std::string& name) {
  GlobalVar gv = module_->GetGlobalVar(name);
  if (!gv.defined()) gv = ir::MakeGlobalVar(name);
  module_ = ir::WithFunction(module_, gv, func);
  return gv;
}

// --- Blocks -----------------------------------------------------------------------------------

void BlockBuilder::BeginDataflowBlock(Span span) {
  blocks_.push_back(BlockFrame{true, std::move(span), {}});
}

void BlockBuilder::BeginBindingBlock(Span span) {
  blocks_.push_back(BlockFrame{false, std::move(span), {}});
}

void BlockBuilder::EnsureBlock(const Span& span) {
  // Bindings outside any block of the current function go into a plain block of their own.
  size_t depth = functions_.empty() ? 0 : functions_.back().block_depth;
  if (blocks_.size() <= depth) BeginBindingBlock(span);
}

bool BlockBuilder::InDataflowBlock() const {
  size_t depth = functions_.empty() ? 0 : functions_.back().block_depth;
  return blocks_.size() > depth && blocks_.back().dataflow;
}

BindingBlock BlockBuilder::EndBlock() {
  if (blocks_.empty()) throw std::logic_error("BlockBuilder::EndBlock without an open block");
  BlockFrame frame = std::move(blocks_.back());
  blocks_.pop_back();
  BindingBlock block = frame.dataflow
                           ? BindingBlock(MakeDataflowBlock(std::move(frame.bindings), frame.span))
                           : MakeBindingBlock(std::move(frame.bindings), frame.span);
  if (!functions_.empty() && !block->bindings.empty()) functions_.back().blocks.push_back(block);
  return block;
}

// --- Bindings ---------------------------------------------------------------------------------

Var BlockBuilder::Emit(Expr value, std::string name_hint, Span span) {
  EnsureBlock(span);
  Expr normalized = Normalize(value);
  Type type = TypeOf(normalized);
  std::string name = FreshName(std::move(name_hint));
  Var var = InDataflowBlock() ? Var(MakeDataflowVar(name, type, span)) : MakeVar(name, type, span);
  blocks_.back().bindings.push_back(MakeVarBinding(var, normalized, span));
  return var;
}

Var BlockBuilder::EmitBinding(Var var, Expr value, Span span) {
  EnsureBlock(span);
  Expr normalized = Normalize(value);
  Type type = TypeOf(normalized);
  if (!var->struct_info.defined()) {
    // An unannotated var takes the value's type.
    var = ir::IsInstance<DataflowVarNode>(var.get())
              ? Var(MakeDataflowVar(var->name_hint, type, var->span))
              : MakeVar(var->name_hint, type, var->span);
  } else if (type.defined()) {
    DefineSymbolicVars(var->struct_info);
    if (!IsBaseOf(var->struct_info, type)) {
      Error("the value of " + var->name_hint + " has type " + TypeToString(type) +
                ", which does not fit its annotation " + TypeToString(var->struct_info) +
                " (use R.match_cast to assert it)",
            span);
    }
  }
  if (ir::IsInstance<DataflowVarNode>(var.get()) && !InDataflowBlock()) {
    Error("dataflow var " + var->name_hint + " is bound outside a dataflow block", span);
  }
  blocks_.back().bindings.push_back(MakeVarBinding(var, normalized, span));
  return var;
}

Var BlockBuilder::EmitOutput(Expr value, std::string name_hint, Span span) {
  if (!InDataflowBlock()) {
    Error("R.output / emit_output is only allowed inside a dataflow block", span);
  }
  EnsureBlock(span);
  Expr normalized = Normalize(value);
  Var var = MakeVar(FreshName(std::move(name_hint)), TypeOf(normalized), span);
  blocks_.back().bindings.push_back(MakeVarBinding(var, normalized, span));
  return var;
}

Var BlockBuilder::EmitMatchCast(Expr value, Type type, std::string name_hint, Span span) {
  EnsureBlock(span);
  Expr normalized = Normalize(value);
  Type from = TypeOf(normalized);
  if (from.defined() && type.defined()) {
    auto* src = from.as<TensorTypeNode>();
    auto* dst = type.as<TensorTypeNode>();
    std::string why;
    if (src && dst) {
      if (!src->IsUnknownDtype() && !dst->IsUnknownDtype() && src->dtype != dst->dtype) {
        why = "the dtypes differ";
      } else if (!src->IsUnknownNdim() && !dst->IsUnknownNdim() && src->ndim != dst->ndim) {
        why = "the ranks differ";
      }
    } else if (!from.as<ObjectTypeNode>() && from->type_index() != type->type_index() &&
               !type.as<ObjectTypeNode>()) {
      why = "they are different kinds of value";
    }
    if (!why.empty()) {
      Error("match_cast of a value of type " + TypeToString(from) + " to " + TypeToString(type) +
                " can never succeed: " + why,
            span);
    }
  }
  DefineSymbolicVars(type);
  std::string name = FreshName(std::move(name_hint));
  Var var = InDataflowBlock() ? Var(MakeDataflowVar(name, type, span)) : MakeVar(name, type, span);
  blocks_.back().bindings.push_back(MakeMatchCast(var, normalized, type, span));
  return var;
}

// --- Normalization ----------------------------------------------------------------------------

Type BlockBuilder::TypeOf(const Expr& expr) const {
  if (!expr.defined()) return Type();
  if (auto* gv = expr.as<ir::GlobalVarNode>()) {
    ir::BaseFunc f = module_->Lookup(GetRef(gv));
    if (!f.defined()) return Type();
    if (Type t = GetType(f); t.defined()) return t;
    // A PrimFunc: callable, with no Relax signature.
    return MakePackedFuncType(MakeObjectType(), false);
  }
  return GetType(expr);
}

Expr BlockBuilder::Normalize(const Expr& expr) {
  if (!expr.defined()) return expr;
  switch (expr->type_index()) {
    case TypeIndex::kTuple: {
      auto* t = expr.as<TupleNode>();
      std::vector<Expr> fields;
      std::vector<Type> types;
      bool typed = true;
      for (const Expr& f : t->fields) {
        fields.push_back(Normalize(f));
        types.push_back(TypeOf(fields.back()));
        typed = typed && types.back().defined();
      }
      Tuple out = MakeTuple(std::move(fields), t->span);
      if (typed) out.CopyOnWrite()->struct_info = ir::MakeTupleType(std::move(types));
      return out;
    }
    case TypeIndex::kTupleGetItem: {
      auto* t = expr.as<TupleGetItemNode>();
      Expr tuple = Normalize(t->tuple);
      TupleGetItem out = MakeTupleGetItem(tuple, t->index, t->span);
      Type tt = TypeOf(tuple);
      if (!tt.defined()) return out;
      auto* tuple_type = tt.as<TupleTypeNode>();
      if (!tuple_type) {
        Error("cannot take item " + std::to_string(t->index) + " of a value of type " +
                  TypeToString(tt) + ", which is not a tuple",
              t->span);
      } else if (t->index < 0 || t->index >= static_cast<int64_t>(tuple_type->fields.size())) {
        Error("tuple index " + std::to_string(t->index) + " is out of range for a tuple of " +
                  std::to_string(tuple_type->fields.size()) + " fields",
              t->span);
      } else {
        out.CopyOnWrite()->struct_info = tuple_type->fields[t->index];
      }
      return out;
    }
    case TypeIndex::kRelaxCall: {
      auto* c = expr.as<CallNode>();
      if (c->struct_info.defined()) return expr;
      std::vector<Expr> args;
      for (const Expr& a : c->args) args.push_back(Normalize(a));
      Call call = MakeCall(Normalize(c->op), std::move(args), c->attrs, c->sinfo_args, c->span);
      Type type = InferCall(call);
      if (!type.defined()) return call;
      call.CopyOnWrite()->struct_info = type;
      if (auto* op = call->op.as<ir::OpNode>()) {
        const OpInfo* info = InfoOf(GetRef(op));
        if (info->normalize) call = info->normalize(call);
      }
      return call;
    }
    case TypeIndex::kRelaxIf: {
      auto* i = expr.as<IfNode>();
      if (i->struct_info.defined()) return expr;
      Expr cond = Normalize(i->cond);
      auto as_seq = [&](const Expr& branch) -> Expr {
        Expr b = Normalize(branch);
        if (b.as<SeqExprNode>()) return b;
        return MakeSeqExpr({}, b, b.defined() ? b->span : Span());
      };
      Expr t = as_seq(i->true_branch);
      Expr f = as_seq(i->false_branch);
      If out = MakeIf(cond, t, f, i->span);
      Type ct = TypeOf(cond);
      if (ct.defined()) {
        auto* p = ct.as<PrimTypeNode>();
        auto* tt = ct.as<TensorTypeNode>();
        bool ok = (p && (p->dtype.is_bool() || p->dtype.is_void())) ||
                  (tt && (tt->ndim == 0 || tt->IsUnknownNdim()) &&
                   (tt->dtype.is_bool() || tt->IsUnknownDtype()));
        if (!ok) {
          Error("the condition of an if must be a bool scalar, got " + TypeToString(ct), i->span);
        }
      }
      Type a = TypeOf(t);
      Type b = TypeOf(f);
      if (a.defined() && b.defined()) out.CopyOnWrite()->struct_info = TypeLCA(a, b);
      return out;
    }
    case TypeIndex::kSeqExpr: {
      auto* s = expr.as<SeqExprNode>();
      if (s->struct_info.defined()) return expr;
      return MakeSeqExpr(s->blocks, Normalize(s->body), s->span);
    }
    default:
      // Leaves are typed when they are made; functions, globals and ops need nothing.
      return expr;
  }
}

Type BlockBuilder::InferCall(const Call& call) {
  std::vector<Type> arg_types;
  for (const Expr& a : call->args) {
    arg_types.push_back(TypeOf(a));
    // A function not (yet) in the module, e.g. call_tir's kernel: callable, nothing more known.
    if (!arg_types.back().defined() && a.as<ir::GlobalVarNode>()) {
      arg_types.back() = MakePackedFuncType(MakeObjectType(), false);
    }
    // An argument left untyped by an earlier error: that error is the one to read.
    if (!arg_types.back().defined()) return Type();
  }
  if (auto* op = call->op.as<ir::OpNode>()) {
    const OpInfo* info = InfoOf(GetRef(op));
    if (!info) {
      Error("unknown Relax op " + op->name, call->span);
      return Type();
    }
    InferResult r = info->infer(call, arg_types);
    if (!r.ok()) Error(r.message(), call->span);
    return r.type();
  }
  Type callee = TypeOf(call->op);
  if (!callee.defined()) {
    if (auto* gv = call->op.as<ir::GlobalVarNode>()) {
      Error("call to " + gv->name_hint + ", which is not a function of the module", call->span);
    }
    return Type();
  }
  if (auto* f = callee.as<PackedFuncTypeNode>()) return f->ret;
  auto* f = callee.as<FuncTypeNode>();
  if (!f) {
    Error("the callee has type " + TypeToString(callee) + ", which is not callable", call->span);
    return Type();
  }
  if (f->params.size() != arg_types.size()) {
    Error("the callee takes " + std::to_string(f->params.size()) + " arguments, got " +
              std::to_string(arg_types.size()),
          call->span);
    return Type();
  }
  // The callee's symbolic dims take the caller's values: f(x: (n, 4)) -> (n * 2,) called on
  // a (k, 4) tensor returns (k * 2,).
  DimMap dims;
  for (size_t i = 0; i < arg_types.size(); ++i) MatchDims(f->params[i], arg_types[i], &dims);
  for (size_t i = 0; i < arg_types.size(); ++i) {
    Type want = SubstituteDims(f->params[i], dims);
    if (!IsBaseOf(want, arg_types[i])) {
      Error("argument " + std::to_string(i) + " has type " + TypeToString(arg_types[i]) +
                " but the callee expects " + TypeToString(want),
            call->span);
      return Type();
    }
  }
  return SubstituteDims(f->ret, dims);
}

// --- Symbolic vars ----------------------------------------------------------------------------

tir::Var BlockBuilder::LookupSymbolicVar(const std::string& name) const {
  if (functions_.empty()) return tir::Var();
  const auto& vars = functions_.back().symbolic_vars;
  auto it = vars.find(name);
  return it == vars.end() ? tir::Var() : it->second;
}

void BlockBuilder::DefineSymbolicVars(const Type& type) {
  if (functions_.empty()) return;
  auto& vars = functions_.back().symbolic_vars;
  // Only a dim that is a bare var defines it: `n * 2` cannot be solved for n.
  ForEachDim(type, [&](const PrimExpr& d) {
    if (auto* v = d.as<tir::VarNode>()) vars.emplace(v->name_hint, GetRef(v));
  });
}

}  // namespace wb::relax
