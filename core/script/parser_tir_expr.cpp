// Expressions: literals, names, operators with TVM's semantics, subscripts and the calls that
// build PrimExprs (casts, intrinsics, node constructors).
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <limits>

#include "script/parser_core.h"
#include "tir/builtin.h"
#include "tir/op.h"

namespace wb::script::detail {

using namespace wb::tir;

namespace {

enum class Group { kExpr, kBuffer, kBlock, kLoop, kStmt, kModule };

const std::unordered_map<std::string_view, Group>& Builtins() {
  static const std::unordered_map<std::string_view, Group> table = [] {
    std::unordered_map<std::string_view, Group> t;
    for (const char* n :
         {"T.max", "T.min", "T.floordiv", "T.floormod", "T.truncdiv", "T.truncmod", "T.Cast",
          "T.cast", "T.Select", "T.Let", "T.Ramp", "T.ramp", "T.Broadcast", "T.broadcast",
          "T.llvm_lookup_intrinsic_id", "T.Shuffle", "T.comm_reducer", "T.index_map",
          "T.meta_var", "T.address_of", "T.abs", "T.max_value", "T.min_value", "T.infinity",
          "T.Add", "T.Sub", "T.Mul", "T.Div", "T.Mod", "T.FloorDiv", "T.FloorMod", "T.Min",
          "T.Max", "T.EQ", "T.NE", "T.LT", "T.LE", "T.GT", "T.GE", "T.And", "T.Or", "T.Not",
          "T.Range", "I.Range", "len", "int", "float", "bool", "str", "T.Ptr", "T.handle",
          "T.ceildiv", "T.IntImm", "T.FloatImm", "T.target", "T.call_intrin"}) {
      t[n] = Group::kExpr;
    }
    for (const char* n : {"T.Buffer", "T.match_buffer", "T.alloc_buffer", "T.alloc_shared",
                          "T.alloc_local", "T.decl_buffer", "T.sblock_alloc_buffer"}) {
      t[n] = Group::kBuffer;
    }
    for (const char* n : {"T.sblock", "T.init", "T.where", "T.reads", "T.writes",
                          "T.sblock_attr", "T.axis.spatial", "T.axis.reduce", "T.axis.scan",
                          "T.axis.opaque", "T.axis.S", "T.axis.R", "T.axis.remap"}) {
      t[n] = Group::kBlock;
    }
    for (const char* n : {"range", "T.grid", "T.serial", "T.parallel", "T.vectorized",
                          "T.unroll", "T.thread_binding"}) {
      t[n] = Group::kLoop;
    }
    for (const char* n : {"T.evaluate", "T.func_attr", "T.launch_thread", "T.env_thread",
                          "T.attr", "T.prim_func", "T.bind", "T.Assert", "T.device_entry",
                          "T.local_scalar", "T.shared_scalar", "T.alloc_scalar"}) {
      t[n] = Group::kStmt;
    }
    for (const char* n :
         {"I.ir_module", "I.module_attrs", "I.module_global_infos", "I.vdevice", "TypeVar"}) {
      t[n] = Group::kModule;
    }
    return t;
  }();
  return table;
}

bool ParseIntLiteral(std::string_view text, int64_t* out) {
  std::string digits;
  digits.reserve(text.size());
  for (char c : text) {
    if (c != '_') digits += c;
  }
  int base = 10;
  size_t start = 0;
  if (digits.size() > 2 && digits[0] == '0') {
    char p = static_cast<char>(digits[1] | 0x20);
    if (p == 'x') base = 16, start = 2;
    if (p == 'o') base = 8, start = 2;
    if (p == 'b') base = 2, start = 2;
  }
  if (!digits.empty() && (digits.back() == 'l' || digits.back() == 'L')) digits.pop_back();
  errno = 0;
  char* end = nullptr;
  long long v = std::strtoll(digits.c_str() + start, &end, base);
  if (errno == ERANGE || end == digits.c_str() + start || *end != '\0') return false;
  *out = v;
  return true;
}

// Whether a decimal literal spells 2^63 (the magnitude of INT64_MIN, one past INT64_MAX).
bool IsInt64MinMagnitude(std::string_view text) {
  std::string digits;
  for (char c : text) {
    if (c != '_') digits += c;
  }
  size_t first = digits.find_first_not_of('0');
  return first != std::string::npos && digits.substr(first) == "9223372036854775808";
}

int64_t FloorDivInt(int64_t a, int64_t b) {
  int64_t q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0))) --q;
  return q;
}

}  // namespace

bool IsKnownBuiltin(std::string_view name) { return Builtins().count(name) != 0; }

Value Parser::Eval(Node n) {
  DepthGuard guard(this, n);
  if (!splat_values_.empty()) {
    if (auto it = splat_values_.find(n); it != splat_values_.end()) return it->second;
  }
  switch (Kind(n)) {
    case K::kIdentifier: {
      std::string_view name = Text(n);
      const Value* found = Lookup(name);
      if (!found && quoted_ && func_) {
        auto dt = scalar_param_dtypes_.find(name);
        Var v = MakeVar(std::string(name), dt == scalar_param_dtypes_.end() ? DataType::Int(32) : dt->second,
                        SpanOf(n));
        scopes_[func_scope_][name] = Value::Expr(v);
        return Value::Expr(v);
      }
      if (!found) {
        if (in_signature_) {
          Fail(n, "undefined name '" + std::string(name) +
                      "' (quote a new shape variable, e.g. \"" + std::string(name) + "\")");
        }
        Fail(n, "undefined name '" + std::string(name) + "'");
      }
      if (found->kind == VK::kTypeVar) {
        if (!func_) Fail(n, "a TypeVar can only be used inside a function");
        Var v = MakeVar(std::string(name), DataType::Int(64), SpanOf(n));
        scopes_[func_scope_][name] = Value::Expr(v);
        return Value::Expr(v);
      }
      return *found;
    }
    case K::kInteger: {
      int64_t v = 0;
      if (!ParseIntLiteral(Text(n), &v)) Fail(n, "integer literal out of range");
      return Value::Int(v);
    }
    case K::kFloat: {
      std::string text;
      for (char c : Text(n)) {
        if (c != '_') text += c;
      }
      if (!text.empty() && (text.back() == 'j' || text.back() == 'J')) {
        Fail(n, "complex numbers are not supported");
      }
      return Value::Float(std::strtod(text.c_str(), nullptr));
    }
    case K::kTrue: return Value::Bool(true);
    case K::kFalse: return Value::Bool(false);
    case K::kNone: return Value::None();
    case K::kString:
    case K::kConcatenatedString: {
      Value v = Value::Str(StringLiteral(n));
      v.node = n;
      return v;
    }
    case K::kParenthesized: {
      auto kids = cst_->Children(n);
      if (kids.size() != 1) Fail(n, "unsupported parenthesized expression");
      return Eval(kids[0]);
    }
    case K::kTuple:
    case K::kList:
    case K::kExpressionList: {
      Value v;
      v.kind = Kind(n) == K::kList ? VK::kList : VK::kTuple;
      for (Node c : cst_->Children(n)) {
        if (Kind(c) == K::kListSplat) {
          auto inner = cst_->Children(c);
          if (inner.empty()) Fail(c, "invalid '*' expression");
          Value s = Eval(inner[0]);
          if (!s.is_seq()) Fail(c, "'*' needs a list or tuple");
          for (auto& item : s.items) v.items.push_back(std::move(item));
        } else {
          v.items.push_back(Eval(c));
        }
      }
      return v;
    }
    case K::kDictionary: {
      Value v;
      v.kind = VK::kDict;
      for (Node c : cst_->Children(n)) {
        if (Kind(c) != K::kPair) Fail(c, "unsupported dictionary entry");
        v.items.push_back(Eval(Field(c, F().key)));
        v.items.push_back(Eval(Field(c, F().value)));
      }
      return v;
    }
    case K::kAttribute: return EvalAttribute(n);
    case K::kSubscript: return EvalSubscript(n);
    case K::kCall: return EvalCall(n);
    case K::kBinaryOperator: return EvalBinary(n);
    case K::kComparisonOperator: return EvalCompare(n);
    case K::kUnaryOperator: {
      Node op = Field(n, F().operator_);
      Node arg = Field(n, F().argument);
      std::string_view o = Text(op);
      // -9223372036854775808 (how the printer writes INT64_MIN): the literal alone is out of
      // range, its negation is not.
      if (o == "-" && Kind(arg) == K::kInteger) {
        int64_t v = 0;
        if (!ParseIntLiteral(Text(arg), &v) && IsInt64MinMagnitude(Text(arg))) {
          return Value::Int(std::numeric_limits<int64_t>::min());
        }
      }
      Value a = Eval(arg);
      if (o == "+") return a;
      if (a.kind == VK::kInt || a.kind == VK::kBool) {
        if (o == "-" && a.i == std::numeric_limits<int64_t>::min()) Fail(n, "integer literal out of range");
        return o == "-" ? Value::Int(-a.i) : Value::Int(~a.i);
      }
      if (a.kind == VK::kFloat) {
        if (o == "-") return Value::Float(-a.f);
        Fail(op, "'~' needs an integer");
      }
      PrimExpr x = ToPrim(a, arg);
      if (o == "-") return Value::Expr(neg(x, SpanOf(n)));
      if (!x->dtype.is_integer() && !x->dtype.is_bool()) Fail(op, "'~' needs an integer");
      return Value::Expr(MakeCall(x->dtype, FindOpByScriptName("bitwise_not")->op, {x}, SpanOf(n)));
    }
    case K::kNotOperator: {
      Node arg = Field(n, F().argument);
      Value a = Eval(arg);
      if (a.is_number()) return Value::Bool(a.kind == VK::kFloat ? a.f == 0 : a.i == 0);
      return Value::Expr(logical_not(ToPrim(a, arg), SpanOf(n)));
    }
    case K::kBooleanOperator: {
      Node l = Field(n, F().left), r = Field(n, F().right);
      bool is_and = Text(Field(n, F().operator_)) == "and";
      Value a = Eval(l);
      if (a.is_number()) {
        bool truth = a.kind == VK::kFloat ? a.f != 0 : a.i != 0;
        // Python short-circuits on Python values.
        if (is_and && !truth) return a;
        if (!is_and && truth) return a;
        return Eval(r);
      }
      Value b = Eval(r);
      PrimExpr x = ToPrim(a, l), y = ToPrimAs(b, DataType::Bool(), r);
      return Value::Expr(is_and ? logical_and(x, y, SpanOf(n)) : logical_or(x, y, SpanOf(n)));
    }
    case K::kConditionalExpression: {
      auto kids = cst_->Children(n);
      if (kids.size() != 3) Fail(n, "invalid conditional expression");
      Value c = Eval(kids[1]);
      if (c.is_number()) return Eval((c.kind == VK::kFloat ? c.f != 0 : c.i != 0) ? kids[0] : kids[2]);
      PrimExpr cond = ToPrim(c, kids[1]);
      Value a = Eval(kids[0]), b = Eval(kids[2]);
      PrimExpr x, y;
      if (a.is_number() && !b.is_number()) {
        y = ToPrim(b, kids[2]);
        x = ToPrimAs(a, y->dtype, kids[0]);
      } else {
        x = ToPrim(a, kids[0]);
        y = ToPrimAs(b, x->dtype, kids[2]);
      }
      MatchTypes(x, y);
      return Value::Expr(
          MakeCall(x->dtype, FindOpByScriptName("if_then_else")->op, {cond, x, y}, SpanOf(n)));
    }
    case K::kLambda: {
      Value v;
      v.kind = VK::kLambda;
      v.node = n;
      return v;
    }
    case K::kSlice: {
      Value v;
      v.kind = VK::kSlice;
      v.items.resize(3);
      int part = 0;
      uint32_t count = n->count;
      for (uint32_t i = 0; i < count; ++i) {
        Node c = n->kids[i];
        if (!c->named) {
          if (Text(c) == ":") ++part;
          continue;
        }
        if (Kind(c) == K::kComment || part > 2) continue;
        v.items[part] = Eval(c);
        v.items[part].node = c;
      }
      v.node = n;
      return v;
    }
    case K::kKeywordArgument: Fail(n, "unexpected keyword argument");
    case K::kListComprehension: Fail(n, "comprehensions are not supported in TVMScript");
    default: break;
  }
  Fail(n, "unsupported syntax in TVMScript: " + std::string((n->type ? n->type : KindName(n->kind))));
}

Value Parser::EvalAttribute(Node n) {
  Node obj_node = Field(n, F().object);
  Node attr_node = Field(n, F().attribute);
  if (IsNull(obj_node) || IsNull(attr_node)) Fail(n, "invalid attribute access");
  Value obj = Eval(obj_node);
  std::string_view attr = Text(attr_node);
  switch (obj.kind) {
    case VK::kNamespace: {
      if (obj.s == "R") Fail(n, "Relax is not supported by this parser yet");
      if (obj.s == "T") {
        // `T.<name>` is resolved once per name (a builtin, dtype or op lookup by string).
        if (auto it = t_attrs_.find(attr); it != t_attrs_.end()) return it->second;
      }
      std::string qualified = obj.s + "." + std::string(attr);
      if (obj.s == "T") {
        Value v;
        if (attr == "axis") {
          v = Value::Named(VK::kNamespace, "T.axis");
        } else if (attr == "let") {
          v.kind = VK::kLetType;
          v.dtype = DataType::Void();
        } else if (attr == "buffer") {
          // T.buffer(...) is the function that T.Buffer(...) calls.
          v = Value::Named(VK::kBuiltin, "T.Buffer");
        } else if (attr == "handle") {
          v = Value::Named(VK::kDType, "T.handle");
          v.dtype = DataType::Handle();
        } else if (IsKnownBuiltin(qualified)) {
          v = Value::Named(VK::kBuiltin, qualified);
        } else if (auto t = DTypeFromName(attr)) {
          v = Value::Named(VK::kDType, qualified);
          v.dtype = *t;
        } else if (FindOpByScriptName(attr)) {
          v = Value::Named(VK::kBuiltin, qualified);
        }
        if (v.kind != VK::kNone) {
          t_attrs_.emplace(attr, v);
          return v;
        }
      } else if (IsKnownBuiltin(qualified)) {
        return Value::Named(VK::kBuiltin, qualified);
      } else if (qualified == "tvm.target") {
        return Value::Named(VK::kNamespace, qualified);
      } else if (qualified == "tvm.target.Target") {
        // tvm.target.Target(config, host=None) is the object that T.target(...) makes.
        return Value::Named(VK::kBuiltin, "T.target");
      }
      Fail(n, "unknown function '" + qualified + "'");
    }
    case VK::kBuffer: {
      Buffer b = Downcast<BufferNode>(obj.obj);
      if (attr == "data") return Value::Expr(b->data);
      if (attr == "dtype") return Value::Str(b->dtype.ToString());
      if (attr == "elem_offset") return Value::Expr(b->elem_offset);
      if (attr == "shape" || attr == "strides") {
        Value v;
        v.kind = VK::kTuple;
        for (const auto& e : attr == "shape" ? b->shape : b->strides) v.items.push_back(Value::Expr(e));
        return v;
      }
      if (attr == "vload" || attr == "vstore" || attr == "view" || attr == "access_ptr") {
        Value v = Value::Of(VK::kMethod, b);
        v.s = std::string(attr);
        return v;
      }
      Fail(attr_node, "buffer '" + b->name + "' has no attribute '" + std::string(attr) + "'");
    }
    case VK::kScalarBuf:
      if (attr == "buffer") return Value::Of(VK::kBuffer, obj.obj);
      break;
    case VK::kClass:
      if (const ir::GlobalVar* gv = FindGlobal(attr)) return Value::Of(VK::kGlobal, *gv);
      Fail(attr_node, "the module has no function '" + std::string(attr) + "'");
    case VK::kExpr:
      if (attr == "dtype") return Value::Str(obj.expr->dtype.ToString());
      break;
    default: break;
  }
  Fail(attr_node, std::string("'") + std::string(attr) + "' is not an attribute of " +
                      DescribeKind(obj.kind));
}

std::vector<PrimExpr> Parser::Indices(Node n, const Buffer& buffer, bool* has_slice,
                                      std::vector<ir::Range>* region) {
  // Every named child after the subscripted value.
  std::vector<Node> subs = cst_->Children(n);
  if (!subs.empty()) subs.erase(subs.begin());
  std::vector<std::pair<Value, Node>> items;
  for (Node s : subs) {
    Value v = Eval(s);
    if (v.kind == VK::kTuple && Kind(s) != K::kSlice) {
      for (auto& item : v.items) items.emplace_back(std::move(item), s);
    } else {
      items.emplace_back(std::move(v), s);
    }
  }
  if (items.size() != buffer->ndim()) {
    Fail(n, "buffer '" + buffer->name + "' has " + std::to_string(buffer->ndim()) +
                " dimension" + (buffer->ndim() == 1 ? "" : "s") + " but is indexed with " +
                std::to_string(items.size()));
  }
  std::vector<PrimExpr> indices;
  *has_slice = false;
  for (size_t d = 0; d < items.size(); ++d) {
    const auto& [v, node] = items[d];
    if (v.kind == VK::kSlice) {
      *has_slice = true;
      const Value& lo_v = v.items[0];
      const Value& hi_v = v.items[1];
      DataType it = buffer->shape[d]->dtype;
      PrimExpr lo = lo_v.kind == VK::kNone ? make_const(it, int64_t(0)) : ToPrimAs(lo_v, it, lo_v.node);
      PrimExpr hi = hi_v.kind == VK::kNone ? buffer->shape[d] : ToPrimAs(hi_v, lo->dtype, hi_v.node);
      PrimExpr step = v.items[2].kind == VK::kNone ? PrimExpr()
                                                    : ToPrimAs(v.items[2], lo->dtype, v.items[2].node);
      for (int k = 0; k < 3; ++k) {
        const PrimExpr& bound = k == 0 ? lo : k == 1 ? hi : step;
        if (!bound.defined()) continue;
        Node at = v.items[k].kind == VK::kNone ? node : v.items[k].node;
        if (!bound->dtype.is_integer()) {
          Fail(at, "slice bounds must be integers, got " + bound->dtype.ToString());
        }
        if (v.items[k].kind == VK::kInt && !IntLiteralFits(it, v.items[k].i)) {
          Fail(at, "the slice bound " + std::to_string(v.items[k].i) + " is out of range for the " +
                       it.ToString() + " dimension");
        }
        if (k == 1 && bound->dtype != lo->dtype) {
          Fail(at, "the slice starts with " + lo->dtype.ToString() + " but stops with " +
                       bound->dtype.ToString() + "; give both bounds one type");
        }
      }
      PrimExpr extent = RangeExtent(lo, hi);
      region->push_back(ir::MakeRange(lo, extent, SpanOf(node)));
      // As an index, a slice is a Ramp (only with a constant length).
      const int64_t* ext = AsConstInt(extent);
      int64_t st = step.defined() && AsConstInt(step) ? *AsConstInt(step) : 1;
      if (ext && st > 0 && *ext > 0 && (*ext + st - 1) / st <= 65535) {
        int64_t lanes = (*ext + st - 1) / st;
        indices.push_back(lanes == 1 ? lo : MakeRamp(lo, make_const(lo->dtype, st), lanes, SpanOf(node)));
      } else {
        indices.push_back(PrimExpr());
      }
    } else {
      PrimExpr idx = ToPrim(v, node);
      if (!idx->dtype.is_integer() && !idx->dtype.is_bool()) {
        Fail(node, "buffer index must be an integer, got " + idx->dtype.ToString());
      }
      region->push_back(ir::MakeRange(idx, make_const(idx->dtype.element_of(), int64_t(1)), SpanOf(node)));
      indices.push_back(idx);
    }
  }
  return indices;
}

PrimExpr Parser::LoadFromRegion(const BufferRegion& region, Node n) {
  std::vector<PrimExpr> indices;
  for (const auto& r : region->region) {
    const int64_t* ext = AsConstInt(r->extent);
    if (!ext) Fail(n, "a slice used as a value needs a constant length");
    if (*ext < 1 || *ext > 65535) {
      Fail(n, "a slice used as a value is a vector of 1 to 65535 lanes, not " + std::to_string(*ext));
    }
    indices.push_back(*ext == 1 ? r->min : MakeRamp(r->min, make_const(r->min->dtype, int64_t(1)), *ext));
  }
  return MakeBufferLoad(region->buffer, std::move(indices), {}, SpanOf(n));
}

Value Parser::EvalSubscript(Node n) {
  Node value_node = Field(n, F().value);
  Value base = Eval(value_node);
  if (base.kind == VK::kBuffer || base.kind == VK::kScalarBuf) {
    Buffer buffer = Downcast<BufferNode>(base.obj);
    bool has_slice = false;
    std::vector<ir::Range> region;
    std::vector<PrimExpr> indices = Indices(n, buffer, &has_slice, &region);
    if (has_slice) {
      Value v = Value::Of(VK::kRegion, MakeBufferRegion(buffer, std::move(region), SpanOf(n)));
      // Used as a value (a store operand, not a region argument), slices are Ramp indices.
      bool all = true;
      for (const auto& idx : indices) all = all && idx.defined();
      if (all) v.expr = MakeBufferLoad(buffer, std::move(indices), {}, SpanOf(n));
      return v;
    }
    return Value::Expr(MakeBufferLoad(buffer, std::move(indices), {}, SpanOf(n)));
  }
  Node sub = Field(n, F().subscript);
  if (base.kind == VK::kLetType || base.kind == VK::kDType) {
    Value t = Eval(sub);
    if (base.kind == VK::kLetType) {
      Value v;
      v.kind = VK::kLetType;
      if (t.kind == VK::kType) {
        v.obj = t.obj;
        v.dtype = DataType::Handle();
      } else {
        v.dtype = ToDType(t, sub);
      }
      return v;
    }
    // `v: T.float32[4]`: a local array, T.alloc_local((4,), "float32").
    auto spec = std::make_shared<BufferSpec>();
    spec->origin = BufferSpec::kAlloc;
    spec->options.scope = "local";
    spec->dtype = base.dtype;
    spec->span = SpanOf(n);
    std::vector<Node> sub_nodes = cst_->Children(n);
    sub_nodes.erase(sub_nodes.begin());
    for (Node s : sub_nodes) {
      Value d = Eval(s);
      std::vector<Value> dims = d.is_seq() ? d.items : std::vector<Value>{d};
      for (const auto& x : dims) spec->shape.push_back(ShapeDim(x, s));
    }
    Value v;
    v.kind = VK::kBufferSpec;
    v.bspec = spec;
    return v;
  }
  if (base.kind == VK::kBuiltin && base.s == "T.Buffer") {
    // Deprecated T.Buffer[(16,), "int8"].
    std::vector<Node> sub_nodes = cst_->Children(n);
    sub_nodes.erase(sub_nodes.begin());
    auto spec = std::make_shared<BufferSpec>();
    std::vector<Value> parts;
    for (Node s : sub_nodes) parts.push_back(Eval(s));
    if (parts.size() == 1 && parts[0].kind == VK::kTuple) parts = parts[0].items;
    if (parts.empty()) Fail(sub, "T.Buffer[...] needs a shape");
    Value shape = parts[0];
    for (const auto& d : ToSeq(shape, sub)) spec->shape.push_back(ShapeDim(d, sub));
    if (parts.size() > 1) spec->dtype = ToDType(parts[1], sub);
    spec->span = SpanOf(n);
    Value v;
    v.kind = VK::kBufferSpec;
    v.bspec = spec;
    return v;
  }
  if (base.is_seq()) {
    Value idx = Eval(sub);
    int64_t i = ToInt(idx, sub);
    int64_t size = static_cast<int64_t>(base.items.size());
    if (i < 0) i += size;
    if (i < 0 || i >= size) Fail(sub, "index out of range");
    return base.items[i];
  }
  Fail(value_node, std::string("cannot subscript ") + DescribeKind(base.kind));
}

Value Parser::EvalBinary(Node n) {
  Node l = Field(n, F().left), r = Field(n, F().right), op = Field(n, F().operator_);
  Value a = Eval(l);
  Value b = Eval(r);
  a.node = l;
  b.node = r;
  return BinaryValues(Text(op), std::move(a), std::move(b), n, op);
}

Value Parser::BinaryValues(std::string_view op, Value a, Value b, Node n, Node op_node) {
  if (a.is_number() && b.is_number()) {
    bool ints = a.kind != VK::kFloat && b.kind != VK::kFloat;
    if (ints) {
      int64_t x = a.i, y = b.i;
      if ((op == "//" || op == "%" || op == "/") && y == 0) Fail(op_node, "division by zero");
      if (op == "+") return Value::Int(x + y);
      if (op == "-") return Value::Int(x - y);
      if (op == "*") return Value::Int(x * y);
      if (op == "//") return Value::Int(FloorDivInt(x, y));
      if (op == "%") return Value::Int(x - FloorDivInt(x, y) * y);
      if (op == "/") return Value::Float(double(x) / double(y));
      if (op == "&") return Value::Int(x & y);
      if (op == "|") return Value::Int(x | y);
      if (op == "^") return Value::Int(x ^ y);
      if (op == "<<") return Value::Int(y >= 0 && y < 64 ? int64_t(uint64_t(x) << y) : 0);
      if (op == ">>") return Value::Int(y >= 0 && y < 64 ? x >> y : (x < 0 ? -1 : 0));
      if (op == "**") {
        if (y < 0) return Value::Float(std::pow(double(x), double(y)));
        int64_t r = 1;
        for (int64_t k = 0; k < y && k < 64; ++k) r *= x;
        return Value::Int(r);
      }
    } else {
      double x = a.kind == VK::kFloat ? a.f : double(a.i);
      double y = b.kind == VK::kFloat ? b.f : double(b.i);
      if (op == "+") return Value::Float(x + y);
      if (op == "-") return Value::Float(x - y);
      if (op == "*") return Value::Float(x * y);
      if (op == "/") return Value::Float(x / y);
      if (op == "//") return Value::Float(std::floor(x / y));
      if (op == "%") return Value::Float(x - std::floor(x / y) * y);
      if (op == "**") return Value::Float(std::pow(x, y));
    }
    Fail(op_node, "unsupported operator '" + std::string(op) + "' on Python numbers");
  }
  PrimExpr x, y;
  if (a.is_number() && !b.is_number()) {
    y = ToPrim(b, b.node);
    x = ToPrimAs(a, y->dtype, a.node);
  } else {
    x = ToPrim(a, a.node);
    y = ToPrimAs(b, x->dtype, b.node);
  }
  Span span = SpanOf(n);
  if (op == "+" || op == "-" || op == "*" || op == "/" || op == "//" || op == "%") {
    if (!MatchTypes(x, y)) {
      Fail(op_node, "operator '" + std::string(op) + "' cannot combine " + x->dtype.ToString() +
                        " and " + y->dtype.ToString());
    }
  }
  if (op == "+") return Value::Expr(add(x, y, span));
  if (op == "-") return Value::Expr(sub(x, y, span));
  if (op == "*") return Value::Expr(mul(x, y, span));
  if (op == "/") {
    if (!x->dtype.is_floating_point()) {
      Fail(op_node, "integer division with '/' is not allowed in TensorIR; use T.truncdiv or '//'");
    }
    return Value::Expr(div(x, y, span));
  }
  if (op == "//") return Value::Expr(floordiv(x, y, span));
  if (op == "%") return Value::Expr(floormod(x, y, span));
  if (op == "**") {
    MatchTypes(x, y);
    if (!x->dtype.is_floating_point()) {
      x = cast(DataType::Float(32).with_lanes(x->dtype.lanes()), x);
      y = cast(x->dtype, y);
    }
    return Value::Expr(MakeCall(x->dtype, FindOpByScriptName("pow")->op, {x, y}, span));
  }
  const char* bitop = op == "&" ? "bitwise_and" : op == "|" ? "bitwise_or" : op == "^" ? "bitwise_xor"
                    : op == "<<" ? "shift_left" : op == ">>" ? "shift_right" : nullptr;
  if (bitop) {
    MatchTypes(x, y);
    if (x->dtype.is_bool() && (op == "&" || op == "|")) {
      return Value::Expr(op == "&" ? logical_and(x, y, span) : logical_or(x, y, span));
    }
    if (!x->dtype.is_integer() && !x->dtype.is_bool()) {
      Fail(op_node, "operator '" + std::string(op) + "' needs integer operands, got " +
                        x->dtype.ToString());
    }
    return Value::Expr(MakeCall(x->dtype, FindOpByScriptName(bitop)->op, {x, y}, span));
  }
  Fail(op_node, "unsupported operator '" + std::string(op) + "' in TensorIR");
}

Value Parser::EvalCompare(Node n) {
  std::vector<Node> operands;
  std::vector<std::string> ops;
  uint32_t count = n->count;
  for (uint32_t i = 0; i < count; ++i) {
    Node c = n->kids[i];
    if (c->named) {
      if (Kind(c) != K::kComment) operands.push_back(c);
    } else {
      std::string tok(Text(c));
      if (ops.size() + 1 == operands.size()) {
        ops.push_back(tok);
      } else if (!ops.empty()) {
        ops.back() += " " + tok;  // "not in", "is not"
      }
    }
  }
  if (operands.size() < 2 || ops.size() != operands.size() - 1) Fail(n, "invalid comparison");
  Value result;
  Value left = Eval(operands[0]);
  for (size_t i = 0; i < ops.size(); ++i) {
    Value right = Eval(operands[i + 1]);
    const std::string& op = ops[i];
    Value cmp;
    if (left.is_number() && right.is_number()) {
      double x = left.kind == VK::kFloat ? left.f : double(left.i);
      double y = right.kind == VK::kFloat ? right.f : double(right.i);
      bool r = op == "<" ? x < y : op == "<=" ? x <= y : op == ">" ? x > y : op == ">=" ? x >= y
             : op == "==" ? x == y : op == "!=" ? x != y : false;
      if (op != "<" && op != "<=" && op != ">" && op != ">=" && op != "==" && op != "!=") {
        Fail(n, "unsupported comparison '" + op + "'");
      }
      cmp = Value::Bool(r);
    } else {
      PrimExpr x, y;
      if (left.is_number()) {
        y = ToPrim(right, operands[i + 1]);
        x = ToPrimAs(left, y->dtype, operands[i]);
      } else {
        x = ToPrim(left, operands[i]);
        y = ToPrimAs(right, x->dtype, operands[i + 1]);
      }
      Span span = Span::Merge(SpanOf(operands[i]), SpanOf(operands[i + 1]));
      if (!MatchTypes(x, y)) {
        Fail(n, "comparison '" + op + "' cannot combine " + x->dtype.ToString() + " and " +
                    y->dtype.ToString());
      }
      if (op == "<") cmp = Value::Expr(less(x, y, span));
      else if (op == "<=") cmp = Value::Expr(less_equal(x, y, span));
      else if (op == ">") cmp = Value::Expr(greater(x, y, span));
      else if (op == ">=") cmp = Value::Expr(greater_equal(x, y, span));
      else if (op == "==") cmp = Value::Expr(equal(x, y, span));
      else if (op == "!=") cmp = Value::Expr(not_equal(x, y, span));
      else Fail(n, "unsupported comparison '" + op + "' in TensorIR");
    }
    if (i == 0) {
      result = cmp;
    } else if (result.is_number() && cmp.is_number()) {
      result = Value::Bool(result.i && cmp.i);
    } else {
      result = Value::Expr(logical_and(ToPrim(result, n), ToPrim(cmp, n), SpanOf(n)));
    }
    left = std::move(right);
  }
  return result;
}

Value Parser::EvalCall(Node n) {
  Node fn = Field(n, F().function);
  Node arg_list = Field(n, F().arguments);
  Value f = Eval(fn);
  Args args;
  args.call = n;
  if (!IsNull(arg_list)) {
    if (Kind(arg_list) != K::kArgumentList) Fail(arg_list, "unsupported call arguments");
    for (Node a : cst_->Children(arg_list)) {
      switch (Kind(a)) {
        case K::kKeywordArgument:
          args.kw.emplace_back(Text(Field(a, F().name)), Field(a, F().value));
          break;
        case K::kListSplat: {
          if (cst_->NamedChildCount(a) != 1) Fail(a, "unsupported '*' argument");
          Value seq = Eval(cst_->NamedChild(a, 0));
          if (!seq.is_seq()) Fail(a, "a '*' argument must be a tuple or list (a buffer's shape)");
          for (const Value& item : seq.items) {
            splat_nodes_.push_back(*a);
            splat_values_[&splat_nodes_.back()] = item;
            args.pos.push_back(&splat_nodes_.back());
          }
          break;
        }
        case K::kDictionarySplat: Fail(a, "'**' arguments are not supported");
        default: args.pos.push_back(a);
      }
    }
  }
  switch (f.kind) {
    case VK::kBuiltin: return CallBuiltin(f.s, args);
    case VK::kDType: return CallDType(f.dtype, args);
    case VK::kMethod: return CallMethod(f, args);
    case VK::kGlobal: {
      std::vector<PrimExpr> call_args;
      for (Node a : args.pos) call_args.push_back(EvalPrim(a));
      // The call has the callee's return dtype (TVM's tir.call_tir), int32 when not annotated.
      DataType ret = DataType::Int(32);
      auto gv = Downcast<ir::GlobalVarNode>(f.obj);
      if (auto it = gvar_returns_.find(gv->name_hint); it != gvar_returns_.end()) {
        Node rn = it->second;
        if (Kind(rn) == K::kType && rn->named_count > 0) rn = cst_->NamedChild(rn, 0);
        Value rv = Eval(rn);
        if (rv.kind == VK::kDType && !rv.dtype.is_void()) ret = rv.dtype;
        else if (rv.kind == VK::kType) ret = DataType::Handle();
      }
      return Value::Expr(MakeCall(ret, f.obj, std::move(call_args), SpanOf(n)));
    }
    default: break;
  }
  Fail(fn, "'" + std::string(Text(fn)) + "' is not callable");
}

Value Parser::CallBuiltin(const std::string& name, const Args& args) {
  auto it = Builtins().find(name);
  if (it == Builtins().end()) {
    if (name.rfind("T.", 0) == 0) return CallOp(std::string_view(name).substr(2), args);
    Fail(args.call, "unknown function '" + name + "'");
  }
  switch (it->second) {
    case Group::kExpr: return ExprCall(name, args);
    case Group::kBuffer: return BufferCall(name, args);
    case Group::kBlock: return BlockCall(name, args);
    case Group::kLoop: return LoopCall(name, args);
    case Group::kStmt: return StmtCall(name, args);
    case Group::kModule: break;
  }
  Fail(Field(args.call, F().function), "'" + name + "' can only be used at module level");
}

Value Parser::CallDType(DataType dtype, const Args& args) {
  Node n = args.call;
  if (dtype.is_handle()) return ExprCall("T.handle", args);
  if (args.pos.empty()) {
    // `n = T.int32()`: a variable declaration.
    return Value::Of(VK::kType, ir::MakePrimType(dtype));
  }
  if (args.pos.size() != 1) Fail(n, "T." + dtype.ToString() + "() takes one value");
  Value v = Eval(args.pos[0]);
  Span span = SpanOf(n);
  switch (v.kind) {
    case VK::kInt:
    case VK::kBool:
      if (dtype.is_floating_point()) return Value::Expr(make_const(dtype, double(v.i), span));
      if (dtype.is_bool()) return Value::Expr(MakeIntImm(dtype, v.i != 0, span));
      if (!IntLiteralFits(dtype.element_of(), v.i)) {
        Fail(args.pos[0], "the literal " + std::to_string(v.i) + " is out of range for " + dtype.ToString());
      }
      return Value::Expr(make_const(dtype, v.i, span));
    case VK::kFloat: {
      if (dtype.is_floating_point()) return Value::Expr(make_const(dtype, v.f, span));
      // Truncated toward zero as Python's int() does, when the value is one of the type's.
      bool fits = std::isfinite(v.f) && v.f >= -9223372036854775808.0 && v.f < 9223372036854775808.0;
      if (!fits || !IntLiteralFits(dtype.element_of(), int64_t(v.f))) {
        Fail(args.pos[0], "the literal " + std::string(Text(args.pos[0])) + " is out of range for " +
                              dtype.ToString());
      }
      return Value::Expr(make_const(dtype, int64_t(v.f), span));
    }
    case VK::kStr: {
      if (!dtype.is_floating_point()) Fail(args.pos[0], "only float constants can be given as strings");
      std::string s = v.s;
      double x = 0;
      if (s == "inf" || s == "+inf") x = std::numeric_limits<double>::infinity();
      else if (s == "-inf") x = -std::numeric_limits<double>::infinity();
      else if (s == "nan" || s == "+nan") x = std::numeric_limits<double>::quiet_NaN();
      else if (s == "-nan") x = -std::numeric_limits<double>::quiet_NaN();
      else {
        char* end = nullptr;
        x = std::strtod(s.c_str(), &end);
        if (s.empty() || *end != '\0') Fail(args.pos[0], "invalid float constant '" + s + "'");
      }
      return Value::Expr(MakeFloatImm(dtype, x, span));
    }
    default: return Value::Expr(cast(dtype, ToPrim(v, args.pos[0]), span));
  }
}

Value Parser::CallOp(std::string_view script_name, const Args& args) {
  const OpInfo* info = FindOpByScriptName(script_name);
  Node n = args.call;
  if (!info) Fail(Field(n, F().function), "unknown function 'T." + std::string(script_name) + "'");
  std::vector<Node> nodes = args.pos;
  DataType dtype = DataType::Int(32);
  bool explicit_dtype = info->result == OpResultType::kExplicit || info->result == OpResultType::kExplicitLast;
  if (explicit_dtype) {
    Node kw = args.Kw("dtype");
    if (!IsNull(kw)) {
      dtype = ToDType(Eval(kw), kw);
    } else {
      if (nodes.empty()) Fail(n, "T." + std::string(script_name) + " needs the result dtype");
      Node d = info->result == OpResultType::kExplicit ? nodes.front() : nodes.back();
      dtype = ToDType(Eval(d), d);
      if (info->result == OpResultType::kExplicit) nodes.erase(nodes.begin());
      else nodes.pop_back();
    }
  }
  if (info->num_inputs >= 0 && static_cast<int>(nodes.size()) != info->num_inputs) {
    Fail(n, "T." + std::string(script_name) + " expects " + std::to_string(info->num_inputs) +
                " argument" + (info->num_inputs == 1 ? "" : "s") + ", got " +
                std::to_string(nodes.size()));
  }
  std::vector<Value> values;
  for (Node a : nodes) {
    values.push_back(Eval(a));
    values.back().node = a;
  }
  // Python literals take the dtype of the first typed operand (the value operands of
  // if_then_else skip the condition; a warp shuffle's lane/width literals stay int32, and so do
  // the offsets and sizes of the pointer-building intrinsics, tvm_access_ptr's after its
  // type_annotation).
  size_t first_value = info->result == OpResultType::kSecondArg ? 1
                       : info->result == OpResultType::kValueArg ||
                               info->result == OpResultType::kHandle
                           ? values.size()
                           : 0;
  DataType like = DataType::Void();
  for (size_t i = first_value; i < values.size(); ++i) {
    if (values[i].kind == VK::kExpr) {
      like = values[i].expr->dtype;
      break;
    }
  }
  std::vector<PrimExpr> call_args;
  for (size_t i = 0; i < values.size(); ++i) {
    if (i >= first_value && !like.is_void()) call_args.push_back(ToPrimAs(values[i], like, nodes[i]));
    else call_args.push_back(ToPrim(values[i], nodes[i]));
  }
  switch (info->result) {
    case OpResultType::kSameAsFirstArg:
      dtype = call_args.empty() ? DataType::Int(32) : call_args[0]->dtype;
      break;
    case OpResultType::kBool: dtype = DataType::Bool(); break;
    case OpResultType::kSecondArg:
      if (call_args.size() >= 3) {
        MatchTypes(call_args[1], call_args[2]);
        dtype = call_args[1]->dtype;
      }
      break;
    case OpResultType::kInt32: dtype = DataType::Int(32); break;
    case OpResultType::kUInt32: dtype = DataType::UInt(32); break;
    case OpResultType::kValueArg:
      if (call_args.size() >= 2) dtype = call_args[1]->dtype;
      break;
    case OpResultType::kHandle: dtype = DataType::Handle(); break;
    case OpResultType::kVoid: dtype = DataType::Void(); break;
    default: break;
  }
  return Value::Expr(MakeCall(dtype, info->op, std::move(call_args), SpanOf(n)));
}

Value Parser::CallMethod(const Value& method, const Args& args) {
  Buffer b = Downcast<BufferNode>(method.obj);
  Node n = args.call;
  if (method.s == "view") {
    // DeclBuffer view sugar: P.view("uint32") reinterprets the dtype (the last extent scales by
    // the bit ratio), P.view(4, 32) reshapes; both alias P.data with P's offset and alignment.
    if (args.pos.empty()) Fail(n, "A.view expects a dtype or a shape");
    auto spec = std::make_shared<BufferSpec>();
    spec->origin = BufferSpec::kDeclBuffer;
    spec->span = SpanOf(n);
    spec->has_data = true;
    spec->options.data = b->data;
    spec->options.elem_offset = b->elem_offset;
    spec->options.scope = b->scope();
    spec->options.data_alignment = b->data_alignment;
    spec->options.offset_factor = b->offset_factor;
    spec->dtype = b->dtype;
    Value first = Eval(args.pos[0]);
    if (args.pos.size() == 1 && (first.kind == VK::kStr || first.kind == VK::kDType)) {
      DataType t = ToDType(first, args.pos[0]);
      spec->dtype = t;
      spec->shape = b->shape;
      int64_t from = b->dtype.bits() * b->dtype.lanes(), to = t.bits() * t.lanes();
      if (from != to && !spec->shape.empty()) {
        PrimExpr& last = spec->shape.back();
        if (from > to && from % to == 0) last = mul(last, make_const(last->dtype, from / to));
        else if (to > from && to % from == 0) last = floordiv(last, make_const(last->dtype, to / from));
        else Fail(args.pos[0], "A.view: the bit widths of " + b->dtype.ToString() + " and " + t.ToString() +
                                   " do not divide");
      }
    } else {
      for (Node a : args.pos) {
        Value d = Eval(a);
        for (const auto& x : d.is_seq() ? d.items : std::vector<Value>{d}) spec->shape.push_back(ToPrim(x, a));
      }
      if (Node dt = args.Kw("dtype"); !IsNull(dt)) spec->dtype = ToDType(Eval(dt), dt);
    }
    Value v;
    v.kind = VK::kBufferSpec;
    v.bspec = spec;
    return v;
  }
  if (method.s == "access_ptr") return AccessPtr(b, args);
  // TVM's A.vload(begin, dtype): the last index becomes a ramp of dtype's lanes.
  bool vload_dtype = method.s == "vload" && (args.pos.size() == 2 || !IsNull(args.Kw("dtype")));
  size_t need = method.s == "vload" ? (vload_dtype && args.pos.size() == 2 ? 2 : 1) : 2;
  if (args.pos.size() != need) Fail(n, "A." + method.s + " expects " + std::to_string(need) + " arguments");
  Value idx = Eval(args.pos[0]);
  std::vector<PrimExpr> indices;
  for (const auto& v : ToSeq(idx, args.pos[0])) indices.push_back(ToPrim(v, args.pos[0]));
  if (indices.size() != b->ndim()) {
    Fail(args.pos[0], "buffer '" + b->name + "' has " + std::to_string(b->ndim()) +
                          " dimensions but is indexed with " + std::to_string(indices.size()));
  }
  PrimExpr pred;
  if (Node p = args.Kw("predicate"); !IsNull(p)) pred = EvalPrim(p);
  if (vload_dtype) {
    Node dn = args.pos.size() == 2 ? args.pos[1] : args.Kw("dtype");
    DataType t = ToDType(Eval(dn), dn);
    if (t.element_of() != b->dtype.element_of() || t.lanes() % b->dtype.lanes() != 0) {
      Fail(dn, "A.vload of " + t.ToString() + " from a buffer of " + b->dtype.ToString());
    }
    int lanes = t.lanes() / b->dtype.lanes();
    if (lanes > 1 && !indices.empty()) {
      PrimExpr& last = indices.back();
      last = MakeRamp(last, make_const(last->dtype, int64_t(1)), lanes, SpanOf(n));
    }
  }
  if (method.s == "vload") return Value::Expr(MakeBufferLoad(b, std::move(indices), pred, SpanOf(n)));
  Value value;
  value.kind = VK::kFrame;  // marker: a store statement, picked up by the statement parser
  value.obj = MakeBufferStore(b, ToPrimAs(Eval(args.pos[1]), b->dtype, args.pos[1]), std::move(indices),
                              pred, SpanOf(n));
  return value;
}

// TVM's A.access_ptr(access_mask, ptr_type="handle", content_lanes=1, offset=0, extent=None):
// `T.tvm_access_ptr(T.type_annotation(dtype), A.data, elem_offset + offset, extent, mask)`, the
// extent by default the buffer's elements from the offset on, the mask "r" 1 | "w" 2.
Value Parser::AccessPtr(const Buffer& b, const Args& args) {
  Node n = args.call;
  auto arg = [&](size_t pos, const char* kw) -> Node {
    if (args.pos.size() > pos) return args.pos[pos];
    return args.Kw(kw);
  };
  Node mask_node = arg(0, "access_mask");
  if (IsNull(mask_node)) Fail(n, "A.access_ptr expects an access mask (\"r\", \"w\", \"rw\" or 1 | 2)");
  if (args.pos.size() > 5) Fail(n, "A.access_ptr takes at most 5 arguments");
  Value m = Eval(mask_node);
  int64_t mask = 0;
  if (m.kind == VK::kStr) {
    for (char c : m.s) {
      if (c == 'r') mask |= 1;
      else if (c == 'w') mask |= 2;
      else Fail(mask_node, "unknown access mask '" + m.s + "': use \"r\", \"w\" or \"rw\"");
    }
  } else {
    mask = ToInt(m, mask_node);
  }
  if (Node t = arg(1, "ptr_type"); !IsNull(t)) {
    Value pt = Eval(t);
    if (pt.kind != VK::kStr || pt.s != "handle") Fail(t, "A.access_ptr supports ptr_type=\"handle\" only");
  }
  int64_t lanes = 1;
  if (Node l = arg(2, "content_lanes"); !IsNull(l)) lanes = ToInt(Eval(l), l);
  if (lanes < 1) Fail(arg(2, "content_lanes"), "content_lanes must be positive");
  DataType index_type = b->elem_offset.defined() ? b->elem_offset->dtype : DataType::Int(32);
  PrimExpr offset = make_const(index_type, int64_t(0));
  if (Node o = arg(3, "offset"); !IsNull(o)) offset = ToPrimAs(Eval(o), index_type, o);
  PrimExpr extent;
  if (b->shape.empty()) {
    extent = make_const(index_type, int64_t(1));
  } else if (b->strides.size() == b->shape.size()) {
    extent = sub(mul(b->strides[0], b->shape[0]), offset);
  } else {
    extent = make_const(DataType::Int(32), int64_t(1));
    for (const PrimExpr& d : b->shape) extent = mul(extent, d);
    extent = sub(extent, offset);
  }
  PrimExpr base = b->elem_offset.defined() ? b->elem_offset : make_const(index_type, int64_t(0));
  PrimExpr elem_offset = add(base, offset);
  DataType elem = b->dtype;
  if (lanes > 1) {
    elem = b->dtype.with_lanes(static_cast<int>(lanes));
    extent = div(extent, make_const(index_type, lanes));
    elem_offset = div(base, make_const(index_type, lanes));
  }
  if (Node e = arg(4, "extent"); !IsNull(e)) {
    Value ev = Eval(e);
    if (ev.kind != VK::kNone) extent = ToPrimAs(ev, index_type, e);
  }
  Span span = SpanOf(n);
  PrimExpr annotation = MakeCall(elem, GetOp("tirx.type_annotation"), {}, span);
  return Value::Expr(MakeCall(DataType::Handle(), GetOp("tirx.tvm_access_ptr"),
                              {annotation, b->data, elem_offset, extent,
                               make_const(DataType::Int(32), mask)},
                              span));
}

}  // namespace wb::script::detail
