// The parser's entry point, diagnostics, scopes and value conversions.
#include "script/parser_core.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "tir/op.h"

namespace wb::script {

ParseResult Parse(std::string_view text, std::string path) {
  detail::Parser parser(text, std::move(path));
  return parser.Run();
}

namespace detail {

using namespace wb::tir;

const char* DescribeKind(VK kind) {
  switch (kind) {
    case VK::kNone: return "None";
    case VK::kExpr: return "an expression";
    case VK::kInt: return "an int";
    case VK::kFloat: return "a float";
    case VK::kBool: return "a bool";
    case VK::kStr: return "a string";
    case VK::kBuffer: return "a buffer";
    case VK::kScalarBuf: return "a scalar";
    case VK::kRegion: return "a buffer region";
    case VK::kList: return "a list";
    case VK::kTuple: return "a tuple";
    case VK::kDict: return "a dict";
    case VK::kSlice: return "a slice";
    case VK::kNamespace: return "a module";
    case VK::kBuiltin: return "a function";
    case VK::kDType: return "a dtype";
    case VK::kType: return "a type";
    case VK::kLetType: return "T.let";
    case VK::kGlobal: return "a global function";
    case VK::kClass: return "the module class";
    case VK::kObject: return "an IR object";
    case VK::kTypeVar: return "a TypeVar";
    case VK::kLambda: return "a lambda";
    case VK::kMethod: return "a method";
    case VK::kBufferSpec: return "a buffer declaration";
    case VK::kAxis: return "a block axis";
    case VK::kLoops: return "a loop range";
    case VK::kFrame: return "a frame (use it in a with statement)";
  }
  return "a value";
}

std::optional<DataType> DTypeFromName(std::string_view name) {
  static const std::unordered_map<std::string_view, DataType> aliases = {
      {"f16", DataType::Float(16)}, {"f32", DataType::Float(32)}, {"f64", DataType::Float(64)},
      {"bf16", DataType::BFloat(16)}, {"i8", DataType::Int(8)},   {"i16", DataType::Int(16)},
      {"i32", DataType::Int(32)},   {"i64", DataType::Int(64)},   {"u8", DataType::UInt(8)},
      {"u16", DataType::UInt(16)},  {"u32", DataType::UInt(32)},  {"u64", DataType::UInt(64)},
      {"boolean", DataType::Bool()}, {"bool", DataType::Bool()},  {"handle", DataType::Handle()},
      {"void", DataType::Void()},
  };
  if (auto it = aliases.find(name); it != aliases.end()) return it->second;
  // Only spelled-out widths are constructors (T.int32, not T.int).
  if (name.empty() || !std::isdigit(static_cast<unsigned char>(name.back()))) return std::nullopt;
  return DataType::Parse(name);
}

Parser::Parser(std::string_view text, std::string path) {
  file_ = std::make_shared<SourceFile>(std::move(path), std::string(text));
  main_cst_ = std::make_unique<Cst>(file_, file_->text(), 0);
  cst_ = main_cst_.get();
}

ParseResult Parser::Run() {
  ParseResult result;
  try {
    if (!cst_->ok()) {
      diags_.Error("internal error: the Python grammar could not be loaded", Span(file_, 0, 0));
    } else {
      cst_->CollectSyntaxErrors(diags_);
      PushScope();
      ParseTopLevel(cst_->root());
    }
  } catch (const ParseAbort&) {
  } catch (const std::exception& e) {
    diags_.Error(std::string("internal error: ") + e.what(), Span(file_, 0, 0));
  }
  if (!funcs_.empty() || is_module_) {
    result.module = ir::MakeIRModule(parsed_gvars_, funcs_, module_attrs_, Span(file_, 0, 0));
    if (!module_global_infos_.empty()) {
      result.module.CopyOnWrite()->global_infos = module_global_infos_;
    }
  }
  result.is_module = is_module_;
  result.recovered = std::move(recovered_);
  for (const auto& gv : parsed_gvars_) {
    if (module_unchecked_ || std::find(unchecked_.begin(), unchecked_.end(), gv->name_hint) != unchecked_.end()) {
      result.unchecked.push_back(gv);
    }
  }
  diags_.SortByPosition();
  result.diagnostics = std::move(diags_);
  return result;
}

void Parser::Error(Node n, std::string message) {
  diags_.Error(std::move(message), IsNull(n) ? Span(file_, 0, 0) : SpanOf(n));
}

void Parser::Fail(Node n, std::string message) {
  Error(n, std::move(message));
  throw ParseAbort{};
}

const Value* Parser::Lookup(std::string_view name) const {
  for (auto it = scopes_.rbegin(); it != scopes_.rend(); ++it) {
    auto found = it->find(name);
    if (found != it->end()) return &found->second;
  }
  static const std::unordered_map<std::string_view, Value> globals = [] {
    std::unordered_map<std::string_view, Value> g;
    for (const char* t : {"T", "tir", "tirx"}) g[t] = Value::Named(VK::kNamespace, "T");
    for (const char* t : {"I", "ir"}) g[t] = Value::Named(VK::kNamespace, "I");
    for (const char* t : {"R", "relax"}) g[t] = Value::Named(VK::kNamespace, "R");
    g["tvm"] = Value::Named(VK::kNamespace, "tvm");
    for (const char* t : {"range", "TypeVar", "len", "int", "float", "bool", "str"}) {
      g[t] = Value::Named(VK::kBuiltin, t);
    }
    return g;
  }();
  auto found = globals.find(name);
  return found == globals.end() ? nullptr : &found->second;
}

PrimExpr Parser::ToPrim(const Value& v, Node n) {
  switch (v.kind) {
    case VK::kExpr: return v.expr;
    case VK::kInt: {
      bool fits = v.i >= std::numeric_limits<int32_t>::min() &&
                  v.i <= std::numeric_limits<int32_t>::max();
      return MakeIntImm(fits ? DataType::Int(32) : DataType::Int(64), v.i, SpanOf(n));
    }
    case VK::kFloat: return MakeFloatImm(DataType::Float(32), v.f, SpanOf(n));
    case VK::kBool: return MakeIntImm(DataType::Bool(), v.i, SpanOf(n));
    case VK::kStr: return MakeStringImm(v.s, SpanOf(n));
    case VK::kScalarBuf: {
      Buffer b = Downcast<BufferNode>(v.obj);
      return MakeBufferLoad(b, {MakeIntImm(DataType::Int(32), 0)}, {}, SpanOf(n));
    }
    case VK::kRegion:
      if (v.expr.defined()) return v.expr;
      return LoadFromRegion(Downcast<BufferRegionNode>(v.obj), n);
    default: break;
  }
  Fail(n, std::string("expected a PrimExpr, got ") + DescribeKind(v.kind));
}

bool IntLiteralFits(DataType t, int64_t v) {
  if (t.is_bool()) return v == 0 || v == 1;
  if (t.bits() < 1) return false;
  if (t.is_floating_point() || t.bits() >= 64) return !t.is_uint() || v >= 0;
  if (t.is_uint()) return v >= 0 && v < (int64_t{1} << t.bits());
  int64_t half = int64_t{1} << (t.bits() - 1);
  return v >= -half && v < half;
}

PrimExpr Parser::ToPrimAs(const Value& v, DataType like, Node n) {
  if (v.is_number() && !like.is_void() && !like.is_handle()) {
    DataType t = like;
    if (v.kind == VK::kFloat && !t.is_floating_point()) return ToPrim(v, n);
    // A literal that does not fit the other operand's type keeps its own (int64), as TVM's
    // conversion of a Python int does; the operation then promotes or refuses.
    if (v.kind != VK::kFloat && !IntLiteralFits(t.element_of(), v.i)) return ToPrim(v, n);
    PrimExpr c = v.kind == VK::kFloat ? make_const(t, v.f, SpanOf(n)) : make_const(t, v.i, SpanOf(n));
    return c;
  }
  return ToPrim(v, n);
}

DataType Parser::ToDType(const Value& v, Node n) {
  if (v.kind == VK::kDType) return v.dtype;
  if (v.kind == VK::kStr) {
    if (v.s.empty()) return DataType::Void();
    if (auto t = DataType::Parse(v.s)) return *t;
    Fail(n, "unknown dtype '" + v.s + "'");
  }
  if (v.kind == VK::kNone) return DataType::Void();
  Fail(n, std::string("expected a dtype, got ") + DescribeKind(v.kind));
}

std::string Parser::ToStr(const Value& v, Node n) {
  if (v.kind == VK::kStr) return v.s;
  if (v.kind == VK::kExpr) {
    if (auto* s = v.expr.as<StringImmNode>()) return s->value;
  }
  Fail(n, std::string("expected a string, got ") + DescribeKind(v.kind));
}

int64_t Parser::ToInt(const Value& v, Node n) {
  if (v.kind == VK::kInt || v.kind == VK::kBool) return v.i;
  if (v.kind == VK::kExpr) {
    if (const int64_t* c = AsConstInt(v.expr)) return *c;
  }
  Fail(n, std::string("expected a constant integer, got ") + DescribeKind(v.kind));
}

bool Parser::ToBool(const Value& v, Node n) {
  if (v.kind == VK::kBool || v.kind == VK::kInt) return v.i != 0;
  if (v.kind == VK::kExpr) {
    if (const int64_t* c = AsConstInt(v.expr)) return *c != 0;
  }
  Fail(n, std::string("expected True or False, got ") + DescribeKind(v.kind));
}

ObjectRef Parser::ToAttrValue(const Value& v, Node n) {
  switch (v.kind) {
    case VK::kNone: return ObjectRef();
    case VK::kInt: return ir::MakeInt(v.i);
    case VK::kBool: return ir::MakeBool(v.i != 0);
    case VK::kFloat: return ir::MakeFloat(v.f);
    case VK::kStr: return ir::MakeString(v.s);
    case VK::kExpr: return v.expr;
    case VK::kBuffer:
    case VK::kScalarBuf:
    case VK::kObject:
    case VK::kGlobal:
    case VK::kRegion:
    case VK::kType: return v.obj;
    case VK::kDType: return ir::MakeString(v.dtype.ToString());
    case VK::kList:
    case VK::kTuple: {
      std::vector<ObjectRef> items;
      for (const auto& item : v.items) items.push_back(ToAttrValue(item, n));
      return ir::MakeArray(std::move(items));
    }
    case VK::kDict: {
      ir::AttrMap map;
      for (size_t i = 0; i + 1 < v.items.size(); i += 2) {
        map[ToStr(v.items[i], n)] = ToAttrValue(v.items[i + 1], n);
      }
      return ir::MakeMap(std::move(map));
    }
    case VK::kLambda: return LambdaIndexMap(v.node, DataType::Int(64));
    default: break;
  }
  Fail(n, std::string("cannot use ") + DescribeKind(v.kind) + " as an attribute value");
}

Buffer Parser::ToBuffer(const Value& v, Node n) {
  if (v.kind == VK::kBuffer || v.kind == VK::kScalarBuf) return Downcast<BufferNode>(v.obj);
  Fail(n, std::string("expected a buffer, got ") + DescribeKind(v.kind));
}

std::vector<Value> Parser::ToSeq(const Value& v, Node n) {
  if (v.is_seq()) return v.items;
  return {v};
}

std::string Parser::StringLiteral(Node n) {
  Node fstring = nullptr;
  std::string out = StringValue(*cst_, n, &fstring);
  if (fstring) Fail(fstring, "f-strings are not supported in TVMScript");
  return out;
}

}  // namespace detail
}  // namespace wb::script
