// Printing Relax functions: signature (TypeVars for symbolic dims, annotated params, return type),
// decorator flags, R.func_attr, the `cls = Module` / `m = T.int64()` prelude, binding blocks,
// dataflow blocks, If, nested functions, and every expression kind (TVMSCRIPT.md §8).
#include "script/relax_printer.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <stdexcept>


#include "ir/structural_equal.h"
#include "relax/op/registry.h"
#include "runtime/half.h"
#include "tir/builtin.h"
#include "tir/expr.h"
#include "tir/op.h"

namespace wb::script::printer {

using namespace wb::relax;  // NOLINT(google-build-using-namespace): node names are the vocabulary

namespace {

std::string Join(const std::vector<std::string>& items) {
  std::string out;
  for (size_t i = 0; i < items.size(); ++i) {
    if (i) out += ", ";
    out += items[i];
  }
  return out;
}

std::string TupleText(const std::vector<std::string>& items) {
  return items.size() == 1 ? "(" + items[0] + ",)" : "(" + Join(items) + ")";
}

// Symbolic vars of an expression, in order of first occurrence.
void CollectTirVars(const ir::PrimExpr& e, std::vector<const tir::VarNode*>* out) {
  if (!e.defined()) return;
  if (auto* v = e.as<tir::VarNode>()) {
    if (std::find(out->begin(), out->end(), v) == out->end()) out->push_back(v);
    return;
  }
  if (auto* b = e.as<tir::BinaryNode>()) {
    CollectTirVars(b->a, out);
    CollectTirVars(b->b, out);
  } else if (auto* c = e.as<tir::CastNode>()) {
    CollectTirVars(c->value, out);
  }
}

void CollectTypeVars(const ir::Type& type, std::vector<const tir::VarNode*>* out) {
  if (!type.defined()) return;
  if (auto* t = type.as<TensorTypeNode>()) {
    if (t->shape) {
      for (const auto& d : *t->shape) CollectTirVars(d, out);
    }
  } else if (auto* t = type.as<ShapeTypeNode>()) {
    if (t->values) {
      for (const auto& d : *t->values) CollectTirVars(d, out);
    }
  } else if (auto* t = type.as<ir::TupleTypeNode>()) {
    for (const auto& f : t->fields) CollectTypeVars(f, out);
  } else if (auto* t = type.as<FuncTypeNode>()) {
    for (const auto& p : t->params) CollectTypeVars(p, out);
    CollectTypeVars(t->ret, out);
  } else if (auto* t = type.as<PackedFuncTypeNode>()) {
    CollectTypeVars(t->ret, out);
  }
}

bool IsEmptyTuple(const ir::Type& type) {
  auto* t = type.as<ir::TupleTypeNode>();
  return t && t->fields.empty();
}

bool IsOp(const ir::ObjectRef& op, const char* name) {
  auto* o = op.as<ir::OpNode>();
  return o && o->name == name;
}

// Python operator precedence of the PrimExpr forms Relax dims use.
// Python precedences, loosest first.
enum { kOr = 4, kAnd = 5, kNot = 6, kCompare = 8, kAdd = 10, kMul = 11, kAtom = 20 };

}  // namespace

std::vector<std::string> HeaderLines(const ScriptUsage& usage) {
  std::vector<std::string> lines;
  if (usage.typevar) lines.push_back("# from typing import TypeVar");
  if (usage.ir) lines.push_back("# from tvm.script import ir as I");
  if (usage.tir) {
    lines.push_back("# from tvm.script import tirx as T");
    lines.push_back("# from tvm.tirx.layout import Axis");
  }
  if (usage.relax) lines.push_back("# from tvm.script import relax as R");
  return lines;
}

std::string RelaxPrinter::TypeText(const ir::Type& type) {
  ScriptUsage usage;
  RelaxPrinter printer(nullptr, &usage);
  printer.text_only_ = true;
  return printer.Type(type);
}

// --- names -----------------------------------------------------------------------------------

std::string RelaxPrinter::DefineVar(const relax::VarNode* var) {
  std::string name = names_.Define(var->name_hint);
  name_of_[var] = name;
  return name;
}

std::string RelaxPrinter::VarName(const ir::Object* var) {
  auto it = name_of_.find(var);
  if (it != name_of_.end()) return it->second;
  if (text_only_) {
    if (auto* v = dynamic_cast<const relax::VarNode*>(var)) return v->name_hint;
    if (auto* v = dynamic_cast<const tir::VarNode*>(var)) return v->name_hint;
  }
  if (auto* v = dynamic_cast<const tir::VarNode*>(var)) {
    // A symbolic var first met in the body: declared at the top of the top-level function.
    std::string name = names_.DefineOutermost(v->name_hint);
    name_of_[var] = name;
    usage_->tir = true;
    if (prelude_) prelude_->push_back(PlainLine(name + " = T." + v->dtype.ToString() + "()"));
    return name;
  }
  throw std::runtime_error("a Relax variable is used before its definition");
}

std::string RelaxPrinter::GlobalText(const ir::GlobalVarNode* gv) {
  if (!module_) return gv->name_hint;
  if (!cls_printed_ && prelude_) {
    prelude_->push_back(PlainLine("cls = Module"));
    cls_printed_ = true;
  }
  return "cls." + gv->name_hint;
}

// --- types -----------------------------------------------------------------------------------

std::string RelaxPrinter::Dim(const ir::PrimExpr& dim) {
  int prec = kAtom;
  std::string text = Prim(dim, &prec);
  if (in_signature_ && !dim.as<tir::VarNode>()) {
    std::vector<const tir::VarNode*> vars;
    CollectTirVars(dim, &vars);
    for (auto* v : vars) {
      if (typevars_.count(v)) return QuoteString(text);
    }
  }
  return text;
}

std::string RelaxPrinter::Type(const ir::Type& type) {
  if (!type.defined()) return "R.Any";
  if (!text_only_) usage_->relax = true;
  if (auto* t = type.as<TensorTypeNode>()) {
    std::vector<std::string> args;
    if (t->shape) {
      std::vector<std::string> dims;
      for (const auto& d : *t->shape) dims.push_back(Dim(d));
      args.push_back(TupleText(dims));
    }
    if (!t->IsUnknownDtype()) args.push_back("dtype=" + QuoteString(t->dtype.ToString()));
    if (!t->shape && !t->IsUnknownNdim()) args.push_back("ndim=" + std::to_string(t->ndim));
    if (t->vdevice.defined()) args.push_back("vdevice=" + VDeviceText(t->vdevice));
    return args.empty() ? "R.Tensor" : "R.Tensor(" + Join(args) + ")";
  }
  if (auto* t = type.as<ShapeTypeNode>()) {
    if (t->values) {
      std::vector<std::string> dims;
      for (const auto& d : *t->values) dims.push_back(Dim(d));
      return "R.Shape([" + Join(dims) + "])";
    }
    return "R.Shape(ndim=" + std::to_string(t->ndim) + ")";
  }
  if (auto* t = type.as<ir::TupleTypeNode>()) {
    if (t->fields.empty()) return "R.Tuple";
    std::vector<std::string> fields;
    for (const auto& f : t->fields) fields.push_back(Type(f));
    return "R.Tuple(" + Join(fields) + ")";
  }
  if (auto* t = type.as<ir::PrimTypeNode>()) {
    if (!text_only_) usage_->tir = true;
    return "T." + t->dtype.ToString();
  }
  if (type.as<ObjectTypeNode>()) return "R.Any";
  if (auto* t = type.as<FuncTypeNode>()) {
    std::vector<std::string> params;
    for (const auto& p : t->params) params.push_back(Type(p));
    return "R.Callable(" + TupleText(params) + ", " + Type(t->ret) + ", " +
           (t->purity ? "True" : "False") + ")";
  }
  if (auto* t = type.as<PackedFuncTypeNode>()) {
    std::vector<std::string> kw;
    if (t->ret.defined() && !t->ret.as<ObjectTypeNode>()) kw.push_back("ret=" + Type(t->ret));
    if (t->purity) kw.push_back("purity=True");
    return kw.empty() ? "R.Callable" : "R.Callable(" + Join(kw) + ")";
  }
  throw std::runtime_error(std::string("cannot print type ") + type->type_key());
}

// --- PrimExprs in a Relax context: every IntImm prints bare ----------------------------------

std::string RelaxPrinter::Prim(const ir::PrimExpr& e, int* prec) {
  *prec = kAtom;
  if (!e.defined()) return "None";
  if (auto* i = e.as<tir::IntImmNode>()) {
    if (i->dtype.is_bool()) return i->value ? "True" : "False";
    return std::to_string(i->value);
  }
  if (auto* f = e.as<tir::FloatImmNode>()) {
    if (!text_only_) usage_->tir = true;
    return "T." + f->dtype.ToString() + "(" + FormatFloat(f->value) + ")";
  }
  if (auto* v = e.as<tir::VarNode>()) return VarName(v);
  // Operator sugar only where TVM's parser would rebuild the same node: `T.FloorDiv(32, 4)`
  // stays a node, as TensorIR prints it, since `32 // 4` folds to 8.
  auto call = [&](const std::string& fn, const tir::BinaryNode* b) {
    int p = kAtom;
    if (!text_only_) usage_->tir = true;
    std::string a = Prim(b->a, &p);
    return fn + "(" + a + ", " + Prim(b->b, &p) + ")";
  };
  // Python chains comparisons, so a comparison operand of a comparison is parenthesized.
  auto binary = [&](const char* name, const char* op, int p) {
    auto* b = e.as<tir::BinaryNode>();
    if (tir::WouldFold(e->type_index(), b->a, b->b)) return call(std::string("T.") + name, b);
    int pa = kAtom, pb = kAtom;
    std::string a = Prim(b->a, &pa), c = Prim(b->b, &pb);
    if (pa < p || (p == kCompare && pa == p)) a = "(" + a + ")";
    if (pb <= p) c = "(" + c + ")";
    *prec = p;
    return a + " " + op + " " + c;
  };
  switch (e->type_index()) {
    case ir::TypeIndex::kAdd: return binary("Add", "+", kAdd);
    case ir::TypeIndex::kSub: return binary("Sub", "-", kAdd);
    case ir::TypeIndex::kMul: return binary("Mul", "*", kMul);
    case ir::TypeIndex::kFloorDiv: return binary("FloorDiv", "//", kMul);
    case ir::TypeIndex::kFloorMod: return binary("FloorMod", "%", kMul);
    case ir::TypeIndex::kEQ: return binary("EQ", "==", kCompare);
    case ir::TypeIndex::kNE: return binary("NE", "!=", kCompare);
    case ir::TypeIndex::kLT: return binary("LT", "<", kCompare);
    case ir::TypeIndex::kLE: return binary("LE", "<=", kCompare);
    case ir::TypeIndex::kGT: return binary("GT", ">", kCompare);
    case ir::TypeIndex::kGE: return binary("GE", ">=", kCompare);
    case ir::TypeIndex::kAnd: return binary("And", "and", kAnd);
    case ir::TypeIndex::kOr: return binary("Or", "or", kOr);
    case ir::TypeIndex::kMin: return call("T.min", e.as<tir::BinaryNode>());
    case ir::TypeIndex::kMax: return call("T.max", e.as<tir::BinaryNode>());
    case ir::TypeIndex::kDiv: return call("T.Div", e.as<tir::BinaryNode>());
    case ir::TypeIndex::kMod: return call("T.truncmod", e.as<tir::BinaryNode>());
    default: break;
  }
  if (auto* n = e.as<tir::NotNode>()) {
    int p = kAtom;
    std::string a = Prim(n->a, &p);
    if (p < kNot) a = "(" + a + ")";
    *prec = kNot;
    return "not " + a;
  }
  if (auto* s = e.as<tir::SelectNode>()) {
    int p = kAtom;
    if (!text_only_) usage_->tir = true;
    return "T.Select(" + Prim(s->condition, &p) + ", " + Prim(s->true_value, &p) + ", " +
           Prim(s->false_value, &p) + ")";
  }
  if (auto* c = e.as<tir::CallNode>()) {
    // A TIR builtin (`T.if_then_else(n < 0, n + m, n)` in a sliced dim), as TensorIR prints it.
    auto* op = c->op.as<ir::OpNode>();
    const tir::OpInfo* info = op ? tir::InfoOf(ir::GetRef(op)) : nullptr;
    if (info) {
      if (!text_only_) usage_->tir = true;
      std::vector<std::string> args;
      if (info->result == tir::OpResultType::kExplicit) args.push_back(QuoteString(c->dtype.ToString()));
      for (const auto& a : c->args) {
        int p = kAtom;
        args.push_back(Prim(a, &p));
      }
      if (info->result == tir::OpResultType::kExplicitLast) args.push_back(QuoteString(c->dtype.ToString()));
      return "T." + info->script_name + "(" + Join(args) + ")";
    }
  }
  if (auto* c = e.as<tir::CastNode>()) {
    int p = kAtom;
    if (!text_only_) usage_->tir = true;
    return "T.Cast(" + QuoteString(c->dtype.ToString()) + ", " + Prim(c->value, &p) + ")";
  }
  throw std::runtime_error(std::string("cannot print ") + e->type_key() + " in a Relax context");
}

// --- expressions -----------------------------------------------------------------------------

std::string RelaxPrinter::ConstantText(const ConstantNode* c) {
  if (c->shape.empty()) {
    const DataType& t = c->dtype;
    const char* p = c->data.data();
    std::string value;
    if (t.is_int() && t.lanes() == 1 && c->data.size() == size_t(t.bits() / 8)) {
      int64_t v = 0;
      if (t.bits() == 8) v = static_cast<int8_t>(p[0]);
      if (t.bits() == 16) { int16_t x; std::memcpy(&x, p, 2); v = x; }
      if (t.bits() == 32) { int32_t x; std::memcpy(&x, p, 4); v = x; }
      if (t.bits() == 64) { std::memcpy(&v, p, 8); }
      value = std::to_string(v);
    } else if (t.is_bool() && c->data.size() == 1) {
      value = p[0] ? "True" : "False";
    } else if (t.is_float() && t.lanes() == 1 && t.bits() == 32 && c->data.size() == 4) {
      float x;
      std::memcpy(&x, p, 4);
      value = FormatFloat(x);
    } else if (t.is_float() && t.lanes() == 1 && t.bits() == 64 && c->data.size() == 8) {
      double x;
      std::memcpy(&x, p, 8);
      value = FormatFloat(x);
    } else if (t.is_float() && t.lanes() == 1 && t.bits() == 16 && c->data.size() == 2) {
      // Every binary16 value is a float32 one, and the parser rounds it back to the same bits.
      uint16_t h;
      std::memcpy(&h, p, 2);
      float x = runtime::HalfBitsToFloat(h);
      if (std::isfinite(x)) value = FormatFloat(x);
    }
    if (!value.empty()) return "R.const(" + value + ", " + QuoteString(t.ToString()) + ")";
  }
  // Non-scalar constants go to metadata; equal ones share an entry. Equal means the same dtype,
  // shape and bytes (what structural equality compares), tested directly: a model's weights are
  // megabytes, and reflection would copy each of them per comparison.
  size_t index = usage_->constants.size();
  for (size_t i = 0; i < usage_->constants.size() && index == usage_->constants.size(); ++i) {
    auto* o = usage_->constants[i].as<ConstantNode>();
    if (o == c || (o && o->dtype == c->dtype && o->shape == c->shape && o->data == c->data)) index = i;
  }
  if (index == usage_->constants.size()) usage_->constants.push_back(ir::GetRef(c));
  return "metadata[\"relax.expr.Constant\"][" + std::to_string(index) + "]";
}

std::string RelaxPrinter::Callee(const ir::ObjectRef& expr) {
  if (auto* e = expr.as<ExternFuncNode>()) return QuoteString(e->global_symbol);
  return Expr(expr);
}

std::string RelaxPrinter::AttrValue(const ir::ObjectRef& value) {
  if (!value.defined()) return "None";
  if (auto* s = value.as<ir::StringObj>()) return QuoteString(s->value);
  if (auto* i = value.as<ir::IntObj>()) return std::to_string(i->value);
  if (auto* b = value.as<ir::BoolObj>()) return b->value ? "True" : "False";
  if (auto* f = value.as<ir::FloatObj>()) return FormatFloat(f->value);
  if (auto* a = value.as<ir::ArrayObj>()) {
    std::vector<std::string> items;
    for (const auto& x : a->items) items.push_back(AttrValue(x));
    return "[" + Join(items) + "]";
  }
  if (auto* m = value.as<ir::MapObj>()) {
    std::vector<std::string> items;
    for (const auto& [k, v] : m->items) items.push_back(QuoteString(k) + ": " + AttrValue(v));
    return "{" + Join(items) + "}";
  }
  if (ir::IsInstance<ir::PrimExprNode>(value.get())) {
    int prec = kAtom;
    return Prim(value.as_ref<ir::PrimExprNode>(), &prec);
  }
  if (IsExpr(value.get())) return Expr(value);
  if (auto* m = value.as<tir::IndexMapNode>()) return IndexMapText(m);
  throw std::runtime_error(std::string("cannot print attribute value ") + value->type_key());
}

// `T.index_map(lambda i: (i // 4, i % 4))`, as TVM prints an IndexMap attribute; the lambda's
// parameters are names local to it.
std::string RelaxPrinter::IndexMapText(const tir::IndexMapNode* map) {
  usage_->tir = true;
  auto lambda = [&](const tir::IndexMapNode* m) {
    names_.PushScope();
    std::vector<std::string> params, results;
    for (const auto& v : m->initial_indices) {
      std::string name = names_.Define(v->name_hint);
      name_of_[v.get()] = name;
      params.push_back(name);
    }
    for (const auto& e : m->final_indices) {
      int prec = kAtom;
      results.push_back(Prim(e, &prec));
    }
    for (const auto& v : m->initial_indices) name_of_.erase(v.get());
    names_.PopScope();
    return "lambda " + Join(params) + ": (" + Join(results) + (results.size() == 1 ? ",)" : ")");
  };
  std::string text = "T.index_map(" + lambda(map);
  if (auto* inv = map->inverse_index_map.as<tir::IndexMapNode>()) {
    text += ", inverse_index_map=" + lambda(inv);
  }
  // The parser's default is int64; TVM's printer drops another dtype, which then does not parse
  // back, so it is written out.
  if (!map->initial_indices.empty() && map->initial_indices[0]->dtype != DataType::Int(64)) {
    text += ", index_dtype=" + QuoteString(map->initial_indices[0]->dtype.ToString());
  }
  return text + ")";
}

std::string RelaxPrinter::VDeviceText(const ir::ObjectRef& value) {
  auto* vdevice = value.as<ir::VDeviceNode>();
  if (!vdevice) {
    throw std::runtime_error(std::string("expected a vdevice, got ") +
                             (value.defined() ? value->type_key() : "None"));
  }
  // Diagnostics have no module: they name the device in full.
  if (text_only_) return relax::VDeviceToString(ir::GetRef(vdevice));
  std::string ref = module_ ? ir::VDeviceReference(*vdevice, module_->global_infos) : "";
  if (ref.empty()) {
    throw std::runtime_error("the vdevice " + relax::VDeviceToString(ir::GetRef(vdevice)) +
                             " is not among the module's global_infos[\"vdevice\"]");
  }
  return QuoteString(ref);
}

std::string RelaxPrinter::CallText(const CallNode* call) {
  usage_->relax = true;
  const ir::ObjectRef& op = call->op;
  // TVM's forms: R.to_vdevice(x, dst_vdevice="cuda:0") and
  // R.hint_on_device(x, R.device(dev_type=2, dev_id=0)).
  if (IsOp(op, "relax.to_vdevice") && call->args.size() == 1) {
    auto it = call->attrs.find("dst_vdevice");
    return "R.to_vdevice(" + Expr(call->args[0]) + ", dst_vdevice=" +
           VDeviceText(it == call->attrs.end() ? ir::ObjectRef() : it->second) + ")";
  }
  if (IsOp(op, "relax.hint_on_device") && call->args.size() == 1) {
    auto attr = [&](const char* key) {
      auto it = call->attrs.find(key);
      return it == call->attrs.end() ? std::string("None") : AttrValue(it->second);
    };
    return "R.hint_on_device(" + Expr(call->args[0]) + ", R.device(dev_type=" + attr("dev_type") +
           ", dev_id=" + attr("dev_id") + "))";
  }
  // The format string, an argument of the call, is printed as the keyword it was written as.
  if (IsOp(op, "relax.print") && !call->args.empty()) {
    std::vector<std::string> args;
    for (size_t i = 1; i < call->args.size(); ++i) args.push_back(Expr(call->args[i]));
    args.push_back("format=" + Expr(call->args[0]));
    return "R.print(" + Join(args) + ")";
  }
  if (IsOp(op, "relax.assert_op") && call->args.size() >= 2) {
    std::vector<std::string> args{Expr(call->args[0])};
    for (size_t i = 2; i < call->args.size(); ++i) args.push_back(Expr(call->args[i]));
    args.push_back("format=" + Expr(call->args[1]));
    return "R.assert_op(" + Join(args) + ")";
  }
  bool is_tir = IsOp(op, "relax.call_tir"), is_inplace = IsOp(op, "relax.call_tir_inplace"),
       is_dps = IsOp(op, "relax.call_dps_packed"), is_grad = IsOp(op, "relax.call_tir_with_grad");
  if ((is_tir || is_inplace || is_dps || is_grad) &&
      (call->args.size() == 2 || (is_tir && call->args.size() == 3)) &&
      call->sinfo_args.size() == 1) {
    std::vector<std::string> args{Callee(call->args[0]), Expr(call->args[1])};
    std::string out;
    if (auto* tuple = call->sinfo_args[0].as<ir::TupleTypeNode>()) {
      std::vector<std::string> fields;
      for (const auto& f : tuple->fields) fields.push_back(Type(f));
      out = "[" + Join(fields) + "]";
    } else {
      out = Type(call->sinfo_args[0]);
    }
    args.push_back("out_ty=" + out);
    if (call->args.size() == 3) args.push_back("tir_vars=" + Expr(call->args[2]));
    if (is_inplace) {
      auto it = call->attrs.find("inplace_indices");
      args.push_back("inplace_indices=" +
                     (it == call->attrs.end() ? std::string("[]") : AttrValue(it->second)));
    }
    if (is_grad) {
      // TVM prints the gradient's name always and its keyword arguments when there are any.
      auto name_it = call->attrs.find("te_grad_name");
      args.push_back("te_grad_name=" +
                     (name_it == call->attrs.end() ? QuoteString("") : AttrValue(name_it->second)));
      auto kw_it = call->attrs.find("te_grad_kwargs");
      auto* kw = kw_it == call->attrs.end() ? nullptr : kw_it->second.as<ir::MapObj>();
      if (kw && !kw->items.empty()) args.push_back("te_grad_kwargs=" + AttrValue(kw_it->second));
    }
    const char* name = is_tir      ? "R.call_tir"
                       : is_inplace ? "R.call_tir_inplace"
                       : is_grad    ? "R.call_tir_with_grad"
                                    : "R.call_dps_packed";
    return std::string(name) + "(" + Join(args) + ")";
  }
  std::string prefix;
  std::vector<std::string> args;
  const OpInfo* info = nullptr;
  if (auto* ext = op.as<ExternFuncNode>()) {
    prefix = "R.call_packed";
    args.push_back(QuoteString(ext->global_symbol));
  } else if (auto* o = op.as<ir::OpNode>()) {
    info = InfoOf(ir::GetRef(o));
    prefix = o->name.rfind("relax.", 0) == 0 ? "R." + o->name.substr(6) : o->name;
  } else {
    prefix = Expr(op);
  }
  for (size_t i = 0; i < call->args.size(); ++i) {
    args.push_back(i == 0 ? Callee(call->args[i]) : Expr(call->args[i]));
  }
  if (info) {
    // Every declared attribute, in the declaration order of TVM's attrs class.
    for (const auto& field : info->attrs) {
      auto it = call->attrs.find(field.name);
      if (it == call->attrs.end() && !field.default_from.empty()) {
        it = call->attrs.find(field.default_from);
      }
      args.push_back(field.name + "=" + AttrValue(it == call->attrs.end() ? field.default_value
                                                                           : it->second));
    }
  } else {
    for (const auto& [k, v] : call->attrs) args.push_back(k + "=" + AttrValue(v));
  }
  if (!call->sinfo_args.empty()) {
    std::vector<std::string> tys;
    for (const auto& t : call->sinfo_args) tys.push_back(Type(t));
    args.push_back("ty_args=" + TupleText(tys));
  }
  return prefix + "(" + Join(args) + ")";
}

std::string RelaxPrinter::Expr(const ir::ObjectRef& expr) {
  if (!expr.defined()) return "None";
  if (auto* v = expr.as<relax::VarNode>()) return VarName(v);
  if (auto* g = expr.as<ir::GlobalVarNode>()) return GlobalText(g);
  if (auto* c = expr.as<ConstantNode>()) {
    usage_->relax = true;
    return ConstantText(c);
  }
  if (auto* t = expr.as<TupleNode>()) {
    if (t->fields.empty()) {
      usage_->relax = true;
      return "R.tuple()";
    }
    std::vector<std::string> fields;
    for (const auto& f : t->fields) fields.push_back(Expr(f));
    return TupleText(fields);
  }
  if (auto* t = expr.as<TupleGetItemNode>()) {
    return Expr(t->tuple) + "[" + std::to_string(t->index) + "]";
  }
  if (auto* s = expr.as<ShapeExprNode>()) {
    usage_->relax = true;
    std::vector<std::string> dims;
    for (const auto& d : s->values) dims.push_back(Dim(d));
    return "R.shape([" + Join(dims) + "])";
  }
  if (auto* p = expr.as<PrimValueNode>()) {
    int prec = kAtom;
    return Prim(p->value, &prec);
  }
  if (auto* s = expr.as<relax::StringImmNode>()) {
    usage_->relax = true;
    return "R.str(" + QuoteString(s->value) + ")";
  }
  if (auto* d = expr.as<DataTypeImmNode>()) {
    usage_->relax = true;
    return "R.dtype(" + QuoteString(d->value.ToString()) + ")";
  }
  if (auto* c = expr.as<relax::CallNode>()) return CallText(c);
  if (auto* e = expr.as<ExternFuncNode>()) {
    usage_->relax = true;
    std::string args = QuoteString(e->global_symbol);
    auto* packed = e->struct_info.as<PackedFuncTypeNode>();
    bool default_type = !e->struct_info.defined() ||
                        (packed && !packed->purity &&
                         (!packed->ret.defined() || packed->ret.as<ObjectTypeNode>()));
    if (!default_type) args += ", " + Type(e->struct_info);
    return "R.ExternFunc(" + args + ")";
  }
  throw std::runtime_error(std::string("cannot print ") + expr->type_key() +
                           " as a Relax expression");
}

// --- bindings --------------------------------------------------------------------------------

void RelaxPrinter::PrintBranch(const ir::ObjectRef& branch, const std::string& dest,
                               const std::string& ann, std::vector<Line>* out) {
  auto* seq = branch.as<SeqExprNode>();
  if (!seq) {
    out->push_back(PlainLine(dest + ": " + ann + " = " + Expr(branch)));
    return;
  }
  names_.PushScope();
  // `y: ann = e` in source gives a branch-local var `y` bound to `e` as the branch's result;
  // print that pair back as the one statement it came from.
  const VarBindingNode* merged = nullptr;
  if (auto* body_var = seq->body.as<relax::VarNode>()) {
    if (!seq->blocks.empty() && !seq->blocks.back().as<DataflowBlockNode>() &&
        !seq->blocks.back()->bindings.empty()) {
      auto* last = seq->blocks.back()->bindings.back().as<VarBindingNode>();
      if (last && last->var.get() == body_var && body_var->name_hint == dest &&
          !last->value.as<FunctionNode>() && !last->value.as<IfNode>()) {
        merged = last;
      }
    }
  }
  for (const auto& block : seq->blocks) {
    for (const auto& binding : block->bindings) {
      if (binding.get() == merged) continue;
      PrintBinding(binding.get(), out);
    }
  }
  std::string value = merged ? Expr(merged->value) : Expr(seq->body);
  if (merged) name_of_[merged->var.get()] = dest;
  out->push_back(PlainLine(dest + ": " + ann + " = " + value));
  names_.PopScope();
}

void RelaxPrinter::PrintBinding(const BindingNode* binding, std::vector<Line>* out) {
  const relax::VarNode* var = binding->var.get();
  if (ir::IsInstance<MatchCastNode>(binding)) {
    auto* mc = static_cast<const MatchCastNode*>(binding);
    std::string rhs = "R.match_cast(" + Expr(mc->value) + ", " + Type(mc->struct_info) + ")";
    std::string ann = Type(var->struct_info);
    out->push_back(PlainLine(DefineVar(var) + ": " + ann + " = " + rhs));
    return;
  }
  auto* vb = static_cast<const VarBindingNode*>(binding);
  if (auto* func = vb->value.as<FunctionNode>()) {
    // A nested function: the header lines used so far, an empty comment line, then the def.
    std::string name = DefineVar(var);
    std::vector<Line> pre;
    std::vector<Line> lines = PrintFunctionImpl(func, name, &pre, false);
    for (const auto& h : HeaderLines(*usage_)) out->push_back(PlainLine(h));
    out->push_back(PlainLine(""));
    for (auto& l : pre) out->push_back(std::move(l));
    for (auto& l : lines) out->push_back(std::move(l));
    return;
  }
  if (auto* branch = vb->value.as<IfNode>()) {
    std::string cond = Expr(branch->cond);
    std::string name = DefineVar(var);
    std::string ann = Type(var->struct_info);
    Line if_line = PlainLine("if " + cond + ":");
    if_line.compound = true;
    PrintBranch(branch->true_branch, name, ann, &if_line.body);
    Line else_line = PlainLine("else:");
    else_line.compound = true;
    PrintBranch(branch->false_branch, name, ann, &else_line.body);
    out->push_back(std::move(if_line));
    out->push_back(std::move(else_line));
    return;
  }
  std::string rhs = Expr(vb->value);
  // A void binding is a bare statement, as TVM prints it; uses of its var are the empty tuple.
  // An output of a dataflow block keeps its name, which R.output(...) lists.
  bool block_output = in_dataflow_ && !ir::IsInstance<DataflowVarNode>(var);
  if (IsEmptyTuple(var->struct_info) && IsEmptyTuple(GetType(vb->value)) && !block_output) {
    DefineVar(var);
    out->push_back(PlainLine(rhs));
    return;
  }
  // A call whose declared output type is the binding's type needs no annotation.
  bool elide = false;
  if (auto* call = vb->value.as<relax::CallNode>()) {
    if ((IsOp(call->op, "relax.call_tir") || IsOp(call->op, "relax.call_tir_inplace") ||
         IsOp(call->op, "relax.call_dps_packed") || IsOp(call->op, "relax.call_tir_with_grad")) &&
        call->sinfo_args.size() == 1 &&
        ir::StructuralEqual(call->sinfo_args[0], var->struct_info, false)) {
      elide = true;
    }
  }
  std::string lhs = DefineVar(var);
  if (!elide && var->struct_info.defined()) lhs += ": " + Type(var->struct_info);
  out->push_back(PlainLine(lhs + " = " + rhs));
}

void RelaxPrinter::PrintSeqBody(const SeqExprNode* seq, std::vector<Line>* out) {
  bool saved = in_dataflow_;
  for (const auto& block : seq->blocks) {
    in_dataflow_ = block.as<DataflowBlockNode>() != nullptr;
    if (in_dataflow_) {
      Line with = PlainLine("with R.dataflow():");
      with.compound = true;
      std::vector<std::string> outputs;
      for (const auto& binding : block->bindings) {
        PrintBinding(binding.get(), &with.body);
        in_dataflow_ = true;  // a nested function's blocks set it for themselves
        if (!binding->var.as<DataflowVarNode>()) outputs.push_back(VarName(binding->var.get()));
      }
      with.body.push_back(PlainLine("R.output(" + Join(outputs) + ")"));
      out->push_back(std::move(with));
    } else {
      for (const auto& binding : block->bindings) {
        in_dataflow_ = false;
        PrintBinding(binding.get(), out);
      }
    }
  }
  in_dataflow_ = saved;
  out->push_back(PlainLine("return " + Expr(seq->body)));
}

// --- functions -------------------------------------------------------------------------------

std::vector<Line> RelaxPrinter::PrintFunction(const relax::Function& func,
                                              const std::string& name,
                                              std::vector<Line>* pre_lines) {
  return PrintFunctionImpl(func.get(), name, pre_lines, true);
}

std::vector<Line> RelaxPrinter::PrintFunctionImpl(const FunctionNode* f, const std::string& name,
                                                  std::vector<Line>* pre_lines, bool top_level) {
  usage_->relax = true;
  std::vector<Line> prelude;
  std::vector<Line>* saved_prelude = prelude_;
  bool saved_cls = cls_printed_;
  if (top_level) {
    prelude_ = &prelude;
    cls_printed_ = false;
  }
  names_.PushScope();
  // Signature vars that are not yet defined become TypeVars, sorted by name.
  std::vector<const tir::VarNode*> vars;
  for (const auto& p : f->params) CollectTypeVars(p->struct_info, &vars);
  CollectTypeVars(f->ret_struct_info, &vars);
  vars.erase(std::remove_if(vars.begin(), vars.end(),
                            [&](const tir::VarNode* v) { return name_of_.count(v) != 0; }),
             vars.end());
  std::stable_sort(vars.begin(), vars.end(), [](const tir::VarNode* a, const tir::VarNode* b) {
    return a->name_hint < b->name_hint;
  });
  for (const tir::VarNode* v : vars) {
    std::string tv = names_.Define(v->name_hint);
    name_of_[v] = tv;
    typevars_.insert(v);
    pre_lines->push_back(PlainLine(tv + " = TypeVar(" + QuoteString(tv) + ")"));
    usage_->typevar = true;
  }
  std::vector<std::string> params;
  in_signature_ = true;
  for (const auto& p : f->params) {
    std::string pname = DefineVar(p.get());
    params.push_back(p->struct_info.defined() ? pname + ": " + Type(p->struct_info) : pname);
  }
  std::string ret = Type(f->ret_struct_info);
  in_signature_ = false;
  // Attributes, hiding a global_symbol that the def name already says.
  ir::AttrMap attrs = f->attrs;
  if (top_level) {
    if (auto it = attrs.find("global_symbol"); it != attrs.end()) {
      auto* s = it->second.as<ir::StringObj>();
      if (s && s->value == name) attrs.erase(it);
    }
  }
  std::vector<Line> body;
  if (!attrs.empty()) {
    std::vector<std::string> items;
    for (const auto& [k, v] : attrs) {
      auto* text = v.as<ir::StringObj>();
      if (k == kTargetAttrKey && text) usage_->tir = true;
      items.push_back(QuoteString(k) + ": " + (k == kTargetAttrKey && text ? TargetCallText(text->value) : AttrValue(v)));
    }
    body.push_back(PlainLine("R.func_attr({" + Join(items) + "})"));
  }
  std::vector<Line> stmts;
  if (auto* seq = f->body.as<SeqExprNode>()) {
    PrintSeqBody(seq, &stmts);
  } else {
    stmts.push_back(PlainLine("return " + Expr(f->body)));
  }
  if (top_level) {
    for (auto& l : prelude) body.push_back(std::move(l));
  }
  for (auto& l : stmts) body.push_back(std::move(l));
  names_.PopScope();
  if (top_level) {
    prelude_ = saved_prelude;
    cls_printed_ = saved_cls;
  }
  std::vector<std::string> flags;
  if (!f->is_pure) flags.push_back("pure=False");
  if (top_level && !f->attrs.count("global_symbol")) flags.push_back("private=True");
  std::string decorator = flags.empty() ? "@R.function" : "@R.function(" + Join(flags) + ")";
  Line def = PlainLine("def " + name + "(" + Join(params) + ") -> " + ret + ":");
  def.compound = true;
  def.blank_after = true;
  def.body = std::move(body);
  std::vector<Line> lines;
  lines.push_back(PlainLine(decorator));
  lines.push_back(std::move(def));
  return lines;
}

Line RelaxPrinter::PrintExternMember(const relax::ExternFunc& func, const std::string& name) {
  return PlainLine(name + " = " + Expr(func));
}

}  // namespace wb::script::printer
