// Relax expressions and types in TVMScript: R.Tensor / R.Tuple / R.Shape / R.Prim / R.Object /
// R.Callable annotations, value constructors (R.const, R.shape, R.prim_value, R.str, R.dtype,
// R.tuple), R.call_tir / R.call_tir_inplace / R.call_dps_packed, registered ops with their
// attributes, calls of module and local functions, tuples, indexing and operator sugar. Types
// come from the op registry's inference as each expression is built.
#include <cerrno>
#include <cmath>
#include <cstring>
#include <functional>
#include <set>

#include "ir/structural_equal.h"
#include "relax/type.h"
#include "relax/type_analysis.h"
#include "runtime/half.h"
#include "script/relax_parser.h"

#include <cmath>
#include "script/relax_printer.h"
#include "tir/functor.h"
#include "tir/op.h"

namespace wb::script::detail {

using namespace wb::relax;  // NOLINT(google-build-using-namespace): node names are the vocabulary

namespace {

bool StartsWith(std::string_view s, std::string_view prefix) { return s.rfind(prefix, 0) == 0; }

// `R.x` / `relax.x` -> "x"; empty when the name is not in the Relax namespace.
std::string RelaxName(std::string_view qualified) {
  if (StartsWith(qualified, "R.")) return std::string(qualified.substr(2));
  if (StartsWith(qualified, "relax.")) return std::string(qualified.substr(6));
  return "";
}

ir::PrimExpr AsInt64(const ir::PrimExpr& e) {
  if (auto* i = e.as<tir::IntImmNode>(); i && i->dtype != DataType::Int(64)) {
    return tir::MakeIntImm(DataType::Int(64), i->value, e->span);
  }
  return e;
}

}  // namespace

std::string RelaxParser::TypeText(const ir::Type& t) {
  return printer::RelaxPrinter::TypeText(t);
}

Args RelaxParser::CollectArgs(Node n) {
  Args args;
  args.call = n;
  Node list = p_.Field(n, p_.F().arguments);
  if (IsNull(list)) return args;
  for (Node a : p_.cst_->Children(list)) {
    if (p_.Kind(a) == K::kKeywordArgument) {
      args.kw.emplace_back(p_.Text(p_.Field(a, p_.F().name)), p_.Field(a, p_.F().value));
    } else if (p_.Kind(a) == K::kListSplat || p_.Kind(a) == K::kDictionarySplat) {
      p_.Fail(a, "'*' and '**' arguments are not supported");
    } else {
      args.pos.push_back(a);
    }
  }
  return args;
}

// --- types -----------------------------------------------------------------------------------

ir::PrimExpr RelaxParser::EvalDim(Node n) {
  if (IsNull(n)) p_.Fail(n, "expected a dimension");
  if (p_.Kind(n) == K::kString) {
    // A quoted dim: names not yet defined become new int64 symbolic vars.
    std::string text = p_.StringLiteral(n);
    for (size_t i = 0; i < text.size();) {
      if (std::isalpha(static_cast<unsigned char>(text[i])) || text[i] == '_') {
        size_t j = i;
        while (j < text.size() && (std::isalnum(static_cast<unsigned char>(text[j])) || text[j] == '_')) ++j;
        bool attr = (i > 0 && text[i - 1] == '.') || (j < text.size() && text[j] == '.');
        std::string name = text.substr(i, j - i);
        if (!attr && !p_.Lookup(name)) {
          // The key must outlive the scope: point it into the source text of the string.
          std::string_view src = p_.Text(n);
          size_t at = src.find(name);
          while (at != std::string_view::npos) {
            bool left_ok = at == 0 || !(std::isalnum(static_cast<unsigned char>(src[at - 1])) || src[at - 1] == '_');
            size_t e = at + name.size();
            bool right_ok = e >= src.size() || !(std::isalnum(static_cast<unsigned char>(src[e])) || src[e] == '_');
            if (left_ok && right_ok) break;
            at = src.find(name, at + 1);
          }
          if (at != std::string_view::npos) {
            p_.scopes_[p_.func_scope_][src.substr(at, name.size())] =
                Value::Expr(tir::MakeVar(name, DataType::Int(64), p_.SpanOf(n)));
          }
        }
        i = j;
      } else {
        ++i;
      }
    }
    Value v = p_.ParseQuoted(n, DataType::Int(64));
    return AsInt64(p_.ToPrim(v, n));
  }
  Value v = p_.Eval(n);
  if (v.kind == VK::kInt) return tir::MakeIntImm(DataType::Int(64), v.i, p_.SpanOf(n));
  return AsInt64(p_.ToPrim(v, n));
}

std::vector<ir::PrimExpr> RelaxParser::EvalDims(Node n) {
  std::vector<ir::PrimExpr> dims;
  if (p_.Kind(n) == K::kTuple || p_.Kind(n) == K::kList) {
    for (Node d : p_.cst_->Children(n)) dims.push_back(EvalDim(d));
    return dims;
  }
  if (p_.Kind(n) == K::kParenthesized) {
    dims.push_back(EvalDim(p_.cst_->Children(n).at(0)));
    return dims;
  }
  p_.Fail(n, "expected a shape such as (n, 4)");
}

ir::Type RelaxParser::EvalType(Node n) {
  if (IsNull(n)) p_.Fail(n, "expected a type");
  if (p_.Kind(n) == K::kNone) return ir::MakeTupleType({});
  if (p_.Kind(n) == K::kString) p_.Fail(n, "a type annotation cannot be a string");
  return ToType(Eval(n), n);
}

ir::Type RelaxParser::ToType(const Value& v, Node n) {
  if (v.kind == VK::kType && v.obj.defined()) return Downcast<ir::TypeNode>(v.obj);
  if (v.kind == VK::kDType) return ir::MakePrimType(v.dtype);
  if (v.kind == VK::kNone) return ir::MakeTupleType({});
  p_.Fail(n, std::string("expected a Relax type such as R.Tensor((n,), \"float32\"), got ") +
                 DescribeKind(v.kind));
}

// --- evaluation ------------------------------------------------------------------------------

Value RelaxParser::Eval(Node n) {
  if (IsNull(n)) p_.Fail(n, "expected an expression");
  DepthGuard guard(&p_, n);
  switch (p_.Kind(n)) {
    case K::kIdentifier: {
      std::string_view name = p_.Text(n);
      const Value* found = p_.Lookup(name);
      if (!found) {
        if (closed_dataflow_vars_.count(std::string(name))) {
          p_.Fail(n, "'" + std::string(name) +
                         "' is a dataflow variable and is not visible outside its R.dataflow() "
                         "block; list it in R.output(...) to use it here");
        }
        p_.Fail(n, "undefined name '" + std::string(name) + "'");
      }
      if (found->kind == VK::kTypeVar) return p_.Eval(n);
      return *found;
    }
    case K::kParenthesized: return Eval(p_.cst_->Children(n).at(0));
    case K::kTuple:
    case K::kList: {
      Value v;
      v.kind = p_.Kind(n) == K::kTuple ? VK::kTuple : VK::kList;
      for (Node c : p_.cst_->Children(n)) v.items.push_back(Eval(c));
      return v;
    }
    case K::kCall: return EvalCall(n);
    case K::kAttribute: {
      std::string_view text = p_.Text(n);
      std::string rname = RelaxName(text);
      if (rname == "Object" || rname == "Any") return Value::Of(VK::kType, MakeObjectType(p_.SpanOf(n)));
      if (rname == "Tensor") return Value::Of(VK::kType, MakeTensorType(DataType::Void(), kUnknownNDim, p_.SpanOf(n)));
      if (rname == "Tuple") return Value::Of(VK::kType, ir::MakeTupleType({}));
      if (rname == "Shape") return Value::Of(VK::kType, MakeShapeType(kUnknownNDim, p_.SpanOf(n)));
      if (rname == "Callable") return Value::Of(VK::kType, MakePackedFuncType(MakeObjectType(), false, p_.SpanOf(n)));
      if (!rname.empty()) p_.Fail(n, "unknown name '" + std::string(text) + "'");
      Node obj = p_.Field(n, p_.F().object);
      if (p_.Text(p_.Field(n, p_.F().attribute)) == "ty") {
        // `x.ty`: a Relax value's type (tvm.relax.Expr.ty), as in `ty_args=[x.ty]`.
        Value base = Eval(obj);
        if (base.kind == VK::kObject && IsExpr(base.obj.get())) {
          Expr e = Normalize(Downcast<ExprNode>(base.obj), obj);
          if (Type t = GetType(e); t.defined()) return Value::Of(VK::kType, t);
        }
      }
      if (p_.Kind(obj) == K::kIdentifier) {
        const Value* base = p_.Lookup(p_.Text(obj));
        if (base && base->kind == VK::kClass) {
          std::string_view attr = p_.Text(p_.Field(n, p_.F().attribute));
          for (const auto& gv : p_.gvars_) {
            if (gv->name_hint == attr) return Value::Of(VK::kGlobal, gv);
          }
          p_.Fail(p_.Field(n, p_.F().attribute),
                  "the module has no function '" + std::string(attr) + "'");
        }
      }
      return p_.Eval(n);
    }
    case K::kSubscript: {
      Node value = p_.Field(n, p_.F().value);
      if (p_.Text(value) == "metadata") p_.Fail(n, "metadata[...] needs a key and an index");
      if (p_.Kind(value) == K::kSubscript && p_.Text(p_.Field(value, p_.F().value)) == "metadata") {
        return Value::Of(VK::kObject, MetadataItem(value, n));
      }
      Value base = Eval(value);
      auto subs = p_.cst_->Children(n);
      if (subs.size() != 2) p_.Fail(n, "a Relax tuple takes one index");
      Value idx = p_.Eval(subs[1]);
      if (idx.kind != VK::kInt) p_.Fail(subs[1], "a tuple index must be an integer literal");
      Expr tuple = Normalize(ToExpr(base, value), value);
      return Value::Of(VK::kObject, Normalize(MakeTupleGetItem(tuple, idx.i, p_.SpanOf(n)), n));
    }
    case K::kBinaryOperator:
    case K::kUnaryOperator:
    case K::kComparisonOperator: {
      // Operator sugar on tensors becomes the op call; on PrimExprs it stays TensorIR.
      std::vector<Node> operands = p_.cst_->Children(n);
      // A negative integer literal is a number (and -9223372036854775808 only reads whole).
      if (operands.size() == 1 && p_.Kind(operands[0]) == K::kInteger) return p_.Eval(n);
      std::vector<Value> values;
      bool relax = false;
      for (Node o : operands) {
        values.push_back(Eval(o));
        relax |= values.back().kind == VK::kObject;
      }
      if (!relax) return p_.Eval(n);
      std::string_view op;
      if (p_.Kind(n) == K::kComparisonOperator) {
        if (operands.size() != 2) p_.Fail(n, "chained comparisons of tensors are not supported");
        uint32_t b = operands[0]->end, e = operands[1]->begin;
        op = p_.Text(n).substr(b - n->begin, e - b);
        while (!op.empty() && op.front() == ' ') op.remove_prefix(1);
        while (!op.empty() && op.back() == ' ') op.remove_suffix(1);
      } else {
        op = p_.Text(p_.Field(n, p_.F().operator_));
      }
      static const std::map<std::string_view, std::string_view> binary = {
          {"+", "add"},        {"-", "subtract"}, {"*", "multiply"}, {"/", "divide"},
          {"//", "floor_divide"}, {"**", "power"}, {"<", "less"},  {"<=", "less_equal"},
          {">", "greater"},    {">=", "greater_equal"}};
      std::string name;
      if (values.size() == 1) {
        if (op != "-") p_.Fail(n, "unsupported unary operator on a tensor: '" + std::string(op) + "'");
        name = "negative";
      } else {
        auto it = binary.find(op);
        if (it == binary.end()) p_.Fail(n, "unsupported operator on tensors: '" + std::string(op) + "'");
        name = it->second;
      }
      const OpInfo* info = FindOpByScriptName(name);
      if (!info) p_.Fail(n, "unknown function 'R." + name + "'");
      std::vector<Expr> args;
      for (size_t i = 0; i < values.size(); ++i) args.push_back(ToExpr(values[i], operands[i]));
      Call call;
      try {
        call = MakeOpCall(info->name, args, {}, {}, p_.SpanOf(n));
      } catch (const DiagnosticError& e) {
        p_.Fail(n, e.diagnostic().message);
      }
      return Value::Of(VK::kObject, Normalize(call, n));
    }
    default: return p_.Eval(n);
  }
}

// `metadata["relax.expr.Constant"][i]`: an object from the module's metadata header.
ir::ObjectRef RelaxParser::MetadataItem(Node keyed, Node n) {
  const Value* meta = p_.Lookup("metadata");
  auto* map = meta && meta->kind == VK::kObject ? meta->obj.as<ir::MapObj>() : nullptr;
  if (!map) p_.Fail(n, "metadata[...] needs the `metadata = tvm.ir.load_json(...)` header");
  auto key_nodes = p_.cst_->Children(keyed);
  auto index_nodes = p_.cst_->Children(n);
  if (key_nodes.size() != 2 || index_nodes.size() != 2) p_.Fail(n, "expected metadata[\"key\"][index]");
  std::string key = p_.ToStr(p_.Eval(key_nodes[1]), key_nodes[1]);
  int64_t index = p_.ToInt(p_.Eval(index_nodes[1]), index_nodes[1]);
  auto it = map->items.find(key);
  auto* items = it == map->items.end() ? nullptr : it->second.as<ir::ArrayObj>();
  if (!items || index < 0 || index >= int64_t(items->items.size()) ||
      !IsExpr(items->items[size_t(index)].get())) {
    p_.Fail(n, "the metadata has no entry " + key + "[" + std::to_string(index) + "]");
  }
  return items->items[size_t(index)];
}

Value RelaxParser::EvalCall(Node n) {
  Node fn = p_.Field(n, p_.F().function);
  Args args = CollectArgs(n);
  std::string_view text = p_.Text(fn);
  if (p_.Kind(fn) == K::kAttribute) {
    if (text == "I.meta_var" || text == "ir.meta_var") {
      // A Python value spliced into the program (TVM's meta_var): the value itself.
      if (args.pos.size() != 1 || !args.kw.empty()) p_.Fail(n, std::string(text) + " expects one value");
      return Eval(args.pos[0]);
    }
    if (!RelaxName(text).empty()) return CallRelax(std::string(text), args);
    if (StartsWith(text, "T.")) return p_.Eval(n);
  }
  Value callee = Eval(fn);
  return CallFunction(callee, args, fn);
}

Value RelaxParser::CallFunction(const Value& callee, const Args& args, Node callee_node) {
  Node n = args.call;
  if (!args.kw.empty()) p_.Fail(args.kw[0].second, "a function call takes positional arguments only");
  std::vector<Expr> call_args;
  for (Node a : args.pos) call_args.push_back(ToExpr(Eval(a), a));
  Expr op;
  Type ret;
  if (callee.kind == VK::kGlobal) {
    auto gv = Downcast<ir::GlobalVarNode>(callee.obj);
    bool pure = true;
    Type t = TypeOfGlobal(gv, &pure);
    op = gv;
    if (auto* ft = t.as<FuncTypeNode>()) ret = ft->ret;
  } else if (callee.kind == VK::kObject && IsExpr(callee.obj.get())) {
    op = callee.obj;
    Type t = GetType(op);
    if (auto* ft = t.as<FuncTypeNode>()) {
      ret = ft->ret;
    } else if (auto* pt = t.as<PackedFuncTypeNode>()) {
      ret = pt->ret;
    } else {
      p_.Fail(callee_node, "'" + std::string(p_.Text(callee_node)) + "' of type " + TypeText(t) +
                               " is not callable");
    }
  } else {
    p_.Fail(callee_node, std::string("cannot call ") + DescribeKind(callee.kind));
  }
  for (auto& a : call_args) a = Normalize(a, n);
  // The callee's symbolic dims take the arguments' values (TVM's DeriveCallRetType): a callee
  // `f(A: (m, n)) -> (m, n)` called on a caller's (m', n') tensor returns (m', n'); a shape
  // with a var that no argument determines (one the callee binds inside) is forgotten, keeping
  // the rank.
  Type callee_type = callee.kind == VK::kGlobal ? Type() : GetType(op);
  if (callee.kind == VK::kGlobal) {
    bool pure = true;
    callee_type = TypeOfGlobal(Downcast<ir::GlobalVarNode>(callee.obj), &pure);
  }
  if (auto* ft = callee_type.as<FuncTypeNode>(); ft && ret.defined() && ft->params.size() == call_args.size()) {
    DimMap dims;
    for (size_t i = 0; i < call_args.size(); ++i) {
      if (Type at = GetType(call_args[i]); at.defined()) MatchDims(ft->params[i], at, &dims);
    }
    ret = SubstituteDims(EraseToWellDefined(ret, [&](const tir::VarNode* v) { return dims.count(v) != 0; }), dims);
  }
  Call call = MakeCall(op, call_args, {}, {}, p_.SpanOf(n));
  return Value::Of(VK::kObject, ret.defined() ? WithType(call, ret) : Expr(call));
}

namespace {

// Whether a PrimFunc stores into one of its parameters' buffers (TVM then counts it impure).
bool WritesParamBuffer(const tir::PrimFuncNode& func) {
  struct Finder : tir::StmtExprVisitor {
    std::set<const ir::Object*> params;
    bool found = false;
    using tir::StmtExprVisitor::VisitStmt_;
    void VisitStmt_(const tir::BufferStoreNode* op) override {
      found |= op->buffer.defined() && params.count(op->buffer->data.get());
      tir::StmtExprVisitor::VisitStmt_(op);
    }
  } finder;
  for (const auto& b : func.buffer_map) {
    if (b.defined()) finder.params.insert(b->data.get());
  }
  if (func.body.defined()) finder(func.body);
  return finder.found;
}

}  // namespace

ir::Type RelaxParser::TypeOfGlobal(const ir::GlobalVar& gv, bool* pure) {
  *pure = true;
  for (size_t i = 0; i < p_.parsed_gvars_.size(); ++i) {
    if (p_.parsed_gvars_[i].get() != gv.get()) continue;
    if (auto* f = p_.funcs_[i].as<FunctionNode>()) {
      *pure = f->is_pure;
      return f->struct_info;
    }
    if (auto* e = p_.funcs_[i].as<ExternFuncNode>()) return e->struct_info;
    if (auto* pf = p_.funcs_[i].as<tir::PrimFuncNode>()) {
      // As TVM types a PrimFunc for Relax: impure when it writes a buffer it is given,
      // returning its return type, or the empty tuple when it returns nothing.
      *pure = !WritesParamBuffer(*pf);
      Type ret = pf->ret_type.defined() ? pf->ret_type : Type(ir::MakeTupleType({}));
      return MakeFuncType({}, ret, false);
    }
    return Type();
  }
  // Not parsed yet (or failed): its declared signature from the source.
  auto it = p_.gvar_returns_.find(gv->name_hint);
  auto def_it = p_.gvar_definitions_.find(gv->name_hint);
  if (def_it == p_.gvar_definitions_.end()) return Type();
  Node decorated = def_it->second;
  for (Node d : p_.cst_->Children(decorated)) {
    if (p_.Kind(d) != K::kDecorator) continue;
    std::string_view text = p_.Text(d);
    text = text.substr(text.find_first_not_of("@ "));
    if (text.find("prim_func") != std::string_view::npos) {
      // A PrimFunc defined further down: its declared return dtype, the empty tuple without
      // one; whether it writes its arguments is not known before its body is read.
      *pure = false;
      if (it == p_.gvar_returns_.end()) return MakeFuncType({}, ir::MakeTupleType({}), false);
      Node rn = it->second;
      if (p_.Kind(rn) == K::kType && p_.cst_->NamedChildCount(rn) > 0) rn = p_.cst_->NamedChild(rn, 0);
      Value rv;
      try {
        rv = p_.Eval(rn);
      } catch (const ParseAbort&) {
        return Type();
      }
      if (rv.kind == VK::kNone) return MakeFuncType({}, ir::MakeTupleType({}), false);
      if (rv.kind == VK::kDType && !rv.dtype.is_void()) return MakeFuncType({}, ir::MakePrimType(rv.dtype), false);
      return Type();
    }
    if (text.find("pure=False") != std::string_view::npos) *pure = false;
    if (!IsRelaxDecorator(text)) return Type();
  }
  if (it == p_.gvar_returns_.end()) return Type();
  p_.PushScope();
  Type ret;
  try {
    bool saved = p_.in_signature_;
    ret = EvalType(p_.Kind(it->second) == K::kType && p_.cst_->NamedChildCount(it->second) > 0
                       ? p_.cst_->NamedChild(it->second, 0)
                       : it->second);
    p_.in_signature_ = saved;
  } catch (const ParseAbort&) {
    ret = Type();
  }
  p_.PopScope();
  return ret.defined() ? Type(MakeFuncType({}, ret, *pure)) : Type();
}

// --- conversions -----------------------------------------------------------------------------

Expr RelaxParser::ToExpr(const Value& v, Node n) {
  switch (v.kind) {
    case VK::kObject:
      if (IsExpr(v.obj.get())) return v.obj;
      break;
    case VK::kGlobal: return v.obj;
    case VK::kExpr: return MakePrimValue(v.expr, p_.SpanOf(n));
    case VK::kInt: return MakePrimValue(tir::MakeIntImm(DataType::Int(64), v.i, p_.SpanOf(n)), p_.SpanOf(n));
    case VK::kBool: return MakePrimValue(tir::MakeIntImm(DataType::Bool(), v.i, p_.SpanOf(n)), p_.SpanOf(n));
    case VK::kFloat: return MakePrimValue(tir::MakeFloatImm(DataType::Float(64), v.f, p_.SpanOf(n)), p_.SpanOf(n));
    case VK::kStr: return MakeStringImm(v.s, p_.SpanOf(n));
    case VK::kTuple:
    case VK::kList: {
      std::vector<Expr> fields;
      auto kids = p_.cst_->Children(n);
      for (size_t i = 0; i < v.items.size(); ++i) {
        Node at = i < kids.size() ? kids[i] : n;
        fields.push_back(Normalize(ToExpr(v.items[i], at), at));
      }
      return Normalize(MakeTuple(fields, p_.SpanOf(n)), n);
    }
    default: break;
  }
  p_.Fail(n, std::string("expected a Relax expression, got ") + DescribeKind(v.kind));
}

ir::ObjectRef RelaxParser::ToAttr(const AttrField& field, const Value& v, Node n) {
  auto ints = [&](const Value& x) {
    std::vector<ir::ObjectRef> items;
    for (const auto& item : x.items) {
      if (item.kind != VK::kInt) p_.Fail(n, "'" + field.name + "' expects integers");
      items.push_back(ir::MakeInt(item.i));
    }
    return ir::MakeArray(items);
  };
  switch (field.kind) {
    case AttrKind::kInt:
      if (v.kind == VK::kInt) return ir::MakeInt(v.i);
      break;
    case AttrKind::kFloat:
      if (v.kind == VK::kFloat || v.kind == VK::kInt) return ir::MakeFloat(v.kind == VK::kInt ? double(v.i) : v.f);
      break;
    case AttrKind::kBool:
      if (v.kind == VK::kBool) return ir::MakeBool(v.i);
      break;
    case AttrKind::kString:
      if (v.kind == VK::kStr) return ir::MakeString(v.s);
      break;
    case AttrKind::kDataType:
      if (v.kind == VK::kStr || v.kind == VK::kDType) {
        DataType dt = p_.ToDType(v, n);
        return DTypeAttr(dt);
      }
      if (v.kind == VK::kNone) return DTypeAttr(DataType::Void());
      break;
    case AttrKind::kIntArray:
      if (v.is_seq()) return ints(v);
      if (v.kind == VK::kInt) return ir::MakeArray({ir::MakeInt(v.i)});
      break;
    case AttrKind::kOptionalInt:
      if (v.kind == VK::kNone) return ir::ObjectRef();
      if (v.kind == VK::kInt) return ir::MakeInt(v.i);
      break;
    case AttrKind::kOptionalIntArray:
      if (v.kind == VK::kNone) return ir::ObjectRef();
      if (v.is_seq()) return ints(v);
      if (v.kind == VK::kInt) return ir::MakeArray({ir::MakeInt(v.i)});
      break;
    case AttrKind::kIntOrIntArray:
      if (v.kind == VK::kInt) return ir::MakeInt(v.i);
      if (v.is_seq()) return ints(v);
      break;
    case AttrKind::kObject:
      if (v.kind == VK::kNone) return ir::ObjectRef();
      if (v.kind == VK::kExpr) return v.expr;
      if (v.obj.defined()) return v.obj;
      return p_.ToAttrValue(v, n);
  }
  p_.Fail(n, "invalid value for attribute '" + field.name + "': " + DescribeKind(v.kind));
}

// --- registered ops and R.* builtins ---------------------------------------------------------

// A shape operand written as TVM's Python API takes it, a tuple or list of dims (`(n, 4)`),
// becomes the ShapeExpr `R.shape([n, 4])`; any other form is an ordinary expression.
Expr RelaxParser::ShapeOperand(const OpInfo& info, Node a) {
  if (p_.Kind(a) != K::kTuple && p_.Kind(a) != K::kList) return Normalize(ToExpr(Eval(a), a), a);
  std::vector<ir::PrimExpr> dims;
  for (Node d : p_.cst_->Children(a)) {
    Value v = Eval(d);
    if (v.kind == VK::kInt) {
      dims.push_back(tir::MakeIntImm(DataType::Int(64), v.i, p_.SpanOf(d)));
    } else if (v.kind == VK::kExpr && v.expr.defined() && v.expr->dtype.is_int()) {
      dims.push_back(AsInt64(v.expr));
    } else {
      std::string got = std::string(DescribeKind(v.kind));
      if (v.kind == VK::kExpr && v.expr.defined()) got = "a " + v.expr->dtype.ToString() + " expression";
      if (v.kind == VK::kObject && IsExpr(v.obj.get())) {
        Type t = GetType(Downcast<ExprNode>(v.obj));
        got = "a Relax value" + (t.defined() ? " of type " + TypeText(t) : std::string());
      }
      p_.Fail(d, "a dimension of the shape of R." + info.script_name() +
                     " must be an integer or an integer expression such as n * 2, got " + got);
    }
  }
  return Normalize(MakeShapeExpr(dims, p_.SpanOf(a)), a);
}

Value RelaxParser::CallOp(const OpInfo& info, const Args& args) {
  Node n = args.call;
  std::vector<Expr> call_args;
  ir::AttrMap attrs;
  size_t nargs = info.arg_names.size();
  // The registry names an op's arguments as TVM's Python API does; `shape` and `size` are shape
  // operands (R.zeros, R.ones, R.full, R.reshape, R.broadcast_to, R.memory.alloc_tensor,
  // R.image.resize2d, R.memory.alloc_storage, ...).
  auto operand = [&](size_t index, Node a) {
    if (index < nargs && (info.arg_names[index] == "shape" || info.arg_names[index] == "size")) {
      return ShapeOperand(info, a);
    }
    Value v = Eval(a);
    // A callee written as a string is the packed function of that name (TVM prints an
    // ExternFunc first argument so).
    if (index == 0 && index < nargs && info.arg_names[0] == "func" && v.kind == VK::kStr) {
      return Normalize(MakeExternFunc(v.s, {}, p_.SpanOf(a)), a);
    }
    // A dtype operand written as a string (TVM's Python API wraps it in R.dtype).
    if (index < nargs && info.arg_names[index] == "dtype" && (v.kind == VK::kStr || v.kind == VK::kDType)) {
      return Normalize(MakeDataTypeImm(p_.ToDType(v, a), p_.SpanOf(a)), a);
    }
    return Normalize(ToExpr(v, a), a);
  };
  for (size_t i = 0; i < args.pos.size(); ++i) {
    Node a = args.pos[i];
    if (i < nargs || info.variadic) {
      call_args.push_back(operand(i, a));
    } else if (i - nargs < info.attrs.size()) {
      const AttrField& field = info.attrs[i - nargs];
      attrs[field.name] = ToAttr(field, Eval(a), a);
    } else {
      size_t most = nargs + info.attrs.size();
      p_.Fail(a, "R." + info.script_name() + " takes at most " + std::to_string(most) +
                     (most == 1 ? " argument" : " arguments"));
    }
  }
  std::vector<Type> ty_args;
  std::map<size_t, Node> keyword_args;
  for (const auto& [key, node] : args.kw) {
    if (key == "ty_args" || key == "sinfo_args") {
      if (!info.ty_args) p_.Fail(node, "'" + std::string(key) + "' is not supported for R." + info.script_name());
      if (p_.Kind(node) == K::kTuple || p_.Kind(node) == K::kList) {
        for (Node t : p_.cst_->Children(node)) ty_args.push_back(EvalType(t));
      } else {
        ty_args.push_back(EvalType(node));
      }
      continue;
    }
    if (const AttrField* field = info.FindAttr(key)) {
      attrs[field->name] = ToAttr(*field, Eval(node), node);
      continue;
    }
    auto it = std::find(info.arg_names.begin(), info.arg_names.end(), key);
    if (it == info.arg_names.end()) {
      p_.Fail(node, "R." + info.script_name() + " has no argument or attribute '" +
                        std::string(key) + "'");
    }
    size_t index = size_t(it - info.arg_names.begin());
    if (index < call_args.size() || keyword_args.count(index)) {
      p_.Fail(node, "R." + info.script_name() + " got argument '" + std::string(key) + "' twice");
    }
    keyword_args[index] = node;
  }
  // Keyword arguments in argument order; one that is left out before a given one takes its
  // default, as in TVM's Python API, and so do the trailing ones.
  for (const auto& [index, node] : keyword_args) {
    while (call_args.size() < index) {
      Expr d = info.default_arg ? info.default_arg(call_args.size()) : Expr();
      if (!d.defined()) {
        p_.Fail(node, "R." + info.script_name() + ": argument '" + std::string(info.arg_names[index]) +
                          "' is given but '" + info.arg_names[call_args.size()] + "' before it is not");
      }
      call_args.push_back(Normalize(d, n));
    }
    call_args.push_back(operand(index, node));
  }
  while (info.default_arg && call_args.size() < nargs) {
    Expr d = info.default_arg(call_args.size());
    if (!d.defined()) break;
    call_args.push_back(Normalize(d, n));
  }
  Call call;
  try {
    call = MakeOpCall(info.name, call_args, attrs, std::move(ty_args), p_.SpanOf(n));
  } catch (const DiagnosticError& e) {
    p_.Fail(n, e.diagnostic().message);
  }
  return Value::Of(VK::kObject, Normalize(call, n));
}

// TVM's relax.const: a Python number, bool or (nested) list goes through numpy's array, whose
// default dtype TVM narrows to int32 / float32 (a list holding a float is float32).
relax::Constant RelaxParser::MakeConst(Node vn, Node dn, Span span) {
  std::vector<Value> leaves;
  std::vector<Node> leaf_nodes;
  std::vector<int64_t> shape;
  bool shape_known = false;
  // Flattens row-major, checking that every nesting level has one length (numpy refuses ragged
  // lists for a numeric dtype).
  std::function<void(const Value&, Node, size_t)> flatten = [&](const Value& v, Node at, size_t depth) {
    if (v.is_seq()) {
      if (shape_known && (depth >= shape.size() || shape[depth] != int64_t(v.items.size()))) {
        p_.Fail(at, "R.const: the nested lists have different lengths (numpy needs a rectangular array)");
      }
      if (!shape_known) shape.push_back(int64_t(v.items.size()));
      auto kids = p_.cst_->Children(at);
      if (v.items.empty()) shape_known = true;
      for (size_t i = 0; i < v.items.size(); ++i) {
        flatten(v.items[i], i < kids.size() ? kids[i] : at, depth + 1);
      }
      return;
    }
    if (shape_known && depth != shape.size()) {
      p_.Fail(at, "R.const: the nested lists have different depths (numpy needs a rectangular array)");
    }
    shape_known = true;
    Value x = v;
    if (p_.Kind(at) == K::kUnaryOperator && x.kind == VK::kExpr) {
      // -1 / -2.0 evaluate through TIR folding to immediates.
      if (auto* i = x.expr.as<tir::IntImmNode>()) x = Value::Int(i->value);
      else if (auto* f = x.expr.as<tir::FloatImmNode>()) x = Value::Float(f->value);
    }
    leaves.push_back(std::move(x));
    leaf_nodes.push_back(at);
  };
  Value top = p_.Eval(vn);
  flatten(top, vn, 0);
  if (!top.is_seq()) shape.clear();
  DataType want = IsNull(dn) ? DataType::Void() : p_.ToDType(p_.Eval(dn), dn);
  for (size_t k = 0; k < leaves.size(); ++k) {
    Value& v = leaves[k];
    if (v.kind == VK::kStr && !want.is_void()) {
      // numpy reads a number from a string (np.array("inf", "float32")): TVM prints an infinite
      // or NaN constant so.
      char* end = nullptr;
      errno = 0;
      if (want.is_float()) {
        double x = std::strtod(v.s.c_str(), &end);
        if (!v.s.empty() && *end == '\0') v = Value::Float(x);
      } else if (want.is_int() || want.is_uint()) {
        long long x = std::strtoll(v.s.c_str(), &end, 10);
        if (!v.s.empty() && *end == '\0' && errno != ERANGE) v = Value::Int(x);
      }
      if (v.kind == VK::kStr) p_.Fail(leaf_nodes[k], "R.const: '" + v.s + "' is not a " + want.ToString() + " value");
    }
    if (!v.is_number()) {
      p_.Fail(leaf_nodes[k], std::string("R.const expects a number, a bool or a list of them, got ") +
                                 DescribeKind(v.kind));
    }
  }
  DataType dt = want;
  if (dt.is_void()) {
    // numpy's promotion over the elements: bool < int < float.
    int rank = 0;
    for (const Value& v : leaves) rank = std::max(rank, v.kind == VK::kBool ? 0 : v.kind == VK::kInt ? 1 : 2);
    dt = leaves.empty() ? DataType::Float(32)
         : rank == 0    ? DataType::Bool()
         : rank == 1    ? DataType::Int(32)
                        : DataType::Float(32);
  }
  bool supported = (dt.is_float() && (dt.bits() == 16 || dt.bits() == 32 || dt.bits() == 64)) ||
                   dt.is_bool() || ((dt.is_int() || dt.is_uint()) && dt.bits() % 8 == 0);
  if (!supported || dt.lanes() != 1) {
    p_.Fail(IsNull(dn) ? vn : dn, "R.const does not support dtype " + dt.ToString());
  }
  size_t width = size_t(dt.bits() / 8 ? dt.bits() / 8 : 1);
  std::string data(width * leaves.size(), '\0');
  for (size_t k = 0; k < leaves.size(); ++k) {
    const Value& v = leaves[k];
    Node at = leaf_nodes[k];
    char* out = data.data() + k * width;
    if (v.kind == VK::kInt && (dt.is_int() || dt.is_uint()) && !IntLiteralFits(dt, v.i)) {
      p_.Fail(at, "R.const: " + std::to_string(v.i) + " is out of range for " + dt.ToString());
    }
    double d = v.kind == VK::kFloat ? v.f : double(v.i);
    int64_t i = v.kind == VK::kFloat ? 0 : v.i;
    if (v.kind == VK::kFloat && !dt.is_float()) {
      // A float given an integer dtype truncates, as numpy's astype does, when it fits.
      if (!(std::isfinite(v.f) && v.f >= -9223372036854775808.0 && v.f < 9223372036854775808.0)) {
        p_.Fail(at, "R.const: " + std::string(p_.Text(at)) + " is out of range for " + dt.ToString());
      }
      i = int64_t(v.f);
    }
    if (dt.is_float() && dt.bits() == 32) { float f = float(d); std::memcpy(out, &f, 4); }
    else if (dt.is_float() && dt.bits() == 64) { std::memcpy(out, &d, 8); }
    else if (dt.is_float()) { uint16_t h = runtime::DoubleToHalfBits(d); std::memcpy(out, &h, 2); }
    else if (dt.is_bool()) { out[0] = char(d != 0); }
    else { std::memcpy(out, &i, width); }
  }
  return MakeConstant(dt, std::move(shape), std::move(data), span);
}

Value RelaxParser::CallTIR(const std::string& name, const Args& args) {
  Node n = args.call;
  bool inplace = name == "call_tir_inplace";
  if (args.pos.size() < 2) p_.Fail(n, "R." + name + " expects a callee, the arguments and out_ty");
  Node callee_node = args.pos[0];
  Expr callee;
  Value cv = Eval(callee_node);
  if (cv.kind == VK::kStr) {
    callee = MakeExternFunc(cv.s, {}, p_.SpanOf(callee_node));
  } else if (cv.kind == VK::kGlobal || (cv.kind == VK::kObject && IsExpr(cv.obj.get()))) {
    callee = cv.obj;
  } else {
    p_.Fail(callee_node, "R." + name + " expects a function of the module (cls.f) or a name");
  }
  Node args_node = args.pos[1];
  Value av = Eval(args_node);
  Expr call_args;
  if (av.kind == VK::kTuple || av.kind == VK::kList) {
    call_args = ToExpr(av, args_node);
  } else {
    // Anything but a tuple expression (`()` included) is the one argument, as in TVM's API.
    Expr single = Normalize(ToExpr(av, args_node), args_node);
    call_args = single.as<TupleNode>() ? single : Normalize(MakeTuple({single}, p_.SpanOf(args_node)), args_node);
  }
  // TVM's order: call_tir(gvar, args, out_ty), call_tir_inplace(gvar, args, inplace_indices,
  // out_ty), call_tir_with_grad(gvar, args, out_ty, te_grad_name, te_grad_kwargs).
  size_t out_pos = inplace ? 3 : 2;
  Node out_node = args.pos.size() > out_pos ? args.pos[out_pos] : args.Kw("out_ty");
  if (IsNull(out_node)) out_node = args.Kw("out_sinfo");
  if (IsNull(out_node)) p_.Fail(n, "R." + name + " needs out_ty=");
  Type out;
  if (p_.Kind(out_node) == K::kList) {
    std::vector<Type> fields;
    for (Node f : p_.cst_->Children(out_node)) fields.push_back(EvalType(f));
    out = ir::MakeTupleType(fields);
  } else {
    out = EvalType(out_node);
  }
  ir::AttrMap attrs;
  if (inplace) {
    Node idx = args.pos.size() > 2 ? args.pos[2] : args.Kw("inplace_indices");
    if (IsNull(idx)) p_.Fail(n, "R.call_tir_inplace needs inplace_indices=");
    Value iv = Eval(idx);
    std::vector<ir::ObjectRef> items;
    if (iv.kind == VK::kInt) items.push_back(ir::MakeInt(iv.i));
    for (const auto& item : iv.items) {
      if (item.kind != VK::kInt) p_.Fail(idx, "inplace_indices must be integers");
      items.push_back(ir::MakeInt(item.i));
    }
    attrs["inplace_indices"] = ir::MakeArray(items);
  }
  bool with_grad = name == "call_tir_with_grad";
  if (with_grad) {
    // TVM's R.call_tir_with_grad(func, args, out_ty, te_grad_name, te_grad_kwargs=None).
    Node grad_name = args.pos.size() > 3 ? args.pos[3] : args.Kw("te_grad_name");
    if (IsNull(grad_name)) p_.Fail(n, "R.call_tir_with_grad needs te_grad_name=");
    Value gv = Eval(grad_name);
    if (gv.kind != VK::kStr) p_.Fail(grad_name, "te_grad_name must be a string");
    attrs["te_grad_name"] = ir::MakeString(gv.s);
    Node kwargs = args.pos.size() > 4 ? args.pos[4] : args.Kw("te_grad_kwargs");
    ir::ObjectRef map = ir::MakeMap({});
    if (!IsNull(kwargs) && p_.Kind(kwargs) != K::kNone) {
      Value kv = Eval(kwargs);
      if (kv.kind != VK::kDict) p_.Fail(kwargs, "te_grad_kwargs must be a dict of names to values");
      map = p_.ToAttrValue(kv, kwargs);
    }
    attrs["te_grad_kwargs"] = map;
  }
  if (args.pos.size() > (with_grad ? 5u : inplace ? 4u : 3u)) {
    p_.Fail(args.pos.back(), "R." + name + " takes too many arguments");
  }
  // tir_vars=R.shape([...]): symbolic vars the kernel takes as trailing scalars.
  std::vector<Expr> call_operands = {callee, call_args};
  if (Node tv = args.Kw("tir_vars"); !IsNull(tv) && !inplace && !with_grad) call_operands.push_back(ToExpr(Eval(tv), tv));
  for (const auto& [key, node] : args.kw) {
    bool grad_key = with_grad && (key == "te_grad_name" || key == "te_grad_kwargs");
    if (key != "out_ty" && key != "out_sinfo" && key != "inplace_indices" && !grad_key &&
        (key != "tir_vars" || inplace || with_grad)) {
      p_.Fail(node, "R." + name + " has no argument '" + std::string(key) + "'");
    }
  }
  Call call;
  try {
    call = MakeOpCall("relax." + name, call_operands, attrs, {out}, p_.SpanOf(n));
  } catch (const DiagnosticError& e) {
    p_.Fail(n, e.diagnostic().message);
  }
  return Value::Of(VK::kObject, Normalize(call, n));
}

Value RelaxParser::CallRelax(const std::string& qualified, const Args& args) {
  Node n = args.call;
  std::string name = RelaxName(qualified);
  // `relax.op.nn.conv2d(...)` (tvm.relax's op builders, which R.* re-exports) is `R.nn.conv2d`.
  if (StartsWith(name, "op.") && FindOpByScriptName(std::string_view(name).substr(3))) name = name.substr(3);
  Span span = p_.SpanOf(n);
  auto pos = [&](size_t i, std::string_view kw = {}) -> Node {
    if (i < args.pos.size()) return args.pos[i];
    return kw.empty() ? Node{} : args.Kw(kw);
  };
  if (name == "Object" || name == "Any") {
    // R.Any() / R.Object(): the type object itself, called (`ty_args=[R.Any()]`).
    if (!args.pos.empty() || !args.kw.empty()) p_.Fail(n, "R." + name + "() takes no arguments");
    return Value::Of(VK::kType, MakeObjectType(span));
  }
  if (name == "Tensor") {
    // TVM's R.Tensor(shape=None, dtype=None, vdevice=None, ndim=-1).
    Node shape = pos(0, "shape"), dtype = pos(1, "dtype"), vdev = pos(2, "vdevice"),
         ndim = args.Kw("ndim");
    if (!IsNull(shape) && p_.Kind(shape) == K::kString && IsNull(dtype) && args.pos.size() == 1) {
      dtype = shape;  // R.Tensor("float32")
      shape = Node{};
    }
    DataType dt = IsNull(dtype) ? DataType::Void() : p_.ToDType(p_.Eval(dtype), dtype);
    ir::VDevice vdevice;
    if (!IsNull(vdev) && p_.Kind(vdev) != K::kNone) vdevice = VDeviceArg(vdev);
    if (!IsNull(shape)) {
      if (p_.Kind(shape) == K::kNone) {
        shape = Node{};
      } else {
        return Value::Of(VK::kType,
                         WithVDevice(MakeTensorType(EvalDims(shape), dt, span), vdevice));
      }
    }
    int64_t nd = IsNull(ndim) ? kUnknownNDim : p_.ToInt(p_.Eval(ndim), ndim);
    return Value::Of(VK::kType, WithVDevice(MakeTensorType(dt, nd, span), vdevice));
  }
  if (name == "to_vdevice" || name == "hint_on_device" || name == "device") {
    return CallDeviceOp(name, args);
  }
  if (name == "Shape") {
    Node values = pos(0, "values"), ndim = args.Kw("ndim");
    if (!IsNull(values)) return Value::Of(VK::kType, MakeShapeType(EvalDims(values), span));
    int64_t nd = IsNull(ndim) ? kUnknownNDim : p_.ToInt(p_.Eval(ndim), ndim);
    return Value::Of(VK::kType, MakeShapeType(nd, span));
  }
  if (name == "Tuple") {
    std::vector<Type> fields;
    if (args.pos.size() == 1 && p_.Kind(args.pos[0]) == K::kList) {
      for (Node f : p_.cst_->Children(args.pos[0])) fields.push_back(EvalType(f));
    } else {
      for (Node f : args.pos) fields.push_back(EvalType(f));
    }
    return Value::Of(VK::kType, ir::MakeTupleType(fields));
  }
  if (name == "Prim") {
    Node dtype = pos(0, "dtype");
    if (IsNull(dtype)) p_.Fail(n, "R.Prim needs a dtype");
    return Value::Of(VK::kType, ir::MakePrimType(p_.ToDType(p_.Eval(dtype), dtype)));
  }
  if (name == "Callable") {
    Node params = pos(0, "params"), ret = pos(1, "ret"), purity = pos(2, "purity");
    Type ret_type = IsNull(ret) ? Type(MakeObjectType()) : EvalType(ret);
    bool pure = IsNull(purity) ? IsNull(params) ? false : true : p_.ToBool(p_.Eval(purity), purity);
    if (IsNull(params)) return Value::Of(VK::kType, MakePackedFuncType(ret_type, pure, span));
    std::vector<Type> ps;
    for (Node pn : p_.cst_->Children(params)) ps.push_back(EvalType(pn));
    return Value::Of(VK::kType, MakeFuncType(ps, ret_type, pure, span));
  }
  if (name == "const") {
    Node vn = pos(0, "value"), dn = pos(1, "dtype");
    if (IsNull(vn)) p_.Fail(n, "R.const needs a value");
    return Value::Of(VK::kObject, MakeConst(vn, dn, span));
  }
  // R.ShapeExpr and R.TupleGetItem are the IR classes that TVM's R namespace also exports.
  if (name == "shape" || name == "ShapeExpr") {
    Node vn = pos(0, "values");
    if (IsNull(vn)) vn = pos(0, "value");
    if (IsNull(vn)) p_.Fail(n, "R." + name + " needs a list of dims");
    return Value::Of(VK::kObject, Normalize(MakeShapeExpr(EvalDims(vn), span), n));
  }
  if (name == "prim_value") {
    Node vn = pos(0, "value");
    if (IsNull(vn)) p_.Fail(n, "R.prim_value needs a value");
    Value v = p_.Eval(vn);
    ir::PrimExpr e = v.kind == VK::kInt ? tir::MakeIntImm(DataType::Int(64), v.i, span)
                                        : p_.ToPrim(v, vn);
    return Value::Of(VK::kObject, Normalize(MakePrimValue(e, span), n));
  }
  if (name == "str") {
    Node vn = pos(0, "value");
    if (IsNull(vn)) p_.Fail(n, "R.str needs a string");
    return Value::Of(VK::kObject, Normalize(MakeStringImm(p_.ToStr(p_.Eval(vn), vn), span), n));
  }
  if (name == "dtype") {
    Node vn = pos(0, "value");
    if (IsNull(vn)) p_.Fail(n, "R.dtype needs a dtype");
    return Value::Of(VK::kObject, Normalize(MakeDataTypeImm(p_.ToDType(p_.Eval(vn), vn), span), n));
  }
  if (name == "TupleGetItem") {
    Node tn = pos(0, "tuple_value"), in = pos(1, "index");
    if (IsNull(tn) || IsNull(in)) p_.Fail(n, "R.TupleGetItem expects a tuple and an index");
    Value idx = p_.Eval(in);
    if (idx.kind != VK::kInt) p_.Fail(in, "a tuple index must be an integer literal");
    Expr tuple = Normalize(ToExpr(Eval(tn), tn), tn);
    return Value::Of(VK::kObject, Normalize(MakeTupleGetItem(tuple, idx.i, span), n));
  }
  if (name == "tuple") {
    std::vector<Expr> fields;
    for (Node a : args.pos) fields.push_back(Normalize(ToExpr(Eval(a), a), a));
    return Value::Of(VK::kObject, Normalize(MakeTuple(fields, span), n));
  }
  if (name == "match_cast") {
    if (args.pos.size() != 2) p_.Fail(n, "R.match_cast expects a value and a type");
    Value value = Eval(args.pos[0]);
    Value type = Eval(args.pos[1]);
    if (type.kind != VK::kType && type.kind != VK::kDType) {
      p_.Fail(args.pos[1], "R.match_cast expects a type as its second argument, e.g. "
                           "R.Tensor((n,), \"float32\")");
    }
    Value marker;
    marker.kind = VK::kMethod;
    marker.s = "R.match_cast";
    marker.obj = ToType(type, args.pos[1]);
    marker.items.push_back(value);
    return marker;
  }
  if (name == "ExternFunc") {
    Node sn = pos(0, "global_symbol");
    if (IsNull(sn)) p_.Fail(n, "R.ExternFunc needs a symbol name");
    Type t;
    if (Node tn = pos(1, "struct_info"); !IsNull(tn)) t = EvalType(tn);
    return Value::Of(VK::kObject, MakeExternFunc(p_.ToStr(p_.Eval(sn), sn), t, span));
  }
  // ty_args=T or ty_args=(T, ...) (sinfo_args= too) of R.call_packed and R.call_pure_packed.
  auto ty_args_of = [&](const char* fn, bool other_keys_are_attrs = false) {
    std::vector<Type> ty_args;
    for (const auto& [key, node] : args.kw) {
      if (key != "ty_args" && key != "sinfo_args") {
        if (other_keys_are_attrs) continue;
        p_.Fail(node, std::string(fn) + " has no argument '" + std::string(key) + "'");
      }
      if (p_.Kind(node) == K::kTuple || p_.Kind(node) == K::kList) {
        for (Node t : p_.cst_->Children(node)) ty_args.push_back(EvalType(t));
      } else {
        ty_args.push_back(EvalType(node));
      }
    }
    return ty_args;
  };
  auto rest_from = [&](size_t first) {
    std::vector<Expr> out;
    for (size_t i = first; i < args.pos.size(); ++i) {
      out.push_back(Normalize(ToExpr(Eval(args.pos[i]), args.pos[i]), args.pos[i]));
    }
    return out;
  };
  if (name == "call_packed") {
    // R.call_packed("fn", *args, ty_args=...): a call of an ExternFunc, impure.
    Node sn = pos(0);
    if (IsNull(sn) || p_.Kind(sn) != K::kString) p_.Fail(n, "R.call_packed needs a function name");
    Expr callee = MakeExternFunc(p_.StringLiteral(sn), {}, p_.SpanOf(sn));
    std::vector<Expr> call_args = rest_from(1);
    std::vector<Type> ty_args = ty_args_of("R.call_packed", true);
    // Any other keyword is an attribute of the call (TVM's **kwargs, a DictAttrs).
    ir::AttrMap attrs;
    for (const auto& [key, node] : args.kw) {
      if (key != "ty_args" && key != "sinfo_args") attrs[std::string(key)] = p_.ToAttrValue(p_.Eval(node), node);
    }
    Type ret = ty_args.size() == 1 ? ty_args[0]
               : ty_args.empty()   ? Type(MakeObjectType())
                                   : Type(ir::MakeTupleType(ty_args));
    return Value::Of(VK::kObject, WithType(MakeCall(callee, call_args, attrs, ty_args, span), ret));
  }
  if (name == "call_pure_packed") {
    // R.call_pure_packed("fn" or R.ExternFunc(...), *args, ty_args=...): relax.call_pure_packed
    // with the callee as its first argument.
    Node sn = pos(0);
    if (IsNull(sn)) p_.Fail(n, "R.call_pure_packed needs a function name");
    Expr callee = p_.Kind(sn) == K::kString ? Expr(MakeExternFunc(p_.StringLiteral(sn), {}, p_.SpanOf(sn)))
                                            : ToExpr(Eval(sn), sn);
    std::vector<Expr> call_args{callee};
    for (Expr& a : rest_from(1)) call_args.push_back(std::move(a));
    std::vector<Type> ty_args = ty_args_of("R.call_pure_packed");
    return Value::Of(VK::kObject,
                     Normalize(MakeCall(GetOp("relax.call_pure_packed"), call_args, {}, ty_args, span), n));
  }
  // format="..." (or format=R.str("...")) of R.print and R.assert_op.
  auto format_of = [&](Node f) -> Expr {
    if (IsNull(f)) return MakeStringImm("", span);
    Expr e = ToExpr(Eval(f), f);
    if (!e.as<StringImmNode>()) p_.Fail(f, "format must be a string");
    return Normalize(e, f);
  };
  if (name == "print") {
    // R.print(*values, format=""): the format string is the call's first argument.
    for (const auto& [key, node] : args.kw) {
      if (key != "format") p_.Fail(node, "R.print has no argument '" + std::string(key) + "'");
    }
    std::vector<Expr> call_args{format_of(args.Kw("format"))};
    for (Expr& a : rest_from(0)) call_args.push_back(std::move(a));
    return Value::Of(VK::kObject, Normalize(MakeCall(GetOp("relax.print"), call_args, {}, {}, span), n));
  }
  if (name == "assert_op") {
    // R.assert_op(condition, *format_args, format_args=None, format=""): the condition, the
    // format string, then the values the message shows. A TensorIR condition is a PrimValue.
    Node cn = pos(0);
    if (IsNull(cn)) p_.Fail(n, "R.assert_op needs a condition");
    std::vector<Expr> values = rest_from(1);
    for (const auto& [key, node] : args.kw) {
      if (key == "format") continue;
      if (key != "format_args") p_.Fail(node, "R.assert_op has no argument '" + std::string(key) + "'");
      if (p_.Kind(node) == K::kNone) continue;
      if (p_.Kind(node) == K::kTuple || p_.Kind(node) == K::kList) {
        for (Node v : p_.cst_->Children(node)) values.push_back(Normalize(ToExpr(Eval(v), v), v));
      } else {
        values.push_back(Normalize(ToExpr(Eval(node), node), node));
      }
    }
    std::vector<Expr> call_args{Normalize(ToExpr(Eval(cn), cn), cn), format_of(args.Kw("format"))};
    for (Expr& v : values) call_args.push_back(std::move(v));
    return Value::Of(VK::kObject, Normalize(MakeCall(GetOp("relax.assert_op"), call_args, {}, {}, span), n));
  }
  if (name == "call_tir" || name == "call_tir_inplace" || name == "call_dps_packed" ||
      name == "call_tir_with_grad") {
    return CallTIR(name, args);
  }
  if (name == "function" || name == "dataflow" || name == "output" || name == "func_attr") {
    p_.Fail(n, "R." + name + " cannot be used as a value here");
  }
  const OpInfo* info = FindOpByScriptName(name);
  if (!info) p_.Fail(p_.Field(n, p_.F().function), "unknown function '" + qualified + "'");
  return CallOp(*info, args);
}

// --- types of expressions --------------------------------------------------------------------

Expr RelaxParser::Normalize(Expr expr, Node n) {
  // A use of a variable of the empty-tuple (void) type is the empty tuple itself, as TVM's
  // normalizer has it: `y = R.print(...)` then `return y` returns `R.tuple()`, and the printer,
  // which shows such a binding as a bare statement, never has to name `y`.
  if (auto* var = expr.as<VarNode>()) {
    auto* t = GetType(expr).as<ir::TupleTypeNode>();
    if (t && t->fields.empty()) return WithType(MakeTuple({}, var->span), ir::MakeTupleType({}));
  }
  if (!expr.defined() || GetType(expr).defined()) return expr;
  if (auto* t = expr.as<TupleNode>()) {
    std::vector<Type> fields;
    for (const auto& f : t->fields) {
      Type ft = GetType(f);
      if (!ft.defined()) return expr;
      fields.push_back(ft);
    }
    return WithType(expr, ir::MakeTupleType(fields));
  }
  if (auto* g = expr.as<TupleGetItemNode>()) {
    Type tt = GetType(g->tuple);
    auto* tuple = tt.as<ir::TupleTypeNode>();
    if (!tt.defined()) return expr;
    if (!tuple) p_.Fail(n, "cannot index a value of type " + TypeText(tt));
    if (g->index < 0 || g->index >= int64_t(tuple->fields.size())) {
      p_.Fail(n, "index " + std::to_string(g->index) + " is out of range for " + TypeText(tt));
    }
    return WithType(expr, tuple->fields[size_t(g->index)]);
  }
  if (auto* s = expr.as<ShapeExprNode>()) return WithType(expr, MakeShapeType(s->values));
  if (auto* pv = expr.as<PrimValueNode>()) return WithType(expr, ir::MakePrimType(pv->value->dtype));
  if (expr.as<relax::StringImmNode>() || expr.as<DataTypeImmNode>()) {
    return WithType(expr, MakeObjectType());
  }
  if (auto* c = expr.as<relax::CallNode>(); c && c->op.as<ir::OpNode>()) {
    // Op calls are typed by the BlockBuilder's normalizer; its diagnostic becomes ours.
    size_t before = builder_.diagnostics().size();
    Expr typed = builder_.Normalize(expr);
    if (builder_.diagnostics().size() > before) p_.Fail(n, builder_.diagnostics()[before].message);
    return typed;
  }
  return expr;
}

}  // namespace wb::script::detail
