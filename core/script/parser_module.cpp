// Module level: `@I.ir_module` classes, top-level `@T.prim_func` functions, decorators,
// signatures (buffer and scalar parameters, symbolic shape variables) and the implicit root block.
#include "script/parser_core.h"
#include "script/relax_parser.h"
#include "tir/op.h"

namespace wb::script::detail {

using namespace wb::tir;

namespace {

struct PrimFuncFlags {
  bool ok = false;
  bool is_prim_func = false;
  bool is_class_decorator = false;
  bool private_ = false;
  bool s_tir = false;
  bool persistent = false;
};

}  // namespace

void Parser::ParseTopLevel(Node root) {
  bool saw_class = false, saw_func = false;
  for (Node c : cst_->Children(root)) {
    if (c->has_error && Kind(c) != K::kDecoratedDefinition) continue;
    try {
      switch (Kind(c)) {
        case K::kImportStatement:
        case K::kImportFromStatement:
        case K::kFutureImportStatement:
        case K::kComment: break;
        case K::kDecoratedDefinition: {
          Node def = Field(c, F().definition);
          Node decorator{};
          for (Node d : cst_->Children(c)) {
            if (Kind(d) == K::kDecorator) decorator = d;
          }
          if (Kind(def) == K::kClassDefinition) {
            if (saw_class) Fail(Field(def, F().name), "only one @I.ir_module class is allowed per file");
            if (saw_func) Fail(Field(def, F().name), "a file holds either an @I.ir_module class or top-level functions, not both");
            auto kids = cst_->Children(decorator);
            std::string_view text = kids.empty() ? std::string_view() : Text(kids[0]);
            if (text.rfind("I.ir_module", 0) != 0 && text.rfind("ir.ir_module", 0) != 0 &&
                text.rfind("tvm.script.ir_module", 0) != 0) {
              Fail(decorator, "expected @I.ir_module on a class");
            }
            saw_class = true;
            is_module_ = true;
            // @I.ir_module(check_well_formed=False): no function of the module is checked.
            if (!kids.empty() && Kind(kids[0]) == K::kCall) {
              for (Node a : cst_->Children(Field(kids[0], F().arguments))) {
                if (Kind(a) != K::kKeywordArgument || Text(Field(a, F().name)) != "check_well_formed") continue;
                Value v = Eval(Field(a, F().value));
                if (v.kind != VK::kBool) Fail(Field(a, F().value), "check_well_formed must be True or False");
                module_unchecked_ = !v.i;
              }
            }
            ParseClass(def);
          } else if (Kind(def) == K::kFunctionDefinition) {
            if (saw_class) Fail(Field(def, F().name), "a file holds either an @I.ir_module class or top-level functions, not both");
            saw_func = true;
            ParseFunction(def, decorator);
          }
          break;
        }
        case K::kFunctionDefinition:
          Fail(Field(c, F().name), "expected @T.prim_func before the function");
        case K::kClassDefinition: Fail(Field(c, F().name), "expected @I.ir_module before the class");
        case K::kExpressionStatement: {
          auto kids = cst_->Children(c);
          if (kids.size() == 1 && Kind(kids[0]) == K::kString) break;
          if (kids.size() == 1 && Kind(kids[0]) == K::kAssignment) {
            Node left = Field(kids[0], F().left), right = Field(kids[0], F().right);
            if (Kind(left) == K::kIdentifier && !IsNull(right) && Kind(right) == K::kCall &&
                Text(Field(right, F().function)) == "TypeVar") {
              Value v;
              v.kind = VK::kTypeVar;
              Bind(Text(left), v);
              break;
            }
            // Relax hook: the printed metadata header of non-scalar constants.
            if (ParseRelaxMetadata(*this, left, right)) break;
            if (Kind(left) == K::kIdentifier && !IsNull(right)) {
              Bind(Text(left), Eval(right));
              break;
            }
          }
          Fail(c, "unsupported statement at module level");
        }
        default: Fail(c, "unsupported statement at module level");
      }
    } catch (const ParseAbort&) {
    }
  }
  if (!saw_class && !saw_func && diags_.empty()) {
    diags_.Error("no @T.prim_func or @I.ir_module found", Span(file_, 0, 0));
  }
}

void Parser::ParseClass(Node cls) {
  class_name_ = std::string(Text(Field(cls, F().name)));
  Bind(Text(Field(cls, F().name)), Value::Named(VK::kClass, class_name_));
  Node body = Field(cls, F().body);
  std::vector<Node> members = cst_->Children(body);
  // Declare every function first so that `Module.f` works before f's definition.
  std::vector<std::pair<Node, Node>> funcs;  // (def, decorator)
  for (Node m : members) {
    if (Kind(m) == K::kExpressionStatement && cst_->NamedChildCount(m) == 1) {
      Node a = cst_->NamedChild(m, 0);
      // Global infos come before any function is parsed, wherever they stand in the class:
      // function signatures and bodies name their vdevices.
      if (Kind(a) == K::kCall && Text(Field(a, F().function)) == "I.module_global_infos") {
        try {
          ParseModuleGlobalInfos(a);
        } catch (const ParseAbort&) {
        }
        continue;
      }
      // Relax hook: `name = R.ExternFunc(...)` members are module functions too.
      Node right = Kind(a) == K::kAssignment ? Field(a, F().right) : Node{};
      if (!IsNull(right) && Kind(right) == K::kCall &&
          Text(Field(right, F().function)) == "R.ExternFunc" &&
          Kind(Field(a, F().left)) == K::kIdentifier) {
        AddGlobal(ir::MakeGlobalVar(std::string(Text(Field(a, F().left))),
                                    SpanOf(Field(a, F().left))));
      }
    }
    if (Kind(m) != K::kDecoratedDefinition) continue;
    Node def = Field(m, F().definition);
    if (Kind(def) != K::kFunctionDefinition) continue;
    std::string name(Text(Field(def, F().name)));
    if (FindGlobal(name)) {
      Error(Field(def, F().name), "function '" + name + "' is defined twice in the module");
      continue;
    }
    AddGlobal(ir::MakeGlobalVar(name, SpanOf(Field(def, F().name))));
    if (Node ret = Field(def, F().return_type); !IsNull(ret)) gvar_returns_[name] = ret;
    gvar_definitions_[name] = m;
  }
  std::vector<ir::GlobalVar> declared = gvars_;
  for (Node m : members) {
    try {
      switch (Kind(m)) {
        case K::kDecoratedDefinition: {
          Node def = Field(m, F().definition);
          Node decorator{};
          for (Node d : cst_->Children(m)) {
            if (Kind(d) == K::kDecorator) decorator = d;
          }
          if (Kind(def) != K::kFunctionDefinition) Fail(def, "only functions are allowed in an @I.ir_module class");
          ParseFunction(def, decorator);
          break;
        }
        case K::kFunctionDefinition: Fail(Field(m, F().name), "expected @T.prim_func before the function");
        case K::kPassStatement:
        case K::kError:  // reported as a syntax error
        case K::kComment: break;
        case K::kExpressionStatement: {
          auto kids = cst_->Children(m);
          if (kids.size() == 1 && Kind(kids[0]) == K::kString) break;
          if (kids.size() == 1 && Kind(kids[0]) == K::kCall &&
              Text(Field(kids[0], F().function)) == "I.module_attrs") {
            Node args = Field(kids[0], F().arguments);
            auto a = cst_->Children(args);
            if (a.size() != 1) Fail(kids[0], "I.module_attrs expects a dict");
            ObjectRef map = ToAttrValue(Eval(a[0]), a[0]);
            auto* mp = map.as<ir::MapObj>();
            if (!mp) Fail(a[0], "I.module_attrs expects a dict");
            for (const auto& [k, v] : mp->items) module_attrs_[k] = v;
            break;
          }
          if (kids.size() == 1 && Kind(kids[0]) == K::kCall &&
              Text(Field(kids[0], F().function)) == "I.module_global_infos") {
            break;  // parsed before the functions
          }
          if (kids.size() == 1 && Kind(kids[0]) == K::kAssignment) {
            // `n = TypeVar("n")` before a decorator: an int64 shape variable.
            Node left = Field(kids[0], F().left), right = Field(kids[0], F().right);
            // Relax hook: `name = R.ExternFunc("symbol")` members.
            if (ParseRelaxClassAssignment(*this, left, right)) break;
            if (Kind(left) == K::kIdentifier && !IsNull(right) && Kind(right) == K::kCall &&
                Text(Field(right, F().function)) == "TypeVar") {
              Value v;
              v.kind = VK::kTypeVar;
              Bind(Text(left), v);
              break;
            }
          }
          Fail(m, "unsupported statement in an @I.ir_module class");
        }
        default: Fail(m, "unsupported statement in an @I.ir_module class");
      }
    } catch (const ParseAbort&) {
    }
  }
}

void Parser::ParseFunction(Node def, Node decorator) {
  Node name_node = Field(def, F().name);
  std::string name(Text(name_node));
  PrimFuncFlags flags;
  {
    auto kids = IsNull(decorator) ? std::vector<Node>() : cst_->Children(decorator);
    if (kids.empty()) Fail(name_node, "expected @T.prim_func before the function");
    Node d = kids[0];
    Node fn = Kind(d) == K::kCall ? Field(d, F().function) : d;
    std::string_view text = Text(fn);
    if (text == "T.macro" || text == "T.inline") Fail(d, std::string(text) + " is not supported yet");
    if (IsRelaxDecorator(text)) {
      // Relax hook: `@R.function` definitions are parsed by relax_parser.cpp.
      ir::GlobalVar gv;
      for (const auto& g : gvars_) {
        if (g->name_hint == name) gv = g;
      }
      if (!gv.defined()) {
        gv = ir::MakeGlobalVar(name, SpanOf(name_node));
        if (!is_module_) gvars_.push_back(gv);
      }
      ParseRelaxFunction(*this, def, decorator, gv);
      return;
    }
    if (text.rfind("R.", 0) == 0) Fail(d, "expected @R.function, got @" + std::string(text));
    if (text != "T.prim_func" && text != "tir.prim_func" && text != "tirx.prim_func") {
      Fail(d, "expected @T.prim_func, got @" + std::string(text));
    }
    if (Kind(d) == K::kCall) {
      for (Node a : cst_->Children(Field(d, F().arguments))) {
        if (Kind(a) != K::kKeywordArgument) Fail(a, "T.prim_func takes keyword flags only");
        std::string_view key = Text(Field(a, F().name));
        Node vn = Field(a, F().value);
        Value v = Eval(vn);
        if (v.kind != VK::kBool) Fail(vn, "T.prim_func flags must be True or False");
        if (key == "private") flags.private_ = v.i;
        else if (key == "s_tir") flags.s_tir = v.i;
        else if (key == "persistent") flags.persistent = v.i;
        else if (key == "check_well_formed") {
          if (!v.i) unchecked_.push_back(name);
        }
        else Fail(a, "unknown T.prim_func flag '" + std::string(key) + "'");
      }
    }
  }
  ir::GlobalVar gv;
  if (const ir::GlobalVar* declared = FindGlobal(name)) gv = *declared;
  if (!gv.defined()) {
    gv = ir::MakeGlobalVar(name, SpanOf(name_node));
    if (!is_module_) AddGlobal(gv);
  }
  size_t errors_before = diags_.ErrorCount();
  FuncCtx ctx;
  ctx.name = name;
  ctx.s_tir = flags.s_tir;
  func_ = &ctx;
  PushScope();
  func_scope_ = scopes_.size() - 1;
  Stmt body;
  ir::Type ret_type;
  bool aborted = false;
  try {
    // PEP 695 type parameters `def f[n, m: int](...)`: int64 shape variables.
    Node tparams = Field(def, F().type_parameters);
    if (!IsNull(tparams)) {
      for (Node t : cst_->Children(tparams)) {
        std::string_view text = Text(t);
        text = text.substr(0, text.find(':'));
        while (!text.empty() && (text.back() == ' ' || text.back() == '\t')) text.remove_suffix(1);
        if (text.empty()) continue;
        Value v;
        v.kind = VK::kTypeVar;
        Bind(text, v);
      }
    }
    DeclaredShapeVarDTypes(Field(def, F().body));
    ParseParams(Field(def, F().parameters), ctx);
    Node ret = Field(def, F().return_type);
    if (!IsNull(ret)) {
      Node rn = Kind(ret) == K::kType && ret->named_count > 0 ? cst_->NamedChild(ret, 0) : ret;
      Value rv = Eval(rn);
      if (rv.kind == VK::kDType) {
        ret_type = rv.dtype.is_handle() ? ir::Type(ir::MakePointerType(ir::Type(), "global"))
                                        : ir::Type(ir::MakePrimType(rv.dtype));
      } else if (rv.kind == VK::kType) {
        ret_type = Downcast<ir::TypeNode>(rv.obj);
      } else if (rv.kind != VK::kNone) {
        Fail(rn, "expected a return type such as T.int32");
      }
    }
    std::vector<Node> stmts = cst_->Children(Field(def, F().body));
    body = ParseStmtsFrom(stmts, 0);
  } catch (const ParseAbort&) {
    aborted = true;
  } catch (const std::exception& e) {
    Error(def, std::string("internal error: ") + e.what());
    aborted = true;
  }
  PopScope();
  func_ = nullptr;
  blocks_.clear();
  loop_doms_.clear();
  scalar_param_dtypes_.clear();
  if (aborted) return;
  // An error inside the body (the failing statement was left out and parsing went on) keeps
  // the function out of the module, but what was built serves the editor (ParseResult::recovered).
  const bool failed = diags_.ErrorCount() > errors_before || def->has_error;
  auto finish = [&]() -> PrimFunc {
    bool explicit_root = false;
    if (auto* r = body.as<SBlockRealizeNode>()) explicit_root = r->block->name_hint == "root";
    if ((ctx.has_block && !explicit_root) || !ctx.root_allocs.empty()) {
      SBlock root = MakeSBlock({}, {}, {}, "root", body, Stmt(), ctx.root_allocs, {}, {}, SpanOf(def));
      body = MakeSBlockRealize({}, MakeIntImm(DataType::Bool(), 1), root, SpanOf(def));
    }
    ir::AttrMap attrs = ctx.attrs;
    if (!flags.private_ && !attrs.count("global_symbol")) attrs["global_symbol"] = ir::MakeString(name);
    if (flags.s_tir) attrs["s_tir"] = ir::MakeBool(true);
    if (flags.persistent) attrs["tirx.persistent_kernel"] = ir::MakeBool(true);
    return MakePrimFunc(ctx.params, ctx.buffer_map, body, ret_type, attrs, SpanOf(def));
  };
  if (failed) {
    try {
      recovered_.push_back({gv, finish()});
    } catch (const std::exception&) {
      // Too broken to build even partially: nothing to recover (its errors are reported).
    }
    return;
  }
  PrimFunc func = finish();
  // Keep the module's function order: successful functions in source order.
  // gvars_ holds every declared function; the module keeps only the parsed ones (see Run).
  funcs_.push_back(func);
  parsed_gvars_.push_back(gv);
}

void Parser::DeclaredShapeVarDTypes(Node body) {
  // `n = T.int16()` (or `n, m = T.int16(), T.int8()`) at the top of the body declares the dtype
  // of a shape variable the signature quotes ("n"): the signature is read first, and the
  // declaration then keeps the same variable.
  auto declare = [&](Node name, Node value) {
    if (Kind(name) != K::kIdentifier || Kind(value) != K::kCall) return;
    Node args = Field(value, F().arguments);
    if (!IsNull(args) && args->named_count != 0) return;
    std::string_view callee = Text(Field(value, F().function));
    if (callee.rfind("T.", 0) != 0) return;
    auto t = DTypeFromName(callee.substr(2));
    if (!t || t->is_handle() || !t->is_integer()) return;
    scalar_param_dtypes_.emplace(Text(name), *t);
  };
  for (Node stmt : cst_->Children(body)) {
    if (Kind(stmt) != K::kExpressionStatement || stmt->named_count != 1) continue;
    Node e = cst_->NamedChild(stmt, 0);
    if (Kind(e) != K::kAssignment || !IsNull(Field(e, F().type))) continue;
    Node left = Field(e, F().left), right = Field(e, F().right);
    if (IsNull(left) || IsNull(right)) continue;
    if (Kind(left) == K::kIdentifier) {
      declare(left, right);
    } else if ((Kind(left) == K::kPatternList || Kind(left) == K::kTuplePattern) &&
               (Kind(right) == K::kExpressionList || Kind(right) == K::kTuple)) {
      std::vector<Node> names = cst_->Children(left), values = cst_->Children(right);
      if (names.size() != values.size()) continue;
      for (size_t i = 0; i < names.size(); ++i) declare(names[i], values[i]);
    }
  }
}

void Parser::ParseParams(Node params, FuncCtx& ctx) {
  std::vector<Node> list = cst_->Children(params);
  // Scalar parameters give their dtype to same-named quoted shape variables.
  for (Node p : list) {
    if (Kind(p) != K::kTypedParameter) continue;
    Node type = Field(p, F().type);
    Node ann = Kind(type) == K::kType && type->named_count > 0 ? cst_->NamedChild(type, 0) : type;
    std::string_view text = Text(ann);
    if (text.rfind("T.", 0) == 0) {
      if (auto t = DTypeFromName(text.substr(2)); t && !t->is_handle()) {
        auto kids = cst_->Children(p);
        if (!kids.empty()) scalar_param_dtypes_[Text(kids[0])] = *t;
      }
    }
  }
  for (Node p : list) {
    if (Kind(p) == K::kIdentifier) {
      Fail(p, "parameter '" + std::string(Text(p)) + "' needs a type annotation, e.g. T.Buffer((16,), \"float32\")");
    }
    if (Kind(p) != K::kTypedParameter) Fail(p, "unsupported parameter form");
    auto kids = cst_->Children(p);
    Node name_node = kids.at(0);
    if (Kind(name_node) != K::kIdentifier) Fail(name_node, "unsupported parameter form");
    std::string_view name = Text(name_node);
    Node type = Field(p, F().type);
    Node ann = Kind(type) == K::kType && type->named_count > 0 ? cst_->NamedChild(type, 0) : type;
    in_signature_ = true;
    Value v;
    try {
      v = Eval(ann);
    } catch (...) {
      in_signature_ = false;
      throw;
    }
    in_signature_ = false;
    Span span = SpanOf(name_node);
    if (v.kind == VK::kBufferSpec) {
      const BufferSpec& spec = *v.bspec;
      if (spec.origin != BufferSpec::kDecl) Fail(ann, "expected a T.Buffer annotation");
      std::string scope = spec.options.scope.empty() ? "global" : spec.options.scope;
      Var param = MakePointerVar(std::string(name), spec.dtype, scope, span);
      Buffer buf = MakeBufferFromSpec(std::string(name), spec, name_node);
      ctx.params.push_back(param);
      ctx.buffer_map.push_back(buf);
      Bind(name, Value::Of(VK::kBuffer, buf));
      continue;
    }
    Var param;
    if (v.kind == VK::kDType && v.dtype.is_handle()) {
      param = MakeVar(std::string(name), ir::Type(ir::MakePointerType(ir::Type(), "global")), span);
    } else if (v.kind == VK::kDType && !v.dtype.is_void()) {
      auto& fscope = scopes_[func_scope_];
      auto it = fscope.find(name);
      if (it != fscope.end() && it->second.kind == VK::kExpr && it->second.expr.as<VarNode>() &&
          it->second.expr->dtype == v.dtype) {
        param = it->second.expr.as_ref<VarNode>();  // created earlier by a quoted shape entry
      } else {
        param = MakeVar(std::string(name), v.dtype, span);
      }
    } else if (v.kind == VK::kType && v.obj.as<ir::PointerTypeNode>()) {
      param = MakeVar(std::string(name), Downcast<ir::TypeNode>(v.obj), span);
    } else {
      Fail(ann, "expected a T.Buffer annotation");
    }
    ctx.params.push_back(param);
    ctx.buffer_map.push_back(Buffer());
    Bind(name, Value::Expr(param));
  }
}

Value Parser::ParseQuoted(Node string_node, DataType dtype) {
  Node content{};
  for (Node c : cst_->Children(string_node)) {
    if (Kind(c) == K::kStringContent) content = c;
  }
  if (IsNull(content)) Fail(string_node, "empty shape expression");
  std::string_view text = Text(content);
  Span where = SpanOf(content);
  Cst sub(file_, text, where.begin);
  if (!sub.ok()) Fail(string_node, "invalid shape expression");
  Node root = sub.root();
  auto stmts = sub.Children(root);
  if (root->has_error || stmts.size() != 1 || sub.Kind(stmts[0]) != K::kExpressionStatement ||
      stmts[0]->named_count != 1) {
    Fail(string_node, "invalid shape expression \"" + std::string(text) + "\"");
  }
  Node expr = sub.NamedChild(stmts[0], 0);
  Cst* saved = cst_;
  bool saved_quoted = quoted_;
  cst_ = &sub;
  quoted_ = true;
  Value v;
  try {
    v = Eval(expr);
  } catch (...) {
    cst_ = saved;
    quoted_ = saved_quoted;
    throw;
  }
  cst_ = saved;
  quoted_ = saved_quoted;
  return v;
}

}  // namespace wb::script::detail
