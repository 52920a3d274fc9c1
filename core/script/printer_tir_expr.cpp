// Expressions: literals, operator sugar (only where TVM's folding constructors would rebuild the
// same node), Python precedence, calls and the attribute values that appear in dictionaries.
#include <cmath>

#include "script/printer_tir.h"
#include "tir/builtin.h"
#include "tir/index_map.h"
#include "tir/op.h"

namespace wb::script::printer {

using ir::TypeIndex;
using namespace wb::tir;  // NOLINT(google-build-using-namespace): node names are the vocabulary

namespace {

std::string Join(const std::vector<std::string>& items) {
  std::string out;
  for (size_t i = 0; i < items.size(); ++i) {
    if (i) out += ", ";
    out += items[i];
  }
  return out;
}

const char* NodeName(TypeIndex kind) {
  switch (kind) {
    case TypeIndex::kAdd:
      return "Add";
    case TypeIndex::kSub:
      return "Sub";
    case TypeIndex::kMul:
      return "Mul";
    case TypeIndex::kDiv:
      return "Div";
    case TypeIndex::kMod:
      return "Mod";
    case TypeIndex::kFloorDiv:
      return "FloorDiv";
    case TypeIndex::kFloorMod:
      return "FloorMod";
    case TypeIndex::kEQ:
      return "EQ";
    case TypeIndex::kNE:
      return "NE";
    case TypeIndex::kLT:
      return "LT";
    case TypeIndex::kLE:
      return "LE";
    case TypeIndex::kGT:
      return "GT";
    case TypeIndex::kGE:
      return "GE";
    case TypeIndex::kAnd:
      return "And";
    case TypeIndex::kOr:
      return "Or";
    default:
      return "Binary";
  }
}

// The Python operator and its precedence for the sugared form of `kind`.
std::pair<const char*, int> Operator(TypeIndex kind) {
  switch (kind) {
    case TypeIndex::kAdd:
      return {"+", kPrecAdd};
    case TypeIndex::kSub:
      return {"-", kPrecAdd};
    case TypeIndex::kMul:
      return {"*", kPrecMul};
    case TypeIndex::kDiv:
      return {"/", kPrecMul};
    case TypeIndex::kFloorDiv:
      return {"//", kPrecMul};
    case TypeIndex::kFloorMod:
      return {"%", kPrecMul};
    case TypeIndex::kEQ:
      return {"==", kPrecCompare};
    case TypeIndex::kNE:
      return {"!=", kPrecCompare};
    case TypeIndex::kLT:
      return {"<", kPrecCompare};
    case TypeIndex::kLE:
      return {"<=", kPrecCompare};
    case TypeIndex::kGT:
      return {">", kPrecCompare};
    case TypeIndex::kGE:
      return {">=", kPrecCompare};
    case TypeIndex::kAnd:
      return {"and", kPrecAnd};
    case TypeIndex::kOr:
      return {"or", kPrecOr};
    default:
      return {nullptr, kPrecAtom};
  }
}

}  // namespace

std::string TIRPrinter::Call(const std::string& callee, const std::vector<std::string>& args) {
  return callee + "(" + Join(args) + ")";
}

ExprDoc TIRPrinter::Print(const PrimExpr& e) {
  if (!e.defined()) return {"None"};
  return VisitExpr(e);
}

std::string TIRPrinter::Operand(const PrimExpr& e, int parent, bool right) {
  ExprDoc doc = Print(e);
  bool paren = right ? doc.prec <= parent : doc.prec < parent;
  return paren ? "(" + doc.text + ")" : doc.text;
}

// --- Literals and variables --------------------------------------------------------------------

ExprDoc TIRPrinter::VisitExpr_(const IntImmNode* op) {
  if (op->dtype.is_bool()) return {Call("T.bool", {op->value ? "True" : "False"})};
  if (op->dtype == DataType::Int(32)) return {std::to_string(op->value)};
  return {Call(DTypeText(op->dtype), {std::to_string(op->value)})};
}

ExprDoc TIRPrinter::VisitExpr_(const FloatImmNode* op) {
  return {Call(DTypeText(op->dtype), {FormatFloat(op->value)})};
}

ExprDoc TIRPrinter::VisitExpr_(const StringImmNode* op) { return {QuoteString(op->value)}; }

ExprDoc TIRPrinter::VisitExpr_(const VarNode* op) { return {PrintVarUse(op)}; }
ExprDoc TIRPrinter::VisitExpr_(const SizeVarNode* op) { return {PrintVarUse(op)}; }

std::string TIRPrinter::PrintVarUse(const VarNode* var) {
  auto it = name_of_.find(var);
  if (it == name_of_.end()) {
    // A free variable: named once for the whole function and declared where its uses meet.
    std::string name = names_.DefineOutermost(var->name_hint);
    name_of_[var] = name;
    scope_objects_.front().push_back({var, std::nullopt});
    auto custom = custom_decl_.find(var);
    free_.push_back(
        {var, name + " = " + (custom != custom_decl_.end() ? custom->second : VarCreation(var))});
    pending_uses_.push_back(var);
    return name;
  }
  pending_uses_.push_back(var);
  return it->second;
}

std::string TIRPrinter::VarCreation(const VarNode* var) {
  if (auto* ptr = var->type_annotation.as<ir::PointerTypeNode>()) {
    const auto* elem = ptr->element_type.as<ir::PrimTypeNode>();
    bool global = ptr->storage_scope.empty() || ptr->storage_scope == "global";
    if (!elem)
      return global ? "T.handle()"
                    : Call("T.handle", {"storage_scope=" + QuoteString(ptr->storage_scope)});
    return Call("T.handle",
                {QuoteString(elem->dtype.ToString()),
                 QuoteString(ptr->storage_scope.empty() ? "global" : ptr->storage_scope)});
  }
  if (var->dtype.is_handle()) return "T.handle()";
  return DTypeText(var->dtype) + "()";
}

std::string TIRPrinter::TypeText(const ir::Type& type, DataType dtype) {
  if (!type.defined()) return DTypeText(dtype);
  if (auto* prim = type.as<ir::PrimTypeNode>()) return DTypeText(prim->dtype);
  if (auto* ptr = type.as<ir::PointerTypeNode>()) {
    const auto* elem = ptr->element_type.as<ir::PrimTypeNode>();
    bool global = ptr->storage_scope.empty() || ptr->storage_scope == "global";
    if (!elem || elem->dtype.is_void()) {
      return global ? "T.handle"
                    : Call("T.handle", {"storage_scope=" + QuoteString(ptr->storage_scope)});
    }
    return Call("T.handle", {QuoteString(elem->dtype.ToString()),
                             QuoteString(global ? "global" : ptr->storage_scope)});
  }
  if (auto* tuple = type.as<ir::TupleTypeNode>()) {
    std::vector<std::string> fields;
    for (const auto& f : tuple->fields) fields.push_back(TypeText(f, DataType::Void()));
    return Call("T.Tuple", fields);
  }
  return DTypeText(dtype);
}

// --- Arithmetic --------------------------------------------------------------------------------

ExprDoc TIRPrinter::VisitExpr_(const CastNode* op) {
  return {Call("T.Cast", {QuoteString(op->dtype.ToString()), P(op->value)})};
}

std::string TIRPrinter::Binary(const BinaryNode* op, TypeIndex kind) {
  return Call(std::string("T.") + NodeName(kind), {P(op->a), P(op->b)});
}

#define WB_SUGARED_BINARY(Name)                                                                   \
  ExprDoc TIRPrinter::VisitExpr_(const Name##Node* op) {                                          \
    auto [symbol, prec] = Operator(TypeIndex::k##Name);                                           \
    if (WouldFold(TypeIndex::k##Name, op->a, op->b)) {                                            \
      return {Binary(op, TypeIndex::k##Name)};                                                    \
    }                                                                                             \
    return {Operand(op->a, prec, false) + " " + symbol + " " + Operand(op->b, prec, true), prec}; \
  }
WB_SUGARED_BINARY(Add)
WB_SUGARED_BINARY(Sub)
WB_SUGARED_BINARY(Mul)
WB_SUGARED_BINARY(FloorDiv)
WB_SUGARED_BINARY(FloorMod)
WB_SUGARED_BINARY(EQ)
WB_SUGARED_BINARY(NE)
WB_SUGARED_BINARY(LT)
WB_SUGARED_BINARY(LE)
WB_SUGARED_BINARY(GT)
WB_SUGARED_BINARY(GE)
WB_SUGARED_BINARY(And)
WB_SUGARED_BINARY(Or)
#undef WB_SUGARED_BINARY

ExprDoc TIRPrinter::VisitExpr_(const DivNode* op) {
  // `/` on integers does not parse: integer division always prints `T.Div`.
  if (!op->dtype.is_floating_point() || WouldFold(TypeIndex::kDiv, op->a, op->b)) {
    return {Binary(op, TypeIndex::kDiv)};
  }
  return {Operand(op->a, kPrecMul, false) + " / " + Operand(op->b, kPrecMul, true), kPrecMul};
}

ExprDoc TIRPrinter::VisitExpr_(const ModNode* op) {
  return {Call("T.truncmod", {P(op->a), P(op->b)})};
}
ExprDoc TIRPrinter::VisitExpr_(const MinNode* op) { return {Call("T.min", {P(op->a), P(op->b)})}; }
ExprDoc TIRPrinter::VisitExpr_(const MaxNode* op) { return {Call("T.max", {P(op->a), P(op->b)})}; }

ExprDoc TIRPrinter::VisitExpr_(const NotNode* op) {
  if (op->a.as<IntImmNode>() || op->a.as<FloatImmNode>()) return {Call("T.Not", {P(op->a)})};
  return {"not " + Operand(op->a, kPrecNot, false), kPrecNot};
}

ExprDoc TIRPrinter::VisitExpr_(const SelectNode* op) {
  return {Call("T.Select", {P(op->condition), P(op->true_value), P(op->false_value)})};
}

// --- Memory and vectors ------------------------------------------------------------------------

std::string TIRPrinter::BufferName(const Buffer& buffer) {
  std::string name = ScalarName(buffer);
  if (buffer.defined() && scalar_buffers_.count(buffer.get())) name += ".buffer";
  return name;
}

bool TIRPrinter::IsScalarAccess(const Buffer& buffer, const std::vector<PrimExpr>& indices) const {
  if (!buffer.defined() || !scalar_buffers_.count(buffer.get()) || indices.size() != 1) {
    return false;
  }
  auto* imm = indices[0].as<IntImmNode>();
  return imm && imm->value == 0 && imm->dtype == DataType::Int(32);
}

std::string TIRPrinter::ScalarName(const Buffer& buffer) {
  if (!buffer.defined()) return "None";
  auto it = name_of_.find(buffer.get());
  if (it != name_of_.end()) {
    pending_uses_.push_back(buffer.get());
    auto deps = free_deps_.find(buffer.get());
    if (deps != free_deps_.end()) {
      pending_uses_.insert(pending_uses_.end(), deps->second.begin(), deps->second.end());
    }
    return it->second;
  }
  // A buffer used without a definition: declared `A = T.Buffer(...)` where its uses meet. Its
  // shape is printed first, so that the variables in it are declared before it.
  std::vector<const ir::Object*> outer_uses = std::move(pending_uses_);
  pending_uses_.clear();
  std::string name = names_.DefineOutermost(buffer->name, "buffer");
  std::vector<std::string> args = BufferArgs(buffer, name, false, false);
  std::vector<const ir::Object*> deps = std::move(pending_uses_);
  pending_uses_ = std::move(outer_uses);
  name_of_[buffer.get()] = name;
  scope_objects_.front().push_back({buffer.get(), std::nullopt});
  free_deps_[buffer.get()] = deps;
  free_.push_back({buffer.get(), name + " = " + Call("T.Buffer", args)});
  pending_uses_.push_back(buffer.get());
  pending_uses_.insert(pending_uses_.end(), deps.begin(), deps.end());
  return name;
}

namespace {

// Whether base + lanes * stride, the stop of a Ramp printed as a slice, is computed without
// overflowing the index type (else the slice would read back as another Ramp).
bool RampStopFits(const RampNode* ramp) {
  const auto* stride = ramp->stride.as<IntImmNode>();
  DataType t = ramp->stride->dtype;
  if (stride->value <= 0) return false;  // the parser reads a slice with a positive step only
  int64_t span = 0;
  if (__builtin_mul_overflow(stride->value, int64_t{ramp->lanes}, &span)) return false;
  if (t.bits() < 64) {
    int64_t half = int64_t{1} << (t.bits() - 1);
    if (span < -half || span >= half) return false;
  }
  const auto* base = ramp->base.as<IntImmNode>();
  if (!base) return true;
  int64_t stop = 0;
  if (__builtin_add_overflow(base->value, span, &stop)) return false;
  if (t.bits() < 64) {
    int64_t half = int64_t{1} << (t.bits() - 1);
    if (stop < -half || stop >= half) return false;
  }
  return true;
}

}  // namespace

std::string TIRPrinter::Indices(const std::vector<PrimExpr>& indices, bool slices) {
  if (indices.empty()) return "()";
  std::vector<std::string> out;
  for (const auto& index : indices) {
    const auto* ramp = index.as<RampNode>();
    if (slices && ramp && ramp->stride.as<IntImmNode>() && RampStopFits(ramp)) {
      PrimExpr stop =
          add(ramp->base, mul(make_const(ramp->stride->dtype, ramp->lanes), ramp->stride));
      std::string text = P(ramp->base) + ":" + P(stop);
      if (!IsConstInt(ramp->stride, 1)) text += ":" + P(ramp->stride);
      out.push_back(text);
    } else {
      out.push_back(P(index));
    }
  }
  return Join(out);
}

ExprDoc TIRPrinter::VisitExpr_(const BufferLoadNode* op) {
  if (!op->predicate.defined() && IsScalarAccess(op->buffer, op->indices)) {
    return {ScalarName(op->buffer)};
  }
  std::string name = BufferName(op->buffer);
  if (op->predicate.defined()) {
    return {name + ".vload([" + Indices(op->indices, false) + "], predicate=" + P(op->predicate) +
            ")"};
  }
  return {name + "[" + Indices(op->indices, true) + "]"};
}

ExprDoc TIRPrinter::VisitExpr_(const RampNode* op) {
  return {Call("T.Ramp", {P(op->base), P(op->stride), std::to_string(op->lanes)})};
}

ExprDoc TIRPrinter::VisitExpr_(const BroadcastNode* op) {
  return {Call("T.Broadcast", {P(op->value), std::to_string(op->lanes)})};
}

ExprDoc TIRPrinter::VisitExpr_(const ShuffleNode* op) {
  std::vector<std::string> vectors, indices;
  for (const auto& v : op->vectors) vectors.push_back(P(v));
  for (const auto& i : op->indices) indices.push_back(P(i));
  return {Call("T.Shuffle", {"[" + Join(vectors) + "]", "[" + Join(indices) + "]"})};
}

ExprDoc TIRPrinter::VisitExpr_(const LetNode* op) {
  std::string value = P(op->value);
  std::string var = op->var.defined() ? PrintVarUse(op->var.get()) : "None";
  return {Call("T.Let", {P(op->body), "where={" + var + ": " + value + "}"})};
}

// --- Calls and reductions ----------------------------------------------------------------------

ExprDoc TIRPrinter::VisitExpr_(const CallNode* op) {
  std::vector<std::string> args;
  for (const auto& a : op->args) args.push_back(P(a));
  if (auto* gv = op->op.as<ir::GlobalVarNode>()) {
    return {Call(module_ ? "Module." + gv->name_hint : gv->name_hint, args)};
  }
  if (auto* node = op->op.as<ir::OpNode>()) {
    const OpInfo* info = InfoOf(ir::GetRef(node));
    std::string name = node->name;
    if (info) {
      name = info->script_name;
    } else if (name.rfind("tirx.", 0) == 0) {
      name = name.substr(5);
    }
    if (info && info->result == OpResultType::kExplicit) {
      args.insert(args.begin(), QuoteString(op->dtype.ToString()));
    } else if (info && info->result == OpResultType::kExplicitLast) {
      args.push_back(QuoteString(op->dtype.ToString()));
    }
    return {Call("T." + name, args)};
  }
  return {Call("T.Call", {op->op.defined() ? QuoteString(op->op->type_key()) : "None",
                          "[" + Join(args) + "]"})};
}

std::string TIRPrinter::CommReducerText(const CommReducerNode* reducer) {
  PushScope();
  std::vector<std::string> params;
  for (const auto& v : reducer->lhs) params.push_back(Define(v.get(), v->name_hint));
  for (const auto& v : reducer->rhs) params.push_back(Define(v.get(), v->name_hint));
  std::vector<std::string> results;
  for (const auto& r : reducer->result) results.push_back(P(r));
  PopScope();
  std::string body = results.size() == 1 ? results[0] : "(" + Join(results) + ")";
  std::vector<std::string> identity;
  for (const auto& e : reducer->identity_element) identity.push_back(P(e));
  return Call("T.comm_reducer",
              {"lambda " + Join(params) + ": " + body, "[" + Join(identity) + "]"});
}

ExprDoc TIRPrinter::VisitExpr_(const ReduceNode* op) {
  std::vector<std::string> source, init, axis;
  for (const auto& s : op->source) source.push_back(P(s));
  for (const auto& s : op->init) init.push_back(P(s));
  for (const auto& iv : op->axis) axis.push_back(AttrValue(iv));
  std::string combiner = op->combiner.defined() ? CommReducerText(op->combiner.get()) : "None";
  return {Call("T.reduce", {combiner, "source=[" + Join(source) + "]", "init=[" + Join(init) + "]",
                            "axis=[" + Join(axis) + "]", "condition=" + P(op->condition),
                            "value_index=" + std::to_string(op->value_index)})};
}

// --- Attribute values --------------------------------------------------------------------------

std::string TIRPrinter::AttrDict(const ir::AttrMap& map) {
  std::vector<std::string> items;
  for (const auto& [key, value] : map) {
    auto* text = value.as<ir::StringObj>();
    items.push_back(QuoteString(key) + ": " +
                    (key == kTargetAttrKey && text ? TargetCallText(text->value) : AttrValue(value)));
  }
  return "{" + Join(items) + "}";
}

std::string TIRPrinter::AttrValue(const ir::ObjectRef& value) {
  if (!value.defined()) return "None";
  if (auto* s = value.as<ir::StringObj>()) return QuoteString(s->value);
  if (auto* i = value.as<ir::IntObj>()) return std::to_string(i->value);
  if (auto* b = value.as<ir::BoolObj>()) return b->value ? "True" : "False";
  if (auto* f = value.as<ir::FloatObj>()) return FormatPythonFloat(f->value);
  if (auto* a = value.as<ir::ArrayObj>()) {
    std::vector<std::string> items;
    for (const auto& item : a->items) items.push_back(AttrValue(item));
    return "[" + Join(items) + "]";
  }
  if (auto* m = value.as<ir::MapObj>()) return AttrDict(m->items);
  if (auto e = value.as_ref<ir::PrimExprNode>(); e.defined()) return P(e);
  if (auto* b = value.as<BufferNode>()) return BufferName(ir::GetRef(b));
  if (auto* iv = value.as<IterVarNode>()) {
    std::string var = iv->var.defined() ? PrintVarUse(iv->var.get()) : "None";
    return Call("T.iter_var", {var, AttrValue(iv->dom), QuoteString(IterVarTypeName(iv->iter_type)),
                               QuoteString(iv->thread_tag)});
  }
  if (auto* r = value.as<ir::RangeNode>()) {
    if (!r->min.defined() || !r->extent.defined()) return "None";
    return Call("T.Range", {P(r->min), P(add(r->min, r->extent))});
  }
  if (auto* c = value.as<CommReducerNode>()) return CommReducerText(c);
  if (auto* m = value.as<IndexMapNode>()) {
    // `T.index_map(lambda ...)`; TVM prints the parameters as names local to the lambda.
    auto lambda = [&](const IndexMapNode* map) {
      PushScope();
      std::vector<std::string> params, results;
      for (const auto& v : map->initial_indices) params.push_back(Define(v.get(), v->name_hint));
      for (const auto& e : map->final_indices) results.push_back(P(e));
      PopScope();
      return "lambda " + Join(params) + ": (" + Join(results) + (results.size() == 1 ? ",)" : ")");
    };
    std::vector<std::string> args{lambda(m)};
    if (auto* inv = m->inverse_index_map.as<IndexMapNode>()) {
      args.push_back("inverse_index_map=" + lambda(inv));
    }
    // As the Relax printer: a dtype other than the parser's int64 default is written out.
    if (!m->initial_indices.empty() && m->initial_indices[0]->dtype != DataType::Int(64)) {
      args.push_back("index_dtype=" + QuoteString(m->initial_indices[0]->dtype.ToString()));
    }
    return Call("T.index_map", args);
  }
  if (auto* gv = value.as<ir::GlobalVarNode>()) {
    return module_ ? "Module." + gv->name_hint : gv->name_hint;
  }
  if (auto t = value.as_ref<ir::TypeNode>(); t.defined()) return TypeText(t, DataType::Void());
  if (auto* op = value.as<ir::OpNode>()) return Call("I.Op", {QuoteString(op->name)});
  // No script form: TVM would send it to the metadata section.
  return std::string("metadata[") + QuoteString(value->type_key()) + "][0]";
}

}  // namespace wb::script::printer
