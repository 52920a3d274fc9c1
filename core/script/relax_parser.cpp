// Relax functions and statements: decorators and signatures, R.func_attr, symbolic-var preludes,
// bindings (annotated, tuple-unpacking, match_cast), `with R.dataflow()` / R.output, if/else,
// nested functions and return. Expressions and types: relax_parser_expr.cpp.
#include "script/relax_parser.h"

#include <optional>


#include "ir/structural_equal.h"
#include "relax/type.h"
#include "script/relax_metadata.h"
#include "script/relax_printer.h"
#include "tir/op.h"

namespace wb::script::detail {

using namespace wb::relax;  // NOLINT(google-build-using-namespace): node names are the vocabulary

bool IsRelaxDecorator(std::string_view text) {
  return text.rfind("R.function", 0) == 0 || text.rfind("relax.function", 0) == 0;
}

namespace {

struct RelaxFlags {
  bool pure = true;
  bool private_ = false;
  bool check_well_formed = true;
};

RelaxFlags ParseFlags(Parser& p, Node decorator) {
  RelaxFlags flags;
  auto kids = p.cst_->Children(decorator);
  if (kids.empty() || p.Kind(kids[0]) != K::kCall) return flags;
  for (Node a : p.cst_->Children(p.Field(kids[0], p.F().arguments))) {
    if (p.Kind(a) != K::kKeywordArgument) p.Fail(a, "R.function takes keyword flags only");
    std::string_view key = p.Text(p.Field(a, p.F().name));
    Node vn = p.Field(a, p.F().value);
    Value v = p.Eval(vn);
    if (v.kind != VK::kBool) p.Fail(vn, "R.function flags must be True or False");
    if (key == "pure") flags.pure = v.i;
    else if (key == "private") flags.private_ = v.i;
    else if (key == "check_well_formed") flags.check_well_formed = v.i;
    else p.Fail(a, "unknown R.function flag '" + std::string(key) + "'");
  }
  return flags;
}

Node Unwrap(Parser& p, Node type) {
  return p.Kind(type) == K::kType && p.cst_->NamedChildCount(type) > 0
             ? p.cst_->NamedChild(type, 0)
             : type;
}

}  // namespace

void ParseRelaxFunction(Parser& p, Node def, Node decorator, const ir::GlobalVar& gv) {
  RelaxParser parser(p);
  size_t errors = p.diags_.ErrorCount();
  Function func = parser.ParseFunction(def, decorator, gv->name_hint, true);
  if (!func.defined()) return;
  if (p.diags_.ErrorCount() > errors || def->has_error) {
    // As for a PrimFunc: out of the module, but what was built serves the editor.
    p.recovered_.push_back({gv, func});
    return;
  }
  p.funcs_.push_back(func);
  p.parsed_gvars_.push_back(gv);
}

bool ParseRelaxClassAssignment(Parser& p, Node left, Node right) {
  if (p.Kind(left) != K::kIdentifier || IsNull(right) || p.Kind(right) != K::kCall) return false;
  std::string_view fn = p.Text(p.Field(right, p.F().function));
  if (fn != "R.ExternFunc" && fn != "relax.ExternFunc") return false;
  auto args = p.cst_->Children(p.Field(right, p.F().arguments));
  if (args.empty() || args.size() > 2 || p.Kind(args[0]) != K::kString) {
    p.Fail(right, "R.ExternFunc expects a symbol name and an optional R.Callable type");
  }
  std::string symbol = p.StringLiteral(args[0]);
  ir::Type type;
  if (args.size() == 2) {
    RelaxParser parser(p);
    type = parser.EvalType(args[1]);
  }
  std::string name(p.Text(left));
  ir::GlobalVar gv;
  for (const auto& g : p.gvars_) {
    if (g->name_hint == name) gv = g;
  }
  if (!gv.defined()) {
    gv = ir::MakeGlobalVar(name, p.SpanOf(left));
    p.gvars_.push_back(gv);
  }
  for (const auto& g : p.parsed_gvars_) {
    if (g->name_hint == name) p.Fail(left, "function '" + name + "' is defined twice in the module");
  }
  p.funcs_.push_back(MakeExternFunc(symbol, type, p.SpanOf(right)));
  p.parsed_gvars_.push_back(gv);
  return true;
}

bool ParseRelaxMetadata(Parser& p, Node left, Node right) {
  if (p.Kind(left) != K::kIdentifier || p.Text(left) != "metadata" || IsNull(right) ||
      p.Kind(right) != K::kCall || p.Text(p.Field(right, p.F().function)) != "tvm.ir.load_json") {
    return false;
  }
  auto args = p.cst_->Children(p.Field(right, p.F().arguments));
  if (args.size() != 1 || p.Kind(args[0]) != K::kString) {
    p.Fail(right, "tvm.ir.load_json expects one string");
  }
  std::vector<ir::ObjectRef> constants;
  try {
    for (auto& c : ParseConstantsMetadata(p.StringLiteral(args[0]), p.SpanOf(args[0]))) {
      constants.push_back(c);
    }
  } catch (const std::exception& e) {
    p.Fail(args[0], std::string("invalid metadata: ") + e.what());
  }
  ir::AttrMap meta{{"relax.expr.Constant", ir::MakeArray(constants)}};
  p.Bind(p.Text(left), Value::Of(VK::kObject, ir::MakeMap(meta)));
  return true;
}

Function RelaxParser::ParseFunction(Node def, Node decorator, const std::string& name,
                                    bool top_level) {
  RelaxFlags flags = ParseFlags(p_, decorator);
  if (!flags.check_well_formed) p_.unchecked_.push_back(name);
  // The TIR evaluator creates symbolic vars (TypeVars, quoted dims) in the function's scope.
  FuncCtx ctx;
  ctx.name = name;
  FuncCtx* saved_func = p_.func_;
  size_t saved_scope = p_.func_scope_;
  p_.func_ = &ctx;
  p_.PushScope();
  p_.func_scope_ = p_.scopes_.size() - 1;
  seqs_.emplace_back();
  ir::AttrMap saved_attrs = std::move(func_attrs_);
  func_attrs_.clear();
  Function result;
  try {
    Node tparams = p_.Field(def, p_.F().type_parameters);
    if (!IsNull(tparams)) {
      for (Node t : p_.cst_->Children(tparams)) {
        std::string_view text = p_.Text(t);
        text = text.substr(0, text.find(':'));
        while (!text.empty() && text.back() == ' ') text.remove_suffix(1);
        if (text.empty()) continue;
        Value v;
        v.kind = VK::kTypeVar;
        p_.Bind(text, v);
      }
    }
    std::vector<relax::Var> params;
    for (Node param : p_.cst_->Children(p_.Field(def, p_.F().parameters))) {
      if (p_.Kind(param) == K::kIdentifier) {
        p_.Fail(param, "parameter '" + std::string(p_.Text(param)) +
                           "' needs a type annotation, e.g. R.Tensor((16,), dtype=\"float32\")");
      }
      if (p_.Kind(param) != K::kTypedParameter) p_.Fail(param, "unsupported parameter form");
      Node pname = p_.cst_->Children(param).at(0);
      p_.in_signature_ = true;
      ir::Type type;
      try {
        type = EvalType(Unwrap(p_, p_.Field(param, p_.F().type)));
      } catch (const ParseAbort&) {
        // Reported; the parameter stays, untyped (as a failed binding's name does), so that
        // the body is still checked and the function still serves the editor.
      } catch (...) {
        p_.in_signature_ = false;
        throw;
      }
      p_.in_signature_ = false;
      relax::Var var = MakeVar(std::string(p_.Text(pname)), type, p_.SpanOf(pname));
      params.push_back(var);
      p_.Bind(p_.Text(pname), Value::Of(VK::kObject, var));
    }
    ir::Type ret;
    Node ret_node = p_.Field(def, p_.F().return_type);
    if (!IsNull(ret_node)) {
      p_.in_signature_ = true;
      try {
        ret = EvalType(Unwrap(p_, ret_node));
      } catch (...) {
        p_.in_signature_ = false;
        throw;
      }
      p_.in_signature_ = false;
    }
    std::vector<Node> stmts = p_.cst_->Children(p_.Field(def, p_.F().body));
    Expr body;
    ParseStmts(stmts, true, &body);
    // The checks of the whole function report and go on: the function is then only recovered
    // (ParseResult::recovered), never in the module.
    const bool returns = body.defined();
    if (!returns) {
      p_.Error(p_.Field(def, p_.F().name),
               "Relax function '" + name + "' must end with a return statement");
      body = MakeTuple({});
    }
    SeqExpr seq = FinishSeq(body, p_.SpanOf(p_.Field(def, p_.F().body)));
    Type body_type = GetType(body);
    if (returns && ret.defined() && body_type.defined() && !IsBaseOf(ret, body_type)) {
      p_.Error(return_value_, "the function returns " + TypeText(body_type) +
                                  ", which does not fit its declared return type " + TypeText(ret));
    }
    ir::AttrMap attrs = func_attrs_;
    if (top_level && !flags.private_ && !attrs.count("global_symbol")) {
      attrs["global_symbol"] = ir::MakeString(name);
    }
    result = MakeFunction(params, seq, ret.defined() ? ret : body_type, flags.pure, attrs,
                          p_.SpanOf(def));
  } catch (const ParseAbort&) {
    result = Function();
  } catch (const DiagnosticError& e) {
    p_.diags_.Add(e.diagnostic());
    result = Function();
  } catch (const std::exception& e) {
    p_.Error(def, std::string("internal error: ") + e.what());
    result = Function();
  }
  seqs_.pop_back();
  func_attrs_ = std::move(saved_attrs);
  p_.PopScope();
  p_.func_ = saved_func;
  p_.func_scope_ = saved_scope;
  return result;
}

// --- statements ------------------------------------------------------------------------------

void RelaxParser::ParseStmts(const std::vector<Node>& stmts, bool allow_return, Expr* result) {
  for (size_t i = 0; i < stmts.size(); ++i) {
    Node s = stmts[i];
    if (result->defined()) {
      p_.Error(s, "no statement may follow the return statement");
      return;
    }
    try {
      ParseStmt(s, stmts, i, result);
    } catch (const ParseAbort&) {
      // Reported; go on with the next statement so that later errors are found too. Names the
      // failed statement would have bound get untyped placeholders, which silences errors that
      // could only repeat this one.
      BindPlaceholders(s);
      if (p_.Kind(s) == K::kReturnStatement) *result = MakeTuple({});
    } catch (const DiagnosticError& e) {
      p_.diags_.Add(e.diagnostic());
      BindPlaceholders(s);
      if (p_.Kind(s) == K::kReturnStatement) *result = MakeTuple({});
    }
  }
  (void)allow_return;
}

// `n = TypeVar("n")` in a body (before a nested function whose signature uses `n`): a Python
// TypeVar, as at module level, not a Relax binding.
static bool IsTypeVarAssignment(Parser& p, Node assign) {
  Node left = p.Field(assign, p.F().left), right = p.Field(assign, p.F().right);
  return p.Kind(left) == K::kIdentifier && !IsNull(right) && p.Kind(right) == K::kCall &&
         p.Text(p.Field(right, p.F().function)) == "TypeVar";
}

void RelaxParser::BindPlaceholders(Node n) {
  if (p_.Kind(n) == K::kAssignment && !IsTypeVarAssignment(p_, n)) {
    Node left = p_.Field(n, p_.F().left);
    std::vector<Node> names{left};
    if (p_.Kind(left) == K::kPatternList || p_.Kind(left) == K::kTuplePattern) {
      names = p_.cst_->Children(left);
    }
    for (Node name : names) {
      if (p_.Kind(name) != K::kIdentifier || p_.Lookup(p_.Text(name))) continue;
      relax::Var var = MakeVar(std::string(p_.Text(name)), Type(), p_.SpanOf(name));
      p_.Bind(p_.Text(name), Value::Of(VK::kObject, var));
      if (in_dataflow_) block_vars_.insert(var.get());
    }
  }
  if (p_.Kind(n) == K::kFunctionDefinition) {
    Node name = p_.Field(n, p_.F().name);
    if (!p_.Lookup(p_.Text(name))) {
      p_.Bind(p_.Text(name), Value::Of(VK::kObject, MakeVar(std::string(p_.Text(name)), Type())));
    }
    return;
  }
  for (Node c : p_.cst_->Children(n)) BindPlaceholders(c);
}

void RelaxParser::ParseStmt(Node s, const std::vector<Node>& stmts, size_t index,
                            Expr* result) {
  DepthGuard guard(&p_, s);
  switch (p_.Kind(s)) {
    case K::kPassStatement:
    case K::kComment: return;
    case K::kReturnStatement: {
      auto kids = p_.cst_->Children(s);
      if (kids.empty()) p_.Fail(s, "a Relax function must return a value");
      return_value_ = kids[0];
      *result = Normalize(ToExpr(Eval(kids[0]), kids[0]), kids[0]);
      return;
    }
    case K::kWithStatement: ParseDataflow(s); return;
    case K::kIfStatement: ParseIf(s, stmts, index); return;
    case K::kDecoratedDefinition: {
      Node def = p_.Field(s, p_.F().definition);
      Node decorator{};
      for (Node d : p_.cst_->Children(s)) {
        if (p_.Kind(d) == K::kDecorator) decorator = d;
      }
      auto kids = p_.cst_->Children(decorator);
      std::string_view text = kids.empty() ? std::string_view() : p_.Text(kids[0]);
      if (p_.Kind(def) != K::kFunctionDefinition || !IsRelaxDecorator(text)) {
        p_.Fail(IsNull(decorator) ? s : decorator,
                "only @R.function definitions may be nested in a Relax function");
      }
      ParseNestedFunction(def, decorator);
      return;
    }
    case K::kFunctionDefinition:
      p_.Fail(p_.Field(s, p_.F().name), "a nested function needs the @R.function decorator");
    case K::kExpressionStatement: break;
    default: p_.Fail(s, "unsupported statement in a Relax function");
  }
  auto kids = p_.cst_->Children(s);
  if (kids.size() != 1) p_.Fail(s, "unsupported statement in a Relax function");
  Node e = kids[0];
  if (p_.Kind(e) == K::kAssignment) {
    ParseAssign(e);
    return;
  }
  if (p_.Kind(e) == K::kString) return;  // a docstring
  if (p_.Kind(e) == K::kCall) {
    std::string_view fn = p_.Text(p_.Field(e, p_.F().function));
    if (fn == "R.func_attr") {
      auto args = p_.cst_->Children(p_.Field(e, p_.F().arguments));
      if (args.size() != 1) p_.Fail(e, "R.func_attr expects one dict");
      ir::ObjectRef map = p_.ToAttrValue(p_.Eval(args[0]), args[0]);
      auto* m = map.as<ir::MapObj>();
      if (!m) p_.Fail(args[0], "R.func_attr expects a dict");
      for (const auto& [k, v] : m->items) func_attrs_[k] = v;
      return;
    }
    if (fn == "R.output") {
      p_.Fail(e, "R.output(...) is only allowed as the last statement of an R.dataflow() block");
    }
  }
  // A void call as a statement (R.print, R.assert_op): bound to `_`.
  Expr value = ToExpr(Eval(e), e);
  Type type = GetType(value);
  auto* tuple = type.as<ir::TupleTypeNode>();
  if (!tuple || !tuple->fields.empty()) {
    p_.Fail(e, "a non-void Relax expression must be bound to a variable; this one has type " +
                   TypeText(type));
  }
  Emit("_", value, Type(), e, Node{});
}

// `T.<dtype>()` with no arguments: the dtype of the symbolic var it declares; nullopt otherwise.
static std::optional<DataType> SymbolicVarDecl(Parser& p, Node call) {
  if (p.Kind(call) != K::kCall) return std::nullopt;
  std::string_view fn = p.Text(p.Field(call, p.F().function));
  if (fn.rfind("T.", 0) != 0 || !p.cst_->Children(p.Field(call, p.F().arguments)).empty()) return std::nullopt;
  Value dt = p.Eval(p.Field(call, p.F().function));
  if (dt.kind != VK::kDType) return std::nullopt;
  return dt.dtype;
}

bool RelaxParser::DeclareSymbolicVars(Node left, Node right) {
  std::vector<Node> names, values;
  if (p_.Kind(left) == K::kIdentifier) {
    names = {left};
    values = {right};
  } else if ((p_.Kind(left) == K::kPatternList || p_.Kind(left) == K::kTuplePattern) &&
             (p_.Kind(right) == K::kExpressionList || p_.Kind(right) == K::kTuple)) {
    names = p_.cst_->Children(left);
    values = p_.cst_->Children(right);
    if (names.size() != values.size()) return false;
  } else {
    return false;
  }
  // Each value declares a var, or is a Python value spliced in with I.meta_var (only inside a
  // tuple of declarations: alone it is an ordinary binding, handled by the caller).
  auto is_meta_var = [&](Node v) {
    if (p_.Kind(v) != K::kCall) return false;
    std::string_view fn = p_.Text(p_.Field(v, p_.F().function));
    return fn == "I.meta_var" || fn == "ir.meta_var";
  };
  std::vector<std::optional<DataType>> dtypes;
  bool declares = false;
  for (size_t i = 0; i < names.size(); ++i) {
    if (p_.Kind(names[i]) != K::kIdentifier) return false;
    std::optional<DataType> dt = SymbolicVarDecl(p_, values[i]);
    if (!dt && (names.size() == 1 || !is_meta_var(values[i]))) return false;
    declares |= dt.has_value();
    dtypes.push_back(dt);
  }
  if (!declares) return false;
  for (size_t i = 0; i < names.size(); ++i) {
    std::string_view name = p_.Text(names[i]);
    if (!dtypes[i]) {
      p_.Bind(name, Eval(values[i]));
      continue;
    }
    auto& fscope = p_.scopes_[p_.func_scope_];
    auto it = fscope.find(name);
    if (it != fscope.end() && it->second.kind == VK::kTypeVar) {
      p_.Eval(names[i]);  // materializes the TypeVar's Var
      continue;
    }
    if (const Value* found = p_.Lookup(name); found && found->kind == VK::kExpr &&
                                              found->expr.as<tir::VarNode>()) {
      if (found->expr->dtype != *dtypes[i]) {
        p_.Fail(values[i], "'" + std::string(name) + "' is already a symbolic variable of type " +
                               found->expr->dtype.ToString());
      }
      continue;
    }
    p_.Bind(name, Value::Expr(tir::MakeVar(std::string(name), *dtypes[i], p_.SpanOf(names[i]))));
  }
  return true;
}

void RelaxParser::ParseAssign(Node assign) {
  Node left = p_.Field(assign, p_.F().left);
  Node right = p_.Field(assign, p_.F().right);
  Node ann_node = p_.Field(assign, p_.F().type);
  if (IsNull(right)) p_.Fail(assign, "a Relax binding needs a value");
  if (p_.Kind(right) == K::kAssignment) {
    p_.Fail(assign, "chained assignments like 'a = b = c' are not supported");
  }
  // `n = T.int64()` (or `m, n = T.int64(), T.int64()`) declares symbolic vars (or names ones
  // the signature already made).
  if (DeclareSymbolicVars(left, right)) return;
  if (IsTypeVarAssignment(p_, assign)) {
    Value v;
    v.kind = VK::kTypeVar;
    p_.Bind(p_.Text(left), v);
    return;
  }
  // `s = I.meta_var(value)`: a Python name for the value, no binding (TVM's meta_var).
  if (p_.Kind(left) == K::kIdentifier && p_.Kind(right) == K::kCall && IsNull(ann_node)) {
    std::string_view fn = p_.Text(p_.Field(right, p_.F().function));
    if (fn == "I.meta_var" || fn == "ir.meta_var") {
      p_.Bind(p_.Text(left), Eval(right));
      return;
    }
  }
  // `cls = Module`: an alias of the module class.
  if (p_.Kind(left) == K::kIdentifier && p_.Kind(right) == K::kIdentifier) {
    const Value* v = p_.Lookup(p_.Text(right));
    if (v && v->kind == VK::kClass) {
      p_.Bind(p_.Text(left), *v);
      return;
    }
  }
  Type ann;
  if (!IsNull(ann_node)) ann = EvalType(Unwrap(p_, ann_node));
  Value value = Eval(right);
  if (p_.Kind(left) == K::kPatternList || p_.Kind(left) == K::kTuplePattern) {
    if (ann.defined()) p_.Fail(ann_node, "a tuple unpacking cannot be annotated");
    relax::Var tuple = Emit("lv", ToExpr(value, right), Type(), right, Node{});
    auto targets = p_.cst_->Children(left);
    auto* tt = tuple->struct_info.as<ir::TupleTypeNode>();
    if (!tt) p_.Fail(right, "cannot unpack a value of type " + TypeText(tuple->struct_info));
    if (tt->fields.size() != targets.size()) {
      p_.Fail(left, "cannot unpack a tuple of " + std::to_string(tt->fields.size()) +
                        " fields into " + std::to_string(targets.size()) + " names");
    }
    for (size_t i = 0; i < targets.size(); ++i) {
      if (p_.Kind(targets[i]) != K::kIdentifier) p_.Fail(targets[i], "expected a name");
      relax::Var item = Emit(std::string(p_.Text(targets[i])), MakeTupleGetItem(tuple, int64_t(i)),
                      Type(), targets[i], Node{});
      p_.Bind(p_.Text(targets[i]), Value::Of(VK::kObject, item));
    }
    return;
  }
  if (p_.Kind(left) != K::kIdentifier) p_.Fail(left, "a Relax binding needs a plain name");
  std::string name(p_.Text(left));
  if (value.kind == VK::kMethod && value.s == "R.match_cast") {
    relax::Var var = EmitMatchCast(name, ToExpr(value.items.at(0), right),
                            Downcast<ir::TypeNode>(value.obj), ann, right);
    p_.Bind(p_.Text(left), Value::Of(VK::kObject, var));
    return;
  }
  Expr expr;
  if (value.is_number() && !ann.as<ir::PrimTypeNode>()) {
    // A Python number is a tensor constant (R.const), unless annotated as a prim value.
    Value c = value;
    Args args;
    args.call = right;
    args.pos.push_back(right);
    expr = ToExpr(CallRelax("R.const", args), right);
  } else if (value.is_number()) {
    DataType dt = ann.as<ir::PrimTypeNode>()->dtype;
    expr = MakePrimValue(p_.ToPrimAs(value, dt, right), p_.SpanOf(right));
  } else {
    expr = ToExpr(value, right);
  }
  relax::Var var = Emit(name, expr, ann, right, ann_node);
  p_.Bind(p_.Text(left), Value::Of(VK::kObject, var));
  if (in_dataflow_) block_vars_.insert(var.get());
}

namespace {

// Whether `sub` may fit `base` (TVM's TypeBaseCheck short of kFailL0): what only a run-time
// check or a proof about symbolic dims could settle is accepted, as TVM's parser accepts an
// annotation; a different kind, dtype, rank, constant dim or device is not.
bool MayBeBaseOf(const Type& base, const Type& sub) {
  if (IsBaseOf(base, sub)) return true;
  if (!base.defined() || !sub.defined()) return false;
  if (sub.as<ObjectTypeNode>()) return true;
  auto dims_may_match = [](const std::vector<ir::PrimExpr>& a, const std::vector<ir::PrimExpr>& b) {
    if (a.size() != b.size()) return false;
    for (size_t i = 0; i < a.size(); ++i) {
      auto* x = a[i].as<tir::IntImmNode>();
      auto* y = b[i].as<tir::IntImmNode>();
      if (x && y && x->value != y->value) return false;
    }
    return true;
  };
  if (auto* b = base.as<TensorTypeNode>()) {
    auto* t = sub.as<TensorTypeNode>();
    if (!t) return false;
    if (!b->IsUnknownDtype() && !t->IsUnknownDtype() && b->dtype != t->dtype) return false;
    if (!b->IsUnknownNdim() && !t->IsUnknownNdim() && b->ndim != t->ndim) return false;
    if (b->vdevice.defined() && t->vdevice.defined() && !ir::StructuralEqual(b->vdevice, t->vdevice)) {
      return false;
    }
    return !b->shape || !t->shape || dims_may_match(*b->shape, *t->shape);
  }
  if (auto* b = base.as<ShapeTypeNode>()) {
    auto* t = sub.as<ShapeTypeNode>();
    if (!t) return false;
    if (b->ndim != kUnknownNDim && t->ndim != kUnknownNDim && b->ndim != t->ndim) return false;
    return !b->values || !t->values || dims_may_match(*b->values, *t->values);
  }
  if (auto* b = base.as<ir::PrimTypeNode>()) {
    auto* t = sub.as<ir::PrimTypeNode>();
    return t && (b->dtype.is_void() || t->dtype.is_void() || b->dtype == t->dtype);
  }
  if (auto* b = base.as<ir::TupleTypeNode>()) {
    auto* t = sub.as<ir::TupleTypeNode>();
    if (!t || t->fields.size() != b->fields.size()) return false;
    for (size_t i = 0; i < b->fields.size(); ++i) {
      if (!MayBeBaseOf(b->fields[i], t->fields[i])) return false;
    }
    return true;
  }
  return false;
}

}  // namespace

relax::Var RelaxParser::Emit(const std::string& name, Expr value, const Type& ann, Node n,
                      Node ann_node) {
  value = Normalize(value, n);
  Type type = GetType(value);
  if (ann.defined()) {
    if (type.defined() && !MayBeBaseOf(ann, type)) {
      p_.Fail(ann_node, "the annotation " + TypeText(ann) + " does not fit the value's type " +
                            TypeText(type));
    }
    type = ann;
  }
  Span span = p_.SpanOf(n);
  bool dataflow_var = in_dataflow_ && !dataflow_outputs_.count(name);
  relax::Var var = dataflow_var ? relax::Var(MakeDataflowVar(name, type, span)) : MakeVar(name, type, span);
  if (auto* call = value.as<relax::CallNode>(); call && in_dataflow_) {
    bool pure = true;
    if (auto* op = call->op.as<ir::OpNode>()) {
      if (const OpInfo* info = InfoOf(ir::GetRef(op))) pure = info->pure;
    } else if (auto* gv = call->op.as<ir::GlobalVarNode>()) {
      TypeOfGlobal(ir::GetRef(gv), &pure);
    } else if (auto* ft = GetType(call->op).as<FuncTypeNode>()) {
      pure = ft->purity;
    } else if (auto* pt = GetType(call->op).as<PackedFuncTypeNode>()) {
      pure = pt->purity;
    }
    if (!pure) {
      Node callee = p_.Kind(n) == K::kCall ? p_.Field(n, p_.F().function) : n;
      p_.Fail(callee, "a call to the impure function '" + std::string(p_.Text(callee)) +
                          "' is not allowed inside R.dataflow(); move it out of the block");
    }
  }
  PushBinding(MakeVarBinding(var, value, span));
  return var;
}

relax::Var RelaxParser::EmitMatchCast(const std::string& name, Expr value, const Type& type,
                               const Type& ann, Node n) {
  value = Normalize(value, n);
  if (ann.defined() && !ir::StructuralEqual(ann, type, false)) {
    p_.Fail(n, "the annotation " + TypeText(ann) + " differs from the R.match_cast type " +
                   TypeText(type));
  }
  Span span = p_.SpanOf(n);
  bool dataflow_var = in_dataflow_ && !dataflow_outputs_.count(name);
  relax::Var var = dataflow_var ? relax::Var(MakeDataflowVar(name, type, span)) : MakeVar(name, type, span);
  PushBinding(MakeMatchCast(var, value, type, span));
  if (in_dataflow_) block_vars_.insert(var.get());
  return var;
}

void RelaxParser::PushBinding(Binding binding) {
  if (in_dataflow_) {
    dataflow_bindings_.push_back(std::move(binding));
  } else {
    seqs_.back().bindings.push_back(std::move(binding));
  }
}

SeqExpr RelaxParser::FinishSeq(Expr body, Span span) {
  SeqFrame& frame = seqs_.back();
  if (!frame.bindings.empty()) {
    frame.blocks.push_back(MakeBindingBlock(std::move(frame.bindings)));
    frame.bindings.clear();
  }
  SeqExpr seq = MakeSeqExpr(std::move(frame.blocks), body, span);
  frame.blocks.clear();
  return Downcast<SeqExprNode>(WithType(seq, GetType(body)));
}

void RelaxParser::ParseDataflow(Node s) {
  auto items = p_.cst_->Children(s);
  Node clause = items.empty() ? Node{} : items[0];
  auto with_items = IsNull(clause) ? std::vector<Node>() : p_.cst_->Children(clause);
  if (with_items.size() != 1) p_.Fail(s, "a Relax `with` takes exactly one item");
  Node item = with_items[0];
  Node value = p_.Kind(item) == K::kWithItem ? p_.Field(item, p_.F().value) : Node{};
  if (IsNull(value)) p_.Fail(s, "expected `with R.dataflow():`");
  if (p_.Kind(value) == K::kAsPattern) {
    Node alias = p_.Field(value, p_.F().alias);
    p_.Fail(IsNull(alias) ? value : alias, "a Relax `with` takes no `as` target");
  }
  if (p_.Text(value) != "R.dataflow()") p_.Fail(value, "expected `with R.dataflow():`");
  if (in_dataflow_) p_.Fail(value, "R.dataflow() blocks cannot be nested");
  std::vector<Node> body = p_.cst_->Children(p_.Field(s, p_.F().body));
  // R.output(...) must come last; the names it lists are bound to plain Vars.
  Node output{};
  if (!body.empty() && p_.Kind(body.back()) == K::kExpressionStatement) {
    auto kids = p_.cst_->Children(body.back());
    if (kids.size() == 1 && p_.Kind(kids[0]) == K::kCall &&
        p_.Text(p_.Field(kids[0], p_.F().function)) == "R.output") {
      output = kids[0];
      body.pop_back();
    }
  }
  if (IsNull(output)) {
    p_.Fail(p_.Field(s, p_.F().body), "an R.dataflow() block must end with R.output(...)");
  }
  std::vector<Node> outputs = p_.cst_->Children(p_.Field(output, p_.F().arguments));
  dataflow_outputs_.clear();
  for (Node o : outputs) {
    if (p_.Kind(o) != K::kIdentifier) p_.Fail(o, "R.output takes variable names");
    dataflow_outputs_.insert(std::string(p_.Text(o)));
  }
  SeqFrame& frame = seqs_.back();
  if (!frame.bindings.empty()) {
    frame.blocks.push_back(MakeBindingBlock(std::move(frame.bindings)));
    frame.bindings.clear();
  }
  in_dataflow_ = true;
  block_vars_.clear();
  dataflow_bindings_.clear();
  p_.PushScope();
  Expr unused;
  try {
    ParseStmts(body, false, &unused);
    for (Node o : outputs) {
      const Value* v = p_.Lookup(p_.Text(o));
      if (!v || v->kind != VK::kObject || !block_vars_.count(v->obj.get())) {
        p_.Error(o, "R.output: '" + std::string(p_.Text(o)) +
                        "' is not bound in this R.dataflow() block");
      }
    }
  } catch (...) {
    in_dataflow_ = false;
    p_.PopScope();
    throw;
  }
  // Outputs stay visible after the block; its DataflowVars do not.
  std::vector<std::pair<std::string_view, Value>> keep;
  for (const auto& [name, v] : p_.scopes_.back()) {
    if (v.kind == VK::kObject && v.obj.as<DataflowVarNode>()) {
      closed_dataflow_vars_.insert(std::string(name));
    } else {
      keep.emplace_back(name, v);
    }
  }
  p_.PopScope();
  for (auto& [name, v] : keep) p_.Bind(name, v);
  in_dataflow_ = false;
  if (!unused.defined()) {
    seqs_.back().blocks.push_back(MakeDataflowBlock(std::move(dataflow_bindings_), p_.SpanOf(s)));
  }
  dataflow_bindings_.clear();
}

// The last statement of a branch, `y = e`, names the If's result; returns the branch's SeqExpr.
Expr RelaxParser::ParseBranch(Node block, std::string* name, Node* last) {
  std::vector<Node> stmts = p_.cst_->Children(block);
  if (stmts.empty()) p_.Fail(block, "an if branch cannot be empty");
  *last = stmts.back();
  auto kids = p_.cst_->Children(*last);
  Node assign = kids.size() == 1 ? kids[0] : Node{};
  if (p_.Kind(*last) != K::kExpressionStatement || IsNull(assign) ||
      p_.Kind(assign) != K::kAssignment ||
      p_.Kind(p_.Field(assign, p_.F().left)) != K::kIdentifier) {
    p_.Fail(*last, "the last statement of a Relax if branch must assign its result to a name");
  }
  *name = std::string(p_.Text(p_.Field(assign, p_.F().left)));
  if (IsNull(p_.Field(assign, p_.F().right))) p_.Fail(assign, "an if branch result needs a value");
  seqs_.emplace_back();
  p_.PushScope();
  Expr body;
  try {
    stmts.pop_back();
    ParseStmts(stmts, false, &body);
    Node right = p_.Field(assign, p_.F().right);
    // A leaf or tuple value is the branch's result itself, anything else is bound to `name`
    // first (TVM's builder: the normalizer would pull a call out into a binding anyway).
    Expr value = ToExpr(Eval(right), right);
    bool leaf_or_tuple = value.as<relax::VarNode>() || value.as<TupleNode>() || value.as<ConstantNode>() ||
                         value.as<ShapeExprNode>() || value.as<PrimValueNode>() ||
                         value.as<relax::StringImmNode>() || value.as<DataTypeImmNode>() ||
                         value.as<ir::GlobalVarNode>() || value.as<ExternFuncNode>();
    if (!leaf_or_tuple) value = Emit(*name, value, Type(), right, Node{});
    body = FinishSeq(Normalize(value, right), p_.SpanOf(block));
  } catch (...) {
    p_.PopScope();
    seqs_.pop_back();
    throw;
  }
  p_.PopScope();
  seqs_.pop_back();
  return body;
}

void RelaxParser::ParseIf(Node s, const std::vector<Node>& stmts, size_t index) {
  (void)stmts;
  (void)index;
  Node cond_node = p_.Field(s, p_.F().condition);
  Node alt = p_.Field(s, p_.F().alternative);
  if (IsNull(cond_node) || IsNull(p_.Field(s, p_.F().consequence))) p_.Fail(s, "invalid if statement");
  if (IsNull(alt) || p_.Kind(alt) != K::kElseClause) {
    p_.Fail(s, IsNull(alt) ? "a Relax if needs an else branch" : "elif is not supported in Relax; nest an if in the else branch");
  }
  Expr cond = Normalize(ToExpr(Eval(cond_node), cond_node), cond_node);
  Type ct = GetType(cond);
  auto* tt = ct.as<TensorTypeNode>();
  bool scalar = (tt && tt->ndim == 0) || ct.as<ir::PrimTypeNode>();
  if (!scalar) {
    p_.Fail(cond_node, "the condition of a Relax if must be a scalar (a 0-d tensor or a prim "
                       "value), got " + TypeText(ct));
  }
  std::string then_name, else_name;
  Node then_last{}, else_last{};
  Expr then_branch = ParseBranch(p_.Field(s, p_.F().consequence), &then_name, &then_last);
  Expr else_branch = ParseBranch(p_.Field(alt, p_.F().body), &else_name, &else_last);
  if (then_name != else_name) {
    p_.Fail(else_last, "both branches of a Relax if must assign the same name ('" + then_name +
                           "', not '" + else_name + "')");
  }
  // The annotation of the branches' last statements is the If's type.
  Node then_assign = p_.cst_->Children(then_last)[0];
  Node ann_node = p_.Field(then_assign, p_.F().type);
  Type ann;
  if (!IsNull(ann_node)) ann = EvalType(Unwrap(p_, ann_node));
  Expr value = MakeIf(cond, then_branch, else_branch, p_.SpanOf(s));
  Type joined = TypeLCA(GetType(then_branch), GetType(else_branch));
  value = WithType(value, joined);
  relax::Var var = Emit(then_name, value, ann, s, ann_node);
  Node name_node = p_.Field(then_assign, p_.F().left);
  p_.Bind(p_.Text(name_node), Value::Of(VK::kObject, var));
  if (in_dataflow_) block_vars_.insert(var.get());
}

void RelaxParser::ParseNestedFunction(Node def, Node decorator) {
  Node name_node = p_.Field(def, p_.F().name);
  std::string name(p_.Text(name_node));
  std::vector<SeqFrame> saved_seqs;
  bool saved_df = in_dataflow_;
  in_dataflow_ = false;
  Function func = ParseFunction(def, decorator, name, false);
  in_dataflow_ = saved_df;
  if (!func.defined()) throw ParseAbort{};
  relax::Var var = MakeVar(name, func->struct_info, p_.SpanOf(name_node));
  PushBinding(MakeVarBinding(var, func, p_.SpanOf(def)));
  p_.Bind(p_.Text(name_node), Value::Of(VK::kObject, var));
}

}  // namespace wb::script::detail
