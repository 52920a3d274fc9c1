// Statements: sequences (with the flat and "rest of scope" forms), assignments, stores, loops,
// if/while, with-frames (T.sblock, T.init, T.launch_thread, T.attr), assert and the statement
// builtins (T.evaluate, T.func_attr, T.launch_thread, T.env_thread, T.attr).
#include "script/parser_core.h"
#include "tir/builtin.h"
#include "tir/op.h"

namespace wb::script::detail {

using namespace wb::tir;

namespace {

struct ScopeGuard {
  explicit ScopeGuard(Parser* p) : p(p) { p->PushScope(); }
  ~ScopeGuard() { p->PopScope(); }
  Parser* p;
};

struct NestGuard {
  explicit NestGuard(FuncCtx* f) : f(f) {
    if (f) ++f->top_level_depth;
  }
  ~NestGuard() {
    if (f) --f->top_level_depth;
  }
  FuncCtx* f;
};

Value StmtValue(Stmt s) {
  Value v;
  v.kind = VK::kFrame;
  v.obj = std::move(s);
  return v;
}

Stmt CallStmt(const char* op, std::vector<PrimExpr> args, DataType dtype, Span span) {
  return MakeEvaluate(MakeCall(dtype, FindOpByScriptName(op)->op, std::move(args), span), span);
}

}  // namespace

Stmt Parser::ParseBody(Node block) {
  ScopeGuard scope(this);
  NestGuard nest(func_);
  if (IsNull(block)) return MakeSeq({});
  if (Kind(block) != K::kBlock) {
    std::vector<Node> one{block};
    return ParseStmtsFrom(one, 0);
  }
  std::vector<Node> stmts = cst_->Children(block);
  return ParseStmtsFrom(stmts, 0);
}

Stmt Parser::ParseStmtsFrom(const std::vector<Node>& stmts, size_t start) {
  std::vector<Stmt> out;
  for (size_t i = start; i < stmts.size(); ++i) {
    Node s = stmts[i];
    if (s->has_error) continue;  // reported as a syntax error
    bool consumed = false;
    try {
      for (auto& st : ParseStmt(s, stmts, i, &consumed)) out.push_back(std::move(st));
    } catch (const ParseAbort&) {
    } catch (const std::exception& e) {
      Error(s, std::string("internal error: ") + e.what());
    }
    if (consumed) break;
  }
  return MakeSeq(std::move(out));
}

std::vector<Stmt> Parser::ParseStmt(Node s, const std::vector<Node>& stmts, size_t index,
                                    bool* consumed_rest) {
  DepthGuard guard(this, s);
  Span span = SpanOf(s);
  switch (Kind(s)) {
    case K::kExpressionStatement: {
      auto kids = cst_->Children(s);
      if (kids.empty()) return {};
      Node e = kids[0];
      if (kids.size() > 1) Fail(s, "unsupported statement");
      if (Kind(e) == K::kAssignment) return ParseAssignment(e, stmts, index, consumed_rest);
      if (Kind(e) == K::kAugmentedAssignment) return ParseAugAssign(e);
      if (Kind(e) == K::kString) return {};  // docstring
      return ParseExprStmt(e, stmts, index, consumed_rest);
    }
    case K::kForStatement: return {ParseFor(s)};
    case K::kWhileStatement: return {ParseWhile(s)};
    case K::kIfStatement: {
      std::vector<Node> alts;
      for (Node c : cst_->Children(s)) {
        if (Kind(c) == K::kElifClause || Kind(c) == K::kElseClause) alts.push_back(c);
      }
      return {ParseIf(Field(s, F().condition), Field(s, F().consequence), alts, 0)};
    }
    case K::kWithStatement: return {ParseWith(s)};
    case K::kAssertStatement: return {ParseAssert(s)};
    case K::kPassStatement:
    case K::kComment: return {};
    case K::kBreakStatement: return {CallStmt("break_loop", {}, DataType::Int(32), span)};
    case K::kContinueStatement: return {CallStmt("continue_loop", {}, DataType::Int(32), span)};
    case K::kReturnStatement: {
      auto kids = cst_->Children(s);
      if (kids.empty()) return {};
      PrimExpr v = EvalPrim(kids[0]);
      return {CallStmt("ret", {v}, v->dtype, span)};
    }
    case K::kFunctionDefinition:
    case K::kDecoratedDefinition:
      Fail(s, "nested functions (T.macro, T.inline) are not supported yet");
    default: break;
  }
  Fail(s, "unsupported statement in TensorIR: " + std::string((s->type ? s->type : KindName(s->kind))));
}

std::vector<Stmt> Parser::ParseExprStmt(Node expr, const std::vector<Node>& stmts,
                                        size_t index, bool* consumed_rest) {
  Value v = Eval(expr);
  Span span = SpanOf(expr);
  switch (v.kind) {
    case VK::kNone:
    case VK::kStr: return {};
    case VK::kExpr: return {MakeEvaluate(v.expr, span)};
    case VK::kInt:
    case VK::kBool: return {MakeEvaluate(ToPrim(v, expr), span)};
    case VK::kFrame: {
      if (!v.frame) return {Downcast<ir::Object>(v.obj).as_ref<tir::StmtNode>()};
      if (v.frame->kind == FrameSpec::kLaunch || v.frame->kind == FrameSpec::kAttr) {
        if (v.frame->kind == FrameSpec::kLaunch && !v.frame->var.defined()) {
          Fail(expr, "T.launch_thread with a tag needs a name: bx = T.launch_thread(\"blockIdx.x\", 8)");
        }
        *consumed_rest = true;
        Stmt body = ParseStmtsFrom(stmts, index + 1);
        return {WrapFrame(*v.frame, body, expr)};
      }
      if (v.frame->kind == FrameSpec::kLetFrame) {
        Fail(expr, "T.bind without var= needs a name: x = T.bind(e)");
      }
      Fail(expr, "this frame must be used in a with statement");
    }
    case VK::kBufferSpec: Fail(expr, "assign the buffer to a name: B = ...");
    default: break;
  }
  Fail(expr, std::string("statement has no effect (") + DescribeKind(v.kind) + ")");
}

Stmt Parser::WrapFrame(const FrameSpec& frame, Stmt body, Node n) {
  Span span = SpanOf(n);
  if (frame.kind == FrameSpec::kLaunch) {
    PrimExpr extent = cast(frame.var->dtype, frame.extent);
    IterVar iv = MakeIterVar(ir::MakeRange(make_const(frame.var->dtype, int64_t(0)), extent), frame.var,
                             IterVarType::kThreadIndex, frame.tag, span);
    std::string key = frame.tag.rfind("vthread", 0) == 0 ? "virtual_thread" : "thread_extent";
    return MakeAttrStmt(iv, key, extent, body, span);
  }
  for (auto it = frame.attrs.rbegin(); it != frame.attrs.rend(); ++it) {
    body = MakeAttrStmt(std::get<0>(*it), std::get<1>(*it), std::get<2>(*it), body, span);
  }
  return body;
}

Value Parser::StmtCall(std::string_view name, const Args& args) {
  Node n = args.call;
  Span span = SpanOf(n);
  if (name == "T.evaluate") {
    if (args.pos.size() != 1) Fail(n, "T.evaluate expects one value");
    return StmtValue(MakeEvaluate(EvalPrim(args.pos[0]), span));
  }
  if (name == "T.func_attr") {
    if (!func_ || args.pos.size() != 1) Fail(n, "T.func_attr expects a dict, inside a function");
    ObjectRef m = ToAttrValue(Eval(args.pos[0]), args.pos[0]);
    auto* map = m.as<ir::MapObj>();
    if (!map) Fail(args.pos[0], "T.func_attr expects a dict");
    for (const auto& [k, v] : map->items) func_->attrs[k] = v;
    return Value::None();
  }
  if (name == "T.env_thread") {
    if (args.pos.size() != 1) Fail(n, "T.env_thread expects a thread tag");
    Value v = Value::Of(VK::kType, ir::MakePrimType(DataType::Int(32)));
    v.s = ToStr(Eval(args.pos[0]), args.pos[0]);
    if (v.s.empty()) Fail(args.pos[0], "the thread tag must not be empty");
    return v;
  }
  if (name == "T.launch_thread") {
    if (args.pos.size() != 2) Fail(n, "T.launch_thread expects a thread tag (or env thread) and an extent");
    auto frame = std::make_shared<FrameSpec>();
    frame->kind = FrameSpec::kLaunch;
    Value t = Eval(args.pos[0]);
    if (t.kind == VK::kStr) {
      frame->tag = t.s;
    } else {
      PrimExpr e = ToPrim(t, args.pos[0]);
      Var var = e.as_ref<VarNode>();
      auto it = var.defined() ? env_tags_.find(var.get()) : env_tags_.end();
      if (it == env_tags_.end()) Fail(args.pos[0], "T.launch_thread expects a tag string or a T.env_thread variable");
      frame->var = var;
      frame->tag = it->second;
    }
    frame->extent = EvalPrim(args.pos[1]);
    Value v;
    v.kind = VK::kFrame;
    v.frame = frame;
    return v;
  }
  if (name == "T.attr") {
    auto frame = std::make_shared<FrameSpec>();
    frame->kind = FrameSpec::kAttr;
    auto value_of = [&](const Value& v, Node node) -> PrimExpr {
      if (v.kind == VK::kStr) return MakeStringImm(v.s, SpanOf(node));
      return ToPrim(v, node);
    };
    if (args.pos.size() == 1) {
      Value d = Eval(args.pos[0]);
      if (d.kind != VK::kDict) Fail(args.pos[0], "T.attr expects (node, key, value) or a dict");
      for (size_t i = 0; i + 1 < d.items.size(); i += 2) {
        frame->attrs.emplace_back(MakeIntImm(DataType::Int(32), 0), ToStr(d.items[i], args.pos[0]),
                                  value_of(d.items[i + 1], args.pos[0]));
      }
    } else if (args.pos.size() == 3) {
      Value node = Eval(args.pos[0]);
      ObjectRef obj;
      if (node.kind == VK::kBuffer || node.kind == VK::kObject || node.kind == VK::kGlobal) obj = node.obj;
      else if (node.kind == VK::kStr) obj = MakeStringImm(node.s);
      else obj = ToPrim(node, args.pos[0]);
      frame->attrs.emplace_back(obj, ToStr(Eval(args.pos[1]), args.pos[1]),
                                value_of(Eval(args.pos[2]), args.pos[2]));
    } else {
      Fail(n, "T.attr expects (node, key, value) or a dict");
    }
    Value v;
    v.kind = VK::kFrame;
    v.frame = frame;
    return v;
  }
  if (name == "T.bind") {
    // `T.bind(e, var=x)` binds a declared var; `x = T.bind(e)` binds a new one.
    if (args.pos.size() != 1) Fail(n, "T.bind expects a value (and optionally var=)");
    Node var_node = args.Kw("var");
    if (!IsNull(var_node)) {
      PrimExpr ve = EvalPrim(var_node);
      Var var = ve.as_ref<VarNode>();
      if (!var.defined()) Fail(var_node, "var= expects a variable declared with T.int32() etc.");
      PrimExpr value = var->dtype.is_handle() ? EvalPrim(args.pos[0]) : ToPrimAs(Eval(args.pos[0]), var->dtype, args.pos[0]);
      if (value->dtype != var->dtype && !var->dtype.is_handle()) value = cast(var->dtype, value);
      return StmtValue(MakeBind(var, value, span));
    }
    auto frame = std::make_shared<FrameSpec>();
    frame->kind = FrameSpec::kLetFrame;
    frame->extent = EvalPrim(args.pos[0]);
    Value v;
    v.kind = VK::kFrame;
    v.frame = frame;
    return v;
  }
  if (name == "T.device_entry") {
    if (!args.pos.empty() || !args.kw.empty()) Fail(n, "T.device_entry takes no arguments");
    auto frame = std::make_shared<FrameSpec>();
    frame->kind = FrameSpec::kAttr;
    frame->attrs.emplace_back(MakeIntImm(DataType::Int(32), 0), "tirx.device_entry",
                              MakeIntImm(DataType::Bool(), 1, span));
    Value v;
    v.kind = VK::kFrame;
    v.frame = frame;
    return v;
  }
  if (name == "T.local_scalar" || name == "T.shared_scalar" || name == "T.alloc_scalar") {
    Node dtype_node = !args.pos.empty() ? args.pos[0] : args.Kw("dtype");
    if (IsNull(dtype_node)) Fail(n, std::string(name) + " expects a dtype");
    auto spec = std::make_shared<BufferSpec>();
    spec->origin = BufferSpec::kAlloc;
    spec->scalar = true;
    spec->span = span;
    spec->dtype = ToDType(Eval(dtype_node), dtype_node);
    spec->shape = {make_const(DataType::Int(32), int64_t(1))};
    spec->options.scope = name == "T.shared_scalar" ? "shared" : "local";
    Node scope_node = args.pos.size() > 1 ? args.pos[1] : args.Kw("scope");
    if (name == "T.alloc_scalar" && !IsNull(scope_node)) spec->options.scope = ToStr(Eval(scope_node), scope_node);
    Value v;
    v.kind = VK::kBufferSpec;
    v.bspec = spec;
    return v;
  }
  if (name == "T.Assert") {
    if (args.pos.size() != 2) Fail(n, "T.Assert expects a condition and a message");
    PrimExpr c = ToPrimAs(Eval(args.pos[0]), DataType::Bool(), args.pos[0]);
    return StmtValue(MakeAssertStmt(c, "RuntimeError", {ToStr(Eval(args.pos[1]), args.pos[1])}, span));
  }
  if (name == "T.prim_func") Fail(n, "T.prim_func is a decorator");
  Fail(Field(n, F().function), std::string(name) + " is not supported yet");
}

Stmt Parser::ParseAssert(Node s) {
  auto kids = cst_->Children(s);
  if (kids.empty()) Fail(s, "assert needs a condition");
  PrimExpr c = ToPrimAs(Eval(kids[0]), DataType::Bool(), kids[0]);
  std::string kind = "RuntimeError";
  std::vector<std::string> parts;
  if (kids.size() > 1) {
    Value m = Eval(kids[1]);
    if (m.kind == VK::kStr) {
      parts.push_back(m.s);
    } else if (m.is_seq() && m.items.size() == 2) {
      kind = ToStr(m.items[0], kids[1]);
      for (const auto& p : ToSeq(m.items[1], kids[1])) parts.push_back(ToStr(p, kids[1]));
    } else {
      Fail(kids[1], "the assert message must be a string or (\"ErrorKind\", [\"part\", ...])");
    }
  }
  return MakeAssertStmt(c, kind, parts, SpanOf(s));
}

std::vector<Stmt> Parser::ParseAssignment(Node s, const std::vector<Node>& stmts,
                                          size_t index, bool* consumed_rest) {
  Node left = Field(s, F().left), right = Field(s, F().right), type = Field(s, F().type);
  if (!IsNull(right) && Kind(right) == K::kAssignment) Fail(s, "chained assignment is not supported");
  if (!IsNull(type)) {
    if (Kind(left) != K::kIdentifier) Fail(left, "an annotated assignment needs a single name");
    std::string_view name = Text(left);
    Node ann_node = Kind(type) == K::kType && type->named_count > 0
                          ? cst_->NamedChild(type, 0) : type;
    Value ann = Eval(ann_node);
    if (ann.kind == VK::kLetType) {
      if (IsNull(right)) Fail(s, "T.let needs a value");
      Value v = Eval(right);
      PrimExpr value;
      Var var;
      if (ann.obj.defined()) {
        value = ToPrim(v, right);
        var = MakeVar(std::string(name), Downcast<ir::TypeNode>(ann.obj), SpanOf(left));
      } else {
        value = ann.dtype.is_void() ? ToPrim(v, right) : ToPrimAs(v, ann.dtype, right);
        if (!ann.dtype.is_void() && value->dtype != ann.dtype) value = cast(ann.dtype, value);
        var = MakeVar(std::string(name), value->dtype, SpanOf(left));
      }
      Bind(name, Value::Expr(var));
      return {MakeBind(var, value, SpanOf(s))};
    }
    if (ann.kind == VK::kDType) {
      // A mutable local scalar: a (1,) buffer in "local" scope (see CONVENTIONS.md).
      BufferOptions options;
      options.scope = "local";
      Buffer buf = MakeBuffer(std::string(name), {make_const(DataType::Int(32), int64_t(1))}, ann.dtype,
                              options, SpanOf(left));
      std::vector<Stmt> out{MakeAllocBuffer(buf, {}, SpanOf(s))};
      if (!IsNull(right)) {
        PrimExpr value = ToPrimAs(Eval(right), ann.dtype, right);
        if (value->dtype != ann.dtype) value = cast(ann.dtype, value);
        out.push_back(MakeBufferStore(buf, value, {make_const(DataType::Int(32), int64_t(0))}, {}, SpanOf(s)));
      }
      Bind(name, Value::Of(VK::kScalarBuf, buf));
      return out;
    }
    if (ann.kind == VK::kBufferSpec) {
      // `v: T.float32[4]`: a local array.
      if (!IsNull(right)) Fail(right, "a local array annotation takes no value");
      return DeclareBuffer(name, ann, left);
    }
    Fail(ann_node, "expected a dtype annotation such as T.int32 or T.let[T.int32]");
  }
  if (IsNull(right)) Fail(s, "assignment needs a value");
  Value v = Eval(right);
  if (v.kind == VK::kFrame && v.frame && v.frame->kind == FrameSpec::kLaunch) {
    if (Kind(left) != K::kIdentifier) Fail(left, "T.launch_thread is assigned to a single name");
    auto frame = *v.frame;
    if (!frame.var.defined()) {
      frame.var = MakeVar(std::string(Text(left)), frame.extent->dtype.is_integer() ? frame.extent->dtype
                                                                                   : DataType::Int(32),
                          SpanOf(left));
    }
    Bind(Text(left), Value::Expr(frame.var));
    *consumed_rest = true;
    Stmt body = ParseStmtsFrom(stmts, index + 1);
    return {WrapFrame(frame, body, s)};
  }
  return AssignTo(left, std::move(v), right);
}

std::vector<Stmt> Parser::AssignTo(Node target, Value v, Node value_node) {
  K tk = Kind(target);
  if (tk == K::kSubscript) return {StoreTo(target, std::move(v), value_node)};
  if (tk == K::kPatternList || tk == K::kTuplePattern || tk == K::kListPattern || tk == K::kTuple ||
      tk == K::kList) {
    auto targets = cst_->Children(target);
    if (!v.is_seq()) Fail(value_node, std::string("cannot unpack ") + DescribeKind(v.kind));
    if (v.items.size() != targets.size()) {
      Fail(target, "cannot unpack " + std::to_string(v.items.size()) + " values into " +
                       std::to_string(targets.size()) + " names");
    }
    std::vector<Stmt> out;
    for (size_t i = 0; i < targets.size(); ++i) {
      for (auto& st : AssignTo(targets[i], v.items[i], value_node)) out.push_back(std::move(st));
    }
    return out;
  }
  if (tk != K::kIdentifier) Fail(target, "cannot assign to this expression");
  // `vi = T.axis.remap("S", [i])`: TVM binds a one-axis remap to a single name.
  if (v.kind == VK::kTuple && v.items.size() == 1 && v.items[0].kind == VK::kAxis) {
    Value axis = v.items[0];
    v = std::move(axis);
  }
  std::string_view name = Text(target);
  Span span = SpanOf(target);
  const Value* existing = Lookup(name);
  if (existing && existing->kind == VK::kScalarBuf && v.kind != VK::kBufferSpec) {
    Buffer buf = Downcast<BufferNode>(existing->obj);
    PrimExpr value = ToPrimAs(v, buf->dtype, value_node);
    if (value->dtype != buf->dtype) value = cast(buf->dtype, value);
    return {MakeBufferStore(buf, value, {make_const(DataType::Int(32), int64_t(0))}, {}, span)};
  }
  if (v.kind == VK::kBufferSpec && v.bspec->scalar) {
    // T.local_scalar(...): the same (1,) buffer as `x: T.int32`.
    BufferOptions options;
    options.scope = v.bspec->options.scope;
    Buffer buf = MakeBuffer(std::string(name), v.bspec->shape, v.bspec->dtype, options, span);
    Bind(name, Value::Of(VK::kScalarBuf, buf));
    return {MakeAllocBuffer(buf, {}, span)};
  }
  if (v.kind == VK::kFrame && v.frame && v.frame->kind == FrameSpec::kLetFrame) {
    Var var = MakeVar(std::string(name), v.frame->extent->dtype, span);
    Bind(name, Value::Expr(var));
    return {MakeBind(var, v.frame->extent, span)};
  }
  switch (v.kind) {
    case VK::kBufferSpec: return DeclareBuffer(name, v, target);
    case VK::kAxis: {
      if (blocks_.empty()) Fail(value_node, "T.axis.* must be inside a T.sblock");
      const AxisSpec& a = *v.axis;
      Var var = MakeVar(std::string(name), a.dtype, span);
      blocks_.back()->iter_vars.push_back(MakeIterVar(a.dom, var, a.type, "", span));
      blocks_.back()->iter_values.push_back(a.binding);
      Bind(name, Value::Expr(var));
      return {};
    }
    case VK::kType: {
      Var var;
      if (auto* pt = v.obj.as<ir::PrimTypeNode>()) {
        // `n = T.int32()` re-declaring a signature variable keeps the same Var.
        auto& fscope = scopes_[func_scope_];
        auto it = fscope.find(name);
        if (v.s.empty() && func_ && it != fscope.end() && it->second.kind == VK::kExpr &&
            it->second.expr.as<VarNode>() && it->second.expr->dtype == pt->dtype) {
          var = it->second.expr.as_ref<VarNode>();
        } else {
          var = MakeVar(std::string(name), pt->dtype, span);
        }
      } else {
        var = MakeVar(std::string(name), Downcast<ir::TypeNode>(v.obj), span);
      }
      if (!v.s.empty()) env_tags_[var.get()] = v.s;
      Bind(name, Value::Expr(var));
      return {};
    }
    case VK::kExpr: {
      if (v.expr->dtype.is_handle() || v.expr->dtype.is_void()) {
        Var var = MakeVar(std::string(name), v.expr->dtype, span);
        Bind(name, Value::Expr(var));
        return {MakeBind(var, v.expr, span)};
      }
      // `x = e` with a new name: a mutable local scalar, as TVM's tirx parser makes it.
      BufferOptions options;
      options.scope = "local";
      DataType t = v.expr->dtype;
      Buffer buf = MakeBuffer(std::string(name), {make_const(DataType::Int(32), int64_t(1))}, t, options, span);
      Bind(name, Value::Of(VK::kScalarBuf, buf));
      return {MakeAllocBuffer(buf, {}, span),
              MakeBufferStore(buf, v.expr, {make_const(DataType::Int(32), int64_t(0))}, {}, span)};
    }
    case VK::kFrame: Fail(value_node, "this frame must be used in a with statement");
    default: Bind(name, std::move(v)); return {};
  }
}

Stmt Parser::StoreTo(Node subscript, Value v, Node value_node) {
  Node base_node = Field(subscript, F().value);
  Value base = Eval(base_node);
  if (base.kind != VK::kBuffer && base.kind != VK::kScalarBuf) {
    Fail(base_node, std::string("cannot store into ") + DescribeKind(base.kind) + "; expected a buffer");
  }
  Buffer buf = Downcast<BufferNode>(base.obj);
  bool has_slice = false;
  std::vector<ir::Range> region;
  std::vector<PrimExpr> indices = Indices(subscript, buf, &has_slice, &region);
  int lanes = 1;
  for (const auto& idx : indices) {
    if (!idx.defined()) Fail(subscript, "a slice store needs a constant length");
    lanes = std::max(lanes, idx->dtype.lanes());
  }
  DataType target = buf->dtype.with_lanes(buf->dtype.lanes() * lanes);
  PrimExpr value = ToPrimAs(v, buf->dtype, value_node);
  if (value->dtype.lanes() == 1 && target.lanes() > 1) value = MakeBroadcast(value, target.lanes());
  if (value->dtype.lanes() != target.lanes()) {
    Fail(value_node, "cannot store a " + value->dtype.ToString() + " value into " + target.ToString() +
                         " elements of buffer '" + buf->name + "'");
  }
  if (value->dtype != target) value = cast(target, value);
  return MakeBufferStore(buf, value, std::move(indices), {}, SpanOf(subscript));
}

std::vector<Stmt> Parser::ParseAugAssign(Node s) {
  Node left = Field(s, F().left), right = Field(s, F().right), op = Field(s, F().operator_);
  std::string_view o = Text(op);
  if (o.size() < 2) Fail(op, "invalid augmented assignment");
  std::string_view bin = o.substr(0, o.size() - 1);
  if (Kind(left) != K::kSubscript && Kind(left) != K::kIdentifier) Fail(left, "cannot assign to this expression");
  Value current = Eval(left);
  if (Kind(left) == K::kIdentifier && current.kind != VK::kScalarBuf) {
    Fail(left, "augmented assignment needs a buffer element or a scalar local");
  }
  current.node = left;
  Value rhs = Eval(right);
  rhs.node = right;
  Value result = BinaryValues(bin, std::move(current), std::move(rhs), s, op);
  if (Kind(left) == K::kSubscript) return {StoreTo(left, std::move(result), s)};
  return AssignTo(left, std::move(result), s);
}

Stmt Parser::ParseFor(Node s) {
  Node left = Field(s, F().left), right = Field(s, F().right), body = Field(s, F().body);
  if (!IsNull(Field(s, F().alternative))) Fail(Field(s, F().alternative), "for-else is not supported");
  Value it = Eval(right);
  if (it.kind != VK::kLoops) {
    Fail(right, "a TensorIR loop iterates over range(...), T.grid(...), T.serial(...), T.parallel(...), "
                "T.vectorized(...), T.unroll(...) or T.thread_binding(...)");
  }
  std::vector<Node> targets;
  if (Kind(left) == K::kIdentifier) targets.push_back(left);
  else targets = cst_->Children(left);
  const auto& loops = *it.loops;
  // `for lvs in T.grid(10, 12)`: one name over several ranges holds the tuple of the loop
  // variables (`lvs[0]`), which are named lvs_0, lvs_1, ... as TVM's parser names them.
  bool packed = Kind(left) == K::kIdentifier && loops.size() > 1;
  if (packed) targets.assign(loops.size(), left);
  if (targets.size() != loops.size()) {
    Fail(left, "the loop has " + std::to_string(loops.size()) + " range" + (loops.size() == 1 ? "" : "s") +
                   " but " + std::to_string(targets.size()) + " loop variable" + (targets.size() == 1 ? "" : "s"));
  }
  ScopeGuard scope(this);
  std::vector<Var> vars;
  std::vector<LoopSpec> specs = loops;
  for (size_t i = 0; i < targets.size(); ++i) {
    if (Kind(targets[i]) != K::kIdentifier) Fail(targets[i], "a loop variable must be a name");
    LoopSpec& spec = specs[i];
    DataType t = spec.dtype;
    if (!spec.has_dtype) {
      // The bounds' dtype when they agree (`range(T.uint32(128))` loops over uint32), else int64
      // when either is 64-bit, else int32.
      t = spec.min->dtype == spec.extent->dtype ? spec.min->dtype
          : (spec.min->dtype.bits() == 64 || spec.extent->dtype.bits() == 64) ? DataType::Int(64)
                                                                                : DataType::Int(32);
      if (spec.kind == ForKind::kThreadBinding) t = DataType::Int(std::max(spec.min->dtype.bits(), spec.extent->dtype.bits()));
    }
    spec.min = cast(t, spec.min);
    spec.extent = cast(t, spec.extent);
    if (spec.step.defined()) spec.step = cast(t, spec.step);
    std::string name(Text(targets[i]));
    if (packed) name += "_" + std::to_string(i);
    Var var = MakeVar(name, t, SpanOf(targets[i]));
    vars.push_back(var);
    if (!packed) Bind(Text(targets[i]), Value::Expr(var));
    loop_doms_[var.get()] = {spec.min, spec.extent};
  }
  if (packed) {
    Value tuple;
    tuple.kind = VK::kTuple;
    for (const Var& var : vars) tuple.items.push_back(Value::Expr(var));
    Bind(Text(left), std::move(tuple));
  }
  Stmt result;
  try {
    result = ParseBody(body);
  } catch (...) {
    for (const auto& v : vars) loop_doms_.erase(v.get());
    throw;
  }
  for (const auto& v : vars) loop_doms_.erase(v.get());
  for (size_t i = specs.size(); i-- > 0;) {
    const LoopSpec& spec = specs[i];
    IterVar thread;
    if (spec.kind == ForKind::kThreadBinding) {
      thread = MakeIterVar(ir::MakeRange(spec.min, spec.extent), MakeVar(spec.thread, vars[i]->dtype),
                           IterVarType::kThreadIndex, spec.thread);
    }
    result = MakeFor(vars[i], spec.min, spec.extent, spec.kind, result, thread, spec.annotations, spec.step,
                     SpanOf(s));
  }
  return result;
}

Stmt Parser::ParseWhile(Node s) {
  Node cond = Field(s, F().condition);
  PrimExpr c = ToPrimAs(Eval(cond), DataType::Bool(), cond);
  if (!IsNull(Field(s, F().alternative))) Fail(Field(s, F().alternative), "while-else is not supported");
  return MakeWhile(c, ParseBody(Field(s, F().body)), SpanOf(s));
}

Stmt Parser::ParseIf(Node cond, Node consequence, const std::vector<Node>& alts, size_t alt_index) {
  auto else_branch = [&]() -> Stmt {
    if (alt_index >= alts.size()) return Stmt();
    Node alt = alts[alt_index];
    if (Kind(alt) == K::kElifClause) {
      return ParseIf(Field(alt, F().condition), Field(alt, F().consequence), alts, alt_index + 1);
    }
    return ParseBody(Field(alt, F().body));
  };
  Value c = Eval(cond);
  if (c.is_number()) {
    bool truth = c.kind == VK::kFloat ? c.f != 0 : c.i != 0;
    if (truth) return ParseBody(consequence);
    Stmt e = else_branch();
    return e.defined() ? e : MakeSeq({});
  }
  PrimExpr pc = ToPrim(c, cond);
  if (!pc->dtype.is_bool()) pc = not_equal(pc, make_const(pc->dtype, int64_t(0)));
  Stmt then_case = ParseBody(consequence);
  Stmt else_case = else_branch();
  return MakeIfThenElse(pc, then_case, else_case, Span::Merge(SpanOf(cond), SpanOf(consequence)));
}

Stmt Parser::ParseWith(Node s) {
  Node clause{};
  for (Node c : cst_->Children(s)) {
    if (Kind(c) == K::kWithClause) clause = c;
  }
  Node body = Field(s, F().body);
  if (IsNull(clause)) Fail(s, "invalid with statement");
  auto items = cst_->Children(clause);
  if (items.size() != 1) Fail(clause, "a with statement takes exactly one frame");
  Node item = Field(items[0], F().value);
  if (IsNull(item)) item = items[0];
  Node as_target{};
  Node frame_node = item;
  if (Kind(item) == K::kAsPattern) {
    auto kids = cst_->Children(item);
    frame_node = kids.at(0);
    if (kids.size() > 1) {
      as_target = kids[1];
      if (Kind(as_target) == K::kAsPatternTarget && as_target->named_count > 0) {
        as_target = cst_->NamedChild(as_target, 0);
      }
    }
  }
  Value v = Eval(frame_node);
  if (v.kind != VK::kFrame || !v.frame) Fail(frame_node, "expected a frame such as T.sblock(...) in a with statement");
  FrameSpec frame = *v.frame;
  switch (frame.kind) {
    case FrameSpec::kSBlock:
      if (!IsNull(as_target)) Fail(as_target, "T.sblock takes no 'as' target");
      return ParseSBlock(frame, body, s);
    case FrameSpec::kInit: {
      if (blocks_.empty()) Fail(frame_node, "T.init must be inside a T.sblock");
      BlockFrame* bf = blocks_.back();
      if (bf->init.defined()) Fail(frame_node, "the block already has a T.init");
      // The init body belongs to the block but is not part of its body sequence.
      Stmt init = ParseBody(body);
      bf->init = init;
      return MakeSeq({});
    }
    case FrameSpec::kLaunch: {
      ScopeGuard scope(this);
      if (!frame.var.defined()) {
        std::string nm = IsNull(as_target) ? frame.tag : std::string(Text(as_target));
        frame.var = MakeVar(nm, frame.extent->dtype.is_integer() ? frame.extent->dtype : DataType::Int(32),
                            IsNull(as_target) ? SpanOf(frame_node) : SpanOf(as_target));
      }
      if (!IsNull(as_target)) Bind(Text(as_target), Value::Expr(frame.var));
      Stmt b = ParseBody(body);
      return WrapFrame(frame, b, s);
    }
    case FrameSpec::kAttr: return WrapFrame(frame, ParseBody(body), s);
    default: break;
  }
  Fail(frame_node, "unsupported frame");
}

Stmt Parser::ParseSBlock(const FrameSpec& frame, Node body, Node with_node) {
  if (!func_) Fail(with_node, "T.sblock must be inside a function");
  bool is_root = frame.name == "root" && blocks_.empty() && func_->top_level_depth == 0;
  func_->has_block = true;
  BlockFrame bf;
  bf.name = frame.name;
  bf.span = SpanOf(with_node);
  bf.no_realize = frame.no_realize;
  blocks_.push_back(&bf);
  Stmt b;
  try {
    b = ParseBody(body);
  } catch (...) {
    blocks_.pop_back();
    throw;
  }
  blocks_.pop_back();
  if (is_root) {
    for (const auto& buf : func_->root_allocs) bf.allocs.push_back(buf);
    func_->root_allocs.clear();
  }
  if (!is_root && (!bf.has_reads || !bf.has_writes)) InferAccess(bf, b, !bf.has_reads, !bf.has_writes);
  SBlock block = MakeSBlock(bf.iter_vars, bf.reads, bf.writes, bf.name, b, bf.init, bf.allocs,
                            bf.match_buffers, bf.annotations, bf.span);
  PrimExpr pred = bf.predicate.defined() ? bf.predicate : MakeIntImm(DataType::Bool(), 1);
  return MakeSBlockRealize(bf.iter_values, pred, block, bf.span);
}

}  // namespace wb::script::detail
