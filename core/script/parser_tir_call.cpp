// Calls that build expressions: casts, min/max and division flavours, Select, Let, vector
// constructors, node constructors (T.Add ...), comm_reducer and Python builtins.
#include <cmath>
#include <limits>

#include "script/parser_core.h"
#include "tir/builtin.h"
#include "tir/index_map.h"
#include "tir/op.h"

namespace wb::script::detail {

using namespace wb::tir;

namespace {

const std::unordered_map<std::string_view, ir::TypeIndex>& NodeConstructors() {
  static const std::unordered_map<std::string_view, ir::TypeIndex> table = {
      {"T.Add", ir::TypeIndex::kAdd}, {"T.Sub", ir::TypeIndex::kSub},
      {"T.Mul", ir::TypeIndex::kMul}, {"T.Div", ir::TypeIndex::kDiv},
      {"T.Mod", ir::TypeIndex::kMod}, {"T.FloorDiv", ir::TypeIndex::kFloorDiv},
      {"T.FloorMod", ir::TypeIndex::kFloorMod}, {"T.Min", ir::TypeIndex::kMin},
      {"T.Max", ir::TypeIndex::kMax}, {"T.EQ", ir::TypeIndex::kEQ},
      {"T.NE", ir::TypeIndex::kNE}, {"T.LT", ir::TypeIndex::kLT},
      {"T.LE", ir::TypeIndex::kLE}, {"T.GT", ir::TypeIndex::kGT},
      {"T.GE", ir::TypeIndex::kGE}, {"T.And", ir::TypeIndex::kAnd},
      {"T.Or", ir::TypeIndex::kOr},
  };
  return table;
}

}  // namespace

Value Parser::ExprCall(std::string_view name, const Args& args) {
  Node n = args.call;
  Span span = SpanOf(n);
  auto expect = [&](size_t count) {
    if (args.pos.size() != count) {
      Fail(n, std::string(name) + " expects " + std::to_string(count) + " argument" +
                  (count == 1 ? "" : "s") + ", got " + std::to_string(args.pos.size()));
    }
  };
  // Two operands, Python literals adopting the other operand's dtype.
  auto pair = [&](PrimExpr* x, PrimExpr* y) {
    expect(2);
    Value a = Eval(args.pos[0]), b = Eval(args.pos[1]);
    if (a.is_number() && !b.is_number()) {
      *y = ToPrim(b, args.pos[1]);
      *x = ToPrimAs(a, (*y)->dtype, args.pos[0]);
    } else {
      *x = ToPrim(a, args.pos[0]);
      *y = ToPrimAs(b, (*x)->dtype, args.pos[1]);
    }
  };
  if (auto it = NodeConstructors().find(name); it != NodeConstructors().end()) {
    PrimExpr x, y;
    pair(&x, &y);
    if (it->second != ir::TypeIndex::kAnd && it->second != ir::TypeIndex::kOr && x->dtype != y->dtype) {
      Fail(n, std::string(name) + " operands have different dtypes: " + x->dtype.ToString() +
                  " and " + y->dtype.ToString());
    }
    return Value::Expr(MakeBinary(it->second, x, y, span));
  }
  if (name == "T.Not") {
    expect(1);
    return Value::Expr(MakeNot(ToPrimAs(Eval(args.pos[0]), DataType::Bool(), args.pos[0]), span));
  }
  if (name == "T.max" || name == "T.min" || name == "T.floordiv" || name == "T.floormod" ||
      name == "T.truncdiv" || name == "T.truncmod") {
    PrimExpr x, y;
    pair(&x, &y);
    if (!MatchTypes(x, y)) Fail(n, std::string(name) + ": incompatible operand dtypes");
    if (name == "T.max") return Value::Expr(max(x, y, span));
    if (name == "T.min") return Value::Expr(min(x, y, span));
    if (name == "T.floordiv") return Value::Expr(floordiv(x, y, span));
    if (name == "T.floormod") return Value::Expr(floormod(x, y, span));
    if (name == "T.truncdiv") return Value::Expr(truncdiv(x, y, span));
    return Value::Expr(truncmod(x, y, span));
  }
  if (name == "T.ceildiv") {
    // TVM's ceildiv: (a + b - 1) // b, as it builds it for integers.
    PrimExpr x, y;
    pair(&x, &y);
    if (!MatchTypes(x, y)) Fail(n, "T.ceildiv: incompatible operand dtypes");
    if (!x->dtype.is_integer()) Fail(n, "T.ceildiv expects integer operands, got " + x->dtype.ToString());
    return Value::Expr(floordiv(sub(add(x, y, span), make_const(y->dtype, int64_t(1)), span), y, span));
  }
  if (name == "T.IntImm" || name == "T.FloatImm") {
    // tirx.IntImm(dtype, value) / tirx.FloatImm(dtype, value): a typed constant.
    expect(2);
    DataType dtype = ToDType(Eval(args.pos[0]), args.pos[0]);
    Value v = Eval(args.pos[1]);
    if (!v.is_number()) Fail(args.pos[1], std::string(name) + " expects a number");
    bool is_float = name == "T.FloatImm";
    if (is_float != dtype.is_floating_point()) {
      Fail(args.pos[0], std::string(name) + " cannot make a constant of dtype " + dtype.ToString());
    }
    double d = v.kind == VK::kFloat ? v.f : double(v.i);
    if (is_float) return Value::Expr(MakeFloatImm(dtype, d, span));
    if (v.kind == VK::kFloat) Fail(args.pos[1], "T.IntImm expects an integer");
    return Value::Expr(MakeIntImm(dtype, v.i, span));
  }
  if (name == "T.Cast" || name == "T.cast") {
    expect(2);
    size_t dt = name == "T.Cast" ? 0 : 1;
    DataType dtype = ToDType(Eval(args.pos[dt]), args.pos[dt]);
    PrimExpr x = EvalPrim(args.pos[1 - dt]);
    return Value::Expr(name == "T.Cast" ? MakeCast(dtype, x, span) : cast(dtype, x, span));
  }
  if (name == "T.Select") {
    expect(3);
    PrimExpr c = ToPrimAs(Eval(args.pos[0]), DataType::Bool(), args.pos[0]);
    Args rest = args;
    rest.pos.erase(rest.pos.begin());
    PrimExpr x, y;
    Value a = Eval(rest.pos[0]), b = Eval(rest.pos[1]);
    if (a.is_number() && !b.is_number()) {
      y = ToPrim(b, rest.pos[1]);
      x = ToPrimAs(a, y->dtype, rest.pos[0]);
    } else {
      x = ToPrim(a, rest.pos[0]);
      y = ToPrimAs(b, x->dtype, rest.pos[1]);
    }
    MatchTypes(x, y);
    return Value::Expr(MakeSelect(c, x, y, span));
  }
  if (name == "T.Let") {
    Node where = args.Kw("where");
    if (args.pos.size() != 1 || IsNull(where)) Fail(n, "T.Let expects T.Let(body, where={var: value})");
    Value bindings = Eval(where);
    if (bindings.kind != VK::kDict) Fail(where, "where= must be a dict {var: value}");
    PrimExpr body = EvalPrim(args.pos[0]);
    for (size_t i = bindings.items.size(); i >= 2; i -= 2) {
      const Value& k = bindings.items[i - 2];
      Var var = k.kind == VK::kExpr ? k.expr.as_ref<VarNode>() : Var();
      if (!var.defined()) Fail(where, "T.Let binds variables declared with e.g. x = T.int32()");
      body = MakeLet(var, ToPrimAs(bindings.items[i - 1], var->dtype, where), body, span);
    }
    return Value::Expr(body);
  }
  if (name == "T.llvm_lookup_intrinsic_id") {
    // LLVM's intrinsic IDs change between LLVM versions: the IR keeps the name, and the LLVM
    // codegen looks it up (TVM's T.call_llvm_pure_intrin(dtype, name, ...) takes a name too).
    expect(1);
    Value v = Eval(args.pos[0]);
    if (v.kind != VK::kStr) Fail(args.pos[0], "T.llvm_lookup_intrinsic_id takes the intrinsic's name");
    return Value::Expr(MakeStringImm(v.s, span));
  }
  if (name == "T.Ramp" || name == "T.ramp") {
    expect(3);
    PrimExpr base = EvalPrim(args.pos[0]);
    PrimExpr stride = ToPrimAs(Eval(args.pos[1]), base->dtype, args.pos[1]);
    if (stride->dtype != base->dtype) {
      Fail(args.pos[1], "T.Ramp: the stride is " + stride->dtype.ToString() + " but the base is " +
                            base->dtype.ToString());
    }
    int64_t lanes = ToInt(Eval(args.pos[2]), args.pos[2]);
    if (lanes < 1 || lanes > 65535) Fail(args.pos[2], "invalid number of lanes");
    return Value::Expr(MakeRamp(base, stride, lanes, span));
  }
  if (name == "T.Broadcast" || name == "T.broadcast") {
    expect(2);
    PrimExpr v = EvalPrim(args.pos[0]);
    int64_t lanes = ToInt(Eval(args.pos[1]), args.pos[1]);
    if (lanes < 1 || lanes > 65535) Fail(args.pos[1], "invalid number of lanes");
    return Value::Expr(MakeBroadcast(v, lanes, span));
  }
  if (name == "T.Shuffle") {
    expect(2);
    std::vector<PrimExpr> vecs, idx;
    for (const auto& v : ToSeq(Eval(args.pos[0]), args.pos[0])) vecs.push_back(ToPrim(v, args.pos[0]));
    for (const auto& v : ToSeq(Eval(args.pos[1]), args.pos[1])) idx.push_back(ToPrim(v, args.pos[1]));
    if (vecs.empty() || idx.empty()) Fail(n, "T.Shuffle needs vectors and indices");
    return Value::Expr(MakeShuffle(std::move(vecs), std::move(idx), span));
  }
  if (name == "T.comm_reducer") {
    expect(2);
    Node lambda = args.pos[0];
    if (Kind(lambda) != K::kLambda) Fail(lambda, "T.comm_reducer expects a lambda");
    std::vector<Value> identities = ToSeq(Eval(args.pos[1]), args.pos[1]);
    std::vector<Node> params;
    Node plist = Field(lambda, F().parameters);
    if (!IsNull(plist)) params = cst_->Children(plist);
    if (params.size() != 2 * identities.size()) {
      Fail(lambda, "T.comm_reducer: the lambda needs " + std::to_string(2 * identities.size()) +
                       " parameters for " + std::to_string(identities.size()) + " identity values");
    }
    std::vector<PrimExpr> identity;
    for (const auto& v : identities) identity.push_back(ToPrim(v, args.pos[1]));
    std::vector<Var> lhs, rhs;
    PushScope();
    for (size_t i = 0; i < params.size(); ++i) {
      if (Kind(params[i]) != K::kIdentifier) Fail(params[i], "expected a parameter name");
      DataType t = identity[i % identity.size()]->dtype;
      Var v = MakeVar(std::string(Text(params[i])), t, SpanOf(params[i]));
      (i < identity.size() ? lhs : rhs).push_back(v);
      Bind(Text(params[i]), Value::Expr(v));
    }
    Value body;
    try {
      body = Eval(Field(lambda, F().body));
    } catch (...) {
      PopScope();
      throw;
    }
    PopScope();
    std::vector<PrimExpr> result;
    for (const auto& v : ToSeq(body, lambda)) result.push_back(ToPrim(v, lambda));
    if (result.size() != identity.size()) Fail(lambda, "T.comm_reducer: result count mismatch");
    return Value::Of(VK::kObject, MakeCommReducer(lhs, rhs, result, identity, span));
  }
  if (name == "T.index_map") return IndexMapCall(args);
  if (name == "T.target") return Value::Str(TargetCall(args));
  if (name == "T.call_intrin") {
    // TVM's call_intrin(dtype, "tirx.op", *args): a call of a registered op with the given
    // result dtype.
    if (args.pos.size() < 2) Fail(n, "T.call_intrin expects a dtype, an op name and the op's arguments");
    DataType dtype = ToDType(Eval(args.pos[0]), args.pos[0]);
    std::string op_name = ToStr(Eval(args.pos[1]), args.pos[1]);
    const OpInfo* info = FindOp(op_name);
    if (!info) Fail(args.pos[1], "unknown TensorIR op '" + op_name + "'");
    std::vector<PrimExpr> call_args;
    for (size_t i = 2; i < args.pos.size(); ++i) call_args.push_back(ToPrim(Eval(args.pos[i]), args.pos[i]));
    return Value::Expr(MakeCall(dtype, info->op, std::move(call_args), span));
  }
  if (name == "T.meta_var") {
    expect(1);
    return Eval(args.pos[0]);
  }
  if (name == "T.address_of") {
    expect(1);
    Value v = Eval(args.pos[0]);
    PrimExpr load;
    if (v.kind == VK::kBuffer) {
      Buffer b = Downcast<BufferNode>(v.obj);
      std::vector<PrimExpr> zeros;
      for (const auto& d : b->shape) zeros.push_back(make_const(d->dtype, int64_t(0)));
      load = MakeBufferLoad(b, zeros, {}, SpanOf(args.pos[0]));
    } else {
      load = ToPrim(v, args.pos[0]);
      if (!load.as<BufferLoadNode>()) Fail(args.pos[0], "T.address_of expects a buffer element");
    }
    return Value::Expr(MakeCall(DataType::Handle(), FindOpByScriptName("address_of")->op, {load}, span));
  }
  if (name == "T.abs") {
    expect(1);
    PrimExpr x = EvalPrim(args.pos[0]);
    if (x->dtype.is_floating_point()) {
      return Value::Expr(MakeCall(x->dtype, FindOpByScriptName("fabs")->op, {x}, span));
    }
    if (x->dtype.is_uint()) return Value::Expr(x);
    return Value::Expr(MakeSelect(greater_equal(x, make_const(x->dtype, int64_t(0))), x, neg(x), span));
  }
  if (name == "T.max_value" || name == "T.min_value" || name == "T.infinity") {
    expect(1);
    DataType t = ToDType(Eval(args.pos[0]), args.pos[0]);
    bool is_max = name != "T.min_value";
    if (t.is_floating_point()) {
      double v = name == "T.infinity" ? std::numeric_limits<double>::infinity()
                 : t.bits() == 64    ? std::numeric_limits<double>::max()
                 : t.bits() == 16    ? 65504.0
                                     : double(std::numeric_limits<float>::max());
      return Value::Expr(MakeFloatImm(t, is_max ? v : -v, span));
    }
    if (t.is_int()) {
      int64_t hi = t.bits() >= 64 ? std::numeric_limits<int64_t>::max() : (int64_t(1) << (t.bits() - 1)) - 1;
      return Value::Expr(MakeIntImm(t, is_max ? hi : -hi - 1, span));
    }
    if (t.is_uint()) {
      int64_t hi = t.bits() >= 64 ? -1 : (int64_t(1) << t.bits()) - 1;
      return Value::Expr(MakeIntImm(t, is_max ? hi : 0, span));
    }
    Fail(args.pos[0], std::string(name) + " needs a numeric dtype");
  }
  if (name == "T.Range" || name == "I.Range") {
    expect(2);
    PrimExpr lo = EvalPrim(args.pos[0]);
    PrimExpr hi = ToPrimAs(Eval(args.pos[1]), lo->dtype, args.pos[1]);
    return Value::Of(VK::kObject, ir::MakeRange(lo, RangeExtent(lo, hi), span));
  }
  if (name == "T.handle" || name == "T.Ptr") {
    // T.handle(), T.handle("float32"), T.handle("float32", "shared"), storage_scope=.
    ir::Type elem;
    std::string scope = "global";
    if (!args.pos.empty()) {
      DataType t = ToDType(Eval(args.pos[0]), args.pos[0]);
      if (!t.is_void()) elem = ir::MakePrimType(t);
    }
    if (args.pos.size() > 1) scope = ToStr(Eval(args.pos[1]), args.pos[1]);
    if (Node s = args.Kw("storage_scope"); !IsNull(s)) scope = ToStr(Eval(s), s);
    if (Node d = args.Kw("dtype"); !IsNull(d)) {
      DataType t = ToDType(Eval(d), d);
      if (!t.is_void()) elem = ir::MakePrimType(t);
    }
    return Value::Of(VK::kType, ir::MakePointerType(elem, scope));
  }
  if (name == "len") {
    expect(1);
    Value v = Eval(args.pos[0]);
    if (v.is_seq()) return Value::Int(static_cast<int64_t>(v.items.size()));
    if (v.kind == VK::kStr) return Value::Int(static_cast<int64_t>(v.s.size()));
    Fail(args.pos[0], "len() needs a list or tuple");
  }
  if (name == "int" || name == "float" || name == "bool" || name == "str") {
    expect(1);
    Value v = Eval(args.pos[0]);
    if (!v.is_number()) Fail(args.pos[0], std::string(name) + "() needs a Python number");
    double x = v.kind == VK::kFloat ? v.f : double(v.i);
    if (name == "int") return Value::Int(v.kind == VK::kFloat ? int64_t(v.f) : v.i);
    if (name == "float") return Value::Float(x);
    if (name == "bool") return Value::Bool(x != 0);
    return Value::Str(v.kind == VK::kFloat ? std::to_string(v.f) : std::to_string(v.i));
  }
  Fail(n, "unknown function '" + std::string(name) + "'");
}

// A target config (a text, or a dict with a "kind") as target text; see TargetCall.
std::string Parser::TargetText(const Value& v, Node at) {
  if (v.kind == VK::kStr) {
    if (v.s.empty()) Fail(at, "a target must not be empty");
    return v.s;
  }
  if (v.kind != VK::kDict) Fail(at, std::string("a target is a text or a config dict, got ") + DescribeKind(v.kind));
  std::string kind, options, host;
  for (size_t i = 0; i + 1 < v.items.size(); i += 2) {
    std::string key = ToStr(v.items[i], at);
    const Value& item = v.items[i + 1];
    if (key == "kind") {
      if (item.kind != VK::kStr || item.s.empty()) Fail(at, "a target's \"kind\" must be a name such as \"llvm\"");
      kind = item.s;
    } else if (key == "host") {
      host = TargetText(item, at);
    } else if (key == "keys" || key == "tag") {
      continue;
    } else {
      std::string value;
      auto scalar = [&](const Value& x) -> std::string {
        switch (x.kind) {
          case VK::kStr: return x.s;
          case VK::kInt: return std::to_string(x.i);
          case VK::kBool: return x.i ? "true" : "false";
          default: Fail(at, "target option '" + key + "' must be a string, a number, a bool or a list of them");
        }
      };
      if (item.is_seq()) {
        for (const Value& x : item.items) value += (value.empty() ? "" : ",") + scalar(x);
      } else {
        value = scalar(item);
      }
      options += " -" + key + "=" + value;
    }
  }
  if (kind.empty()) Fail(at, "a target config dict needs a \"kind\", e.g. {\"kind\": \"llvm\"}");
  return kind + options + (host.empty() ? "" : " -host=" + host);
}

// TVM's `T.target(config, host=None)`, kept as the target's text (printer_doc.h): a config text
// as it is, a config dict ({"kind": "llvm", "mcpu": "skylake"}) as its kind and `-key=value`
// options (list values joined by commas; "keys" and "tag", which TVM derives from the kind, left
// out), and the host, a text, dict or T.target, as a last `-host=` option.
std::string Parser::TargetCall(const Args& args) {
  Node n = args.call;
  Node config_node = args.pos.empty() ? args.Kw("target_config") : args.pos[0];
  Node host_node = args.pos.size() > 1 ? args.pos[1] : args.Kw("host");
  if (args.pos.size() > 2) Fail(args.pos[2], "T.target takes a config and a host");
  for (const auto& [key, node] : args.kw) {
    if (key != "target_config" && key != "host") Fail(node, "T.target has no argument '" + std::string(key) + "'");
  }
  if (IsNull(config_node)) Fail(n, "T.target needs a target, e.g. T.target(\"llvm\")");
  std::string text = TargetText(Eval(config_node), config_node);
  if (!IsNull(host_node) && Kind(host_node) != K::kNone) {
    if (text.find(" -host=") != std::string::npos) {
      Fail(host_node, "the target already has a host: give the host once");
    }
    text += " -host=" + TargetText(Eval(host_node), host_node);
  }
  return text;
}

}  // namespace wb::script::detail
