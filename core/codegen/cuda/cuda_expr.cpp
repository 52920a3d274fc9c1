// Expressions as CUDA C text. Scalars print inline; Let values are declared before the
// statement that uses them. Vectors print lane by lane (CUDA's vector types have no
// arithmetic): shared parts (a Ramp's base, a broadcast value, a vector load) are declared once
// and each lane is a scalar expression over them. Narrow integers wrap after each operation, as
// TIR's 8/16-bit arithmetic does (C promotes them to int).
#include "codegen/cuda/cuda_printer.h"
#include "tir/op.h"

namespace wb::codegen::cuda {

using namespace tir;
using ir::TypeIndex;

namespace {

bool IsNarrowInt(DataType t) { return (t.is_int() || t.is_uint()) && t.bits() < 32; }

bool IsSimple(const PrimExpr& e) {
  return e.as<VarNode>() || e.as<IntImmNode>() || e.as<FloatImmNode>();
}

const char* Symbol(TypeIndex kind) {
  switch (kind) {
    case TypeIndex::kAdd: return "+";
    case TypeIndex::kSub: return "-";
    case TypeIndex::kMul: return "*";
    case TypeIndex::kDiv: return "/";
    case TypeIndex::kMod: return "%";
    case TypeIndex::kEQ: return "==";
    case TypeIndex::kNE: return "!=";
    case TypeIndex::kLT: return "<";
    case TypeIndex::kLE: return "<=";
    case TypeIndex::kGT: return ">";
    case TypeIndex::kGE: return ">=";
    case TypeIndex::kAnd: return "&&";
    case TypeIndex::kOr: return "||";
    default: return nullptr;
  }
}

}  // namespace

std::string CudaPrinter::SSA(DataType t, const std::string& value, const std::string& hint) {
  std::string name = AllocName(hint);
  Line() << TypeName(t) << " " << name << " = " << value << ";\n";
  return name;
}

std::string CudaPrinter::Print(const PrimExpr& e) {
  if (e->dtype.lanes() > 1) {
    Unsupported("a " + e->dtype.ToString() + " vector expression where a scalar is needed");
  }
  return tir::ExprFunctor<std::string(const PrimExpr&)>::VisitExpr(e);
}

std::string CudaPrinter::Binary(TypeIndex kind, DataType t, const std::string& a, const std::string& b,
                                const PrimExpr& lhs_expr, const PrimExpr& rhs_expr) {
  auto wrap = [&](std::string v) {
    return IsNarrowInt(t) ? "((" + TypeName(t) + ")" + v + ")" : v;
  };
  auto via_float = [&](const std::string& f32) { return FromFloat(t, f32); };
  bool narrow_float = IsNarrowFloat(t);
  std::string fa = narrow_float ? ToFloat(t, a) : a;
  std::string fb = narrow_float ? ToFloat(t, b) : b;
  bool f64 = t.is_float() && t.bits() == 64;
  std::string suffix = f64 ? "" : "f";
  switch (kind) {
    case TypeIndex::kAdd:
    case TypeIndex::kSub:
    case TypeIndex::kMul:
    case TypeIndex::kDiv:
      if (t.is_bool()) Unsupported("arithmetic on bool");
      return wrap("(" + a + " " + Symbol(kind) + " " + b + ")");
    case TypeIndex::kMod:
      if (t.is_floating_point()) {
        std::string r = "fmod" + suffix + "(" + fa + ", " + fb + ")";
        return narrow_float ? via_float(r) : r;
      }
      return wrap("(" + a + " % " + b + ")");
    case TypeIndex::kFloorDiv:
    case TypeIndex::kFloorMod: {
      bool is_div = kind == TypeIndex::kFloorDiv;
      if (t.is_floating_point()) {
        std::string q = "floor" + suffix + "(" + fa + " / " + fb + ")";
        std::string r = is_div ? q : "(" + fa + " - " + q + " * " + fb + ")";
        return narrow_float ? via_float(r) : r;
      }
      const char* sym = is_div ? " / " : " % ";
      if (t.is_uint() || t.is_bool()) return wrap("(" + a + sym + b + ")");
      // Truncation equals flooring when both sides are known non-negative.
      if (lhs_expr.defined() && rhs_expr.defined() && lhs_expr->dtype.lanes() == 1 &&
          analyzer_.CanProveGreaterEqual(lhs_expr, 0) && analyzer_.CanProveGreaterEqual(rhs_expr, 1)) {
        return wrap("(" + a + sym + b + ")");
      }
      helpers_.insert("floordiv");
      std::string ct = t.bits() < 32 ? "int" : TypeName(t);
      return wrap(std::string(is_div ? "wb_floordiv<" : "wb_floormod<") + ct + ">(" + a + ", " + b + ")");
    }
    case TypeIndex::kMin:
    case TypeIndex::kMax: {
      bool is_min = kind == TypeIndex::kMin;
      if (t.is_bool()) return "(" + a + (is_min ? " && " : " || ") + b + ")";
      if (t.is_floating_point()) {
        std::string r = std::string(is_min ? "fmin" : "fmax") + suffix + "(" + fa + ", " + fb + ")";
        return narrow_float ? via_float(r) : r;
      }
      const char* fn = is_min ? "min" : "max";
      if (IsNarrowInt(t)) return wrap(std::string(fn) + "((int)" + a + ", (int)" + b + ")");
      return std::string(fn) + "(" + a + ", " + b + ")";
    }
    case TypeIndex::kEQ:
    case TypeIndex::kNE:
    case TypeIndex::kLT:
    case TypeIndex::kLE:
    case TypeIndex::kGT:
    case TypeIndex::kGE:
    case TypeIndex::kAnd:
    case TypeIndex::kOr:
      return "(" + a + " " + Symbol(kind) + " " + b + ")";
    default:
      Unsupported("binary node kind " + std::to_string(static_cast<int>(kind)));
  }
}

// --- scalars -----------------------------------------------------------------------------------

std::string CudaPrinter::VisitExpr_(const IntImmNode* op) { return IntLiteral(op->dtype, op->value); }
std::string CudaPrinter::VisitExpr_(const FloatImmNode* op) { return FloatLiteral(op->dtype, op->value); }

std::string CudaPrinter::VisitExpr_(const StringImmNode* op) {
  std::string out = "\"";
  for (char c : op->value) {
    if (c == '"' || c == '\\') out += '\\';
    if (c == '\n') {
      out += "\\n";
      continue;
    }
    out += c;
  }
  return out + "\"";
}

std::string CudaPrinter::VisitExpr_(const VarNode* op) { return NameOf(op); }
std::string CudaPrinter::VisitExpr_(const SizeVarNode* op) { return NameOf(op); }

std::string CudaPrinter::VisitExpr_(const CastNode* op) {
  return CastString(op->value->dtype, op->dtype, Print(op->value));
}

#define WB_BINARY(Name)                                                                     \
  std::string CudaPrinter::VisitExpr_(const Name##Node* op) {                               \
    return Binary(TypeIndex::k##Name, op->a->dtype, Print(op->a), Print(op->b), op->a, op->b); \
  }
WB_BINARY(Add)
WB_BINARY(Sub)
WB_BINARY(Mul)
WB_BINARY(Div)
WB_BINARY(Mod)
WB_BINARY(FloorDiv)
WB_BINARY(FloorMod)
WB_BINARY(Min)
WB_BINARY(Max)
WB_BINARY(EQ)
WB_BINARY(NE)
WB_BINARY(LT)
WB_BINARY(LE)
WB_BINARY(GT)
WB_BINARY(GE)
WB_BINARY(And)
WB_BINARY(Or)
#undef WB_BINARY

std::string CudaPrinter::VisitExpr_(const NotNode* op) { return "(!" + Print(op->a) + ")"; }

std::string CudaPrinter::VisitExpr_(const SelectNode* op) {
  return "(" + Print(op->condition) + " ? " + Print(op->true_value) + " : " + Print(op->false_value) + ")";
}

std::string CudaPrinter::VisitExpr_(const LetNode* op) {
  std::string value = Print(op->value);
  std::string name = Define(op->var.get());
  Line() << TypeName(op->var->dtype) << " " << name << " = " << value << ";\n";
  return Print(op->body);
}

std::string CudaPrinter::VisitExpr_(const RampNode* op) { return Lanes(PrimExpr(ir::GetRef(op)), static_cast<int>(op->lanes))[0]; }
std::string CudaPrinter::VisitExpr_(const BroadcastNode* op) { return Print(op->value); }
std::string CudaPrinter::VisitExpr_(const ShuffleNode* op) { return Lanes(PrimExpr(ir::GetRef(op)), 1)[0]; }
std::string CudaPrinter::VisitExpr_(const CallNode* op) { return PrintCall(op); }

std::string CudaPrinter::VisitExpr_(const ReduceNode* op) {
  Unsupported("T.reduce (a reduction must be lowered before code generation)");
}

// --- buffers -----------------------------------------------------------------------------------

PrimExpr CudaPrinter::FlatIndex(const Buffer& buffer, const std::vector<PrimExpr>& indices) {
  PrimExpr flat;
  if (indices.size() == 1 && buffer->strides.empty()) {
    flat = indices[0];
  } else {
    if (indices.size() != buffer->shape.size()) {
      Unsupported("an access to buffer '" + buffer->name + "' with " + std::to_string(indices.size()) +
                  " indices for " + std::to_string(buffer->shape.size()) + " dimensions");
    }
    DataType idx_t = indices.empty() ? DataType::Int(32) : indices[0]->dtype.element_of();
    PrimExpr stride = make_const(idx_t, int64_t{1});
    for (size_t k = indices.size(); k-- > 0;) {
      PrimExpr s = buffer->strides.empty() ? stride : cast(idx_t, buffer->strides[k]);
      PrimExpr idx = indices[k];
      PrimExpr term;
      if (auto* ramp = idx.as<RampNode>()) {
        term = MakeRamp(mul(cast(idx_t, ramp->base), s), mul(cast(idx_t, ramp->stride), s), ramp->lanes);
      } else if (idx->dtype.lanes() > 1) {
        term = mul(cast(idx_t.with_lanes(idx->dtype.lanes()), idx), MakeBroadcast(s, idx->dtype.lanes()));
      } else {
        term = mul(cast(idx_t, idx), s);
      }
      if (!flat.defined()) {
        flat = term;
      } else if (auto* r = flat.as<RampNode>(); r && term->dtype.lanes() == 1) {
        flat = MakeRamp(add(r->base, term), r->stride, r->lanes);
      } else if (auto* r2 = term.as<RampNode>(); r2 && flat->dtype.lanes() == 1) {
        flat = MakeRamp(add(r2->base, flat), r2->stride, r2->lanes);
      } else if (flat->dtype.lanes() != term->dtype.lanes()) {
        int lanes = std::max(flat->dtype.lanes(), term->dtype.lanes());
        auto widen = [&](PrimExpr e) { return e->dtype.lanes() == 1 ? MakeBroadcast(e, lanes) : e; };
        flat = add(widen(flat), widen(term));
      } else {
        flat = add(flat, term);
      }
      stride = mul(stride, cast(idx_t, buffer->shape[k]));
    }
  }
  if (buffer->elem_offset.defined() && !IsConstInt(buffer->elem_offset, 0)) {
    PrimExpr off = cast(flat->dtype.element_of(), buffer->elem_offset);
    if (auto* r = flat.as<RampNode>()) flat = MakeRamp(add(r->base, off), r->stride, r->lanes);
    else if (flat->dtype.lanes() > 1) flat = add(flat, MakeBroadcast(off, flat->dtype.lanes()));
    else flat = add(flat, off);
  }
  return flat;
}

std::string CudaPrinter::BufferPointer(const Buffer& buffer) {
  const VarNode* data = buffer->data.get();
  std::string name = NameOf(data);
  auto it = pointer_elem_.find(data);
  if (it != pointer_elem_.end() && it->second == buffer->dtype) return name;
  return "((" + TypeName(buffer->dtype) + "*)" + name + ")";
}

std::string CudaPrinter::Element(const Buffer& buffer, const std::string& index) {
  if (buffer->dtype.lanes() > 1) Unsupported("buffer '" + buffer->name + "' of vector dtype " + buffer->dtype.ToString());
  return BufferPointer(buffer) + "[" + index + "]";
}

std::string CudaPrinter::VectorAddress(const Buffer& buffer, const PrimExpr& index, DataType access) {
  auto* ramp = index.as<RampNode>();
  if (!ramp || !IsConstInt(ramp->stride, 1) || !HasVectorType(access)) return "";
  int64_t lanes = ramp->lanes;
  int64_t bytes = access.bytes() * lanes;
  auto it = pointer_align_.find(buffer->data.get());
  if (it == pointer_align_.end() || it->second < bytes) return "";
  arith::ModularSet m = analyzer_.modular_set(ramp->base);
  if (m.coeff % lanes != 0 || m.base % lanes != 0) return "";
  return "(" + BufferPointer(buffer) + " + " + Print(ramp->base) + ")";
}

std::string CudaPrinter::VisitExpr_(const BufferLoadNode* op) {
  if (op->dtype.lanes() > 1) Unsupported("a vector load where a scalar is needed");
  std::string elem = Element(op->buffer, Print(FlatIndex(op->buffer, op->indices)));
  if (op->predicate.defined()) {
    return "(" + Print(op->predicate) + " ? " + elem + " : " + IntLiteral(op->dtype, 0) + ")";
  }
  return elem;
}

// --- vectors -----------------------------------------------------------------------------------

std::vector<std::string> CudaPrinter::Lanes(const PrimExpr& e, int lanes) {
  DataType t = e->dtype;
  if (t.lanes() == 1) {
    std::string v = Print(e);
    if (lanes > 1 && !IsSimple(e)) v = SSA(t, v);
    return std::vector<std::string>(lanes, v);
  }
  if (t.lanes() != lanes) {
    Unsupported("a " + t.ToString() + " vector where " + std::to_string(lanes) + " lanes are needed");
  }
  DataType et = t.element_of();
  std::vector<std::string> out;
  auto binary = [&](TypeIndex kind, const PrimExpr& a, const PrimExpr& b) {
    std::vector<std::string> la = Lanes(a, lanes), lb = Lanes(b, lanes);
    for (int i = 0; i < lanes; ++i) out.push_back(Binary(kind, a->dtype.element_of(), la[i], lb[i]));
    return out;
  };
  switch (e->type_index()) {
#define WB_CASE(Name) \
  case TypeIndex::k##Name: return binary(TypeIndex::k##Name, static_cast<const Name##Node*>(e.get())->a, \
                                         static_cast<const Name##Node*>(e.get())->b);
    WB_CASE(Add) WB_CASE(Sub) WB_CASE(Mul) WB_CASE(Div) WB_CASE(Mod) WB_CASE(FloorDiv) WB_CASE(FloorMod)
    WB_CASE(Min) WB_CASE(Max) WB_CASE(EQ) WB_CASE(NE) WB_CASE(LT) WB_CASE(LE) WB_CASE(GT) WB_CASE(GE)
    WB_CASE(And) WB_CASE(Or)
#undef WB_CASE
    default: break;
  }
  if (auto* r = e.as<RampNode>()) {
    std::string base = Print(r->base);
    if (!IsSimple(r->base)) base = SSA(et, base);
    const int64_t* stride = AsConstInt(r->stride);
    std::string s = Print(r->stride);
    if (!stride && !IsSimple(r->stride)) s = SSA(et, s);
    for (int i = 0; i < lanes; ++i) {
      if (i == 0) {
        out.push_back(base);
      } else if (stride) {
        out.push_back(Binary(TypeIndex::kAdd, et, base, IntLiteral(et, *stride * i)));
      } else {
        out.push_back(Binary(TypeIndex::kAdd, et, base, Binary(TypeIndex::kMul, et, IntLiteral(et, i), s)));
      }
    }
    return out;
  }
  if (auto* b = e.as<BroadcastNode>()) return Lanes(b->value, lanes);
  if (auto* n = e.as<NotNode>()) {
    for (auto& l : Lanes(n->a, lanes)) out.push_back("(!" + l + ")");
    return out;
  }
  if (auto* s = e.as<SelectNode>()) {
    auto c = Lanes(s->condition, lanes), a = Lanes(s->true_value, lanes), b = Lanes(s->false_value, lanes);
    for (int i = 0; i < lanes; ++i) out.push_back("(" + c[i] + " ? " + a[i] + " : " + b[i] + ")");
    return out;
  }
  if (auto* c = e.as<CastNode>()) {
    DataType from = c->value->dtype.element_of();
    for (auto& l : Lanes(c->value, lanes)) out.push_back(CastString(from, et, l));
    return out;
  }
  if (auto* v = e.as<VarNode>()) {
    auto it = vector_vars_.find(v);
    if (it == vector_vars_.end()) Unsupported("vector variable '" + v->name_hint + "' is used but not defined");
    return it->second;
  }
  if (auto* let = e.as<LetNode>()) {
    std::vector<std::string> values = Lanes(let->value, let->value->dtype.lanes());
    if (let->var->dtype.lanes() > 1) {
      std::vector<std::string> names;
      for (auto& v : values) names.push_back(SSA(let->var->dtype.element_of(), v, let->var->name_hint));
      vector_vars_[let->var.get()] = names;
    } else {
      std::string name = Define(let->var.get());
      Line() << TypeName(let->var->dtype) << " " << name << " = " << values[0] << ";\n";
    }
    return Lanes(let->body, lanes);
  }
  if (auto* sh = e.as<ShuffleNode>()) {
    std::vector<std::string> all;
    for (const auto& v : sh->vectors) {
      auto l = Lanes(v, v->dtype.lanes());
      all.insert(all.end(), l.begin(), l.end());
    }
    for (const auto& idx : sh->indices) {
      const int64_t* k = AsConstInt(idx);
      if (!k || *k < 0 || *k >= static_cast<int64_t>(all.size())) Unsupported("a shuffle with a non-constant or out-of-range index");
      out.push_back(all[*k]);
    }
    if (static_cast<int>(out.size()) != lanes) Unsupported("a shuffle whose index count differs from its lanes");
    return out;
  }
  if (auto* load = e.as<BufferLoadNode>()) {
    PrimExpr flat = FlatIndex(load->buffer, load->indices);
    if (!load->predicate.defined()) {
      std::string address = VectorAddress(load->buffer, flat, t);
      if (!address.empty()) {
        // One aligned vector load (float4, half2, ...), then its lanes.
        std::string v = SSA(t, "*(" + TypeName(t) + "*)" + address, load->buffer->name + "_vec");
        for (int i = 0; i < lanes; ++i) out.push_back(v + LaneField(i));
        return out;
      }
    }
    std::vector<std::string> idx = Lanes(flat, lanes);
    std::vector<std::string> pred;
    if (load->predicate.defined()) pred = Lanes(load->predicate, lanes);
    for (int i = 0; i < lanes; ++i) {
      std::string elem = Element(load->buffer, idx[i]);
      if (!pred.empty()) elem = "(" + pred[i] + " ? " + elem + " : " + IntLiteral(et, 0) + ")";
      out.push_back(elem);
    }
    return out;
  }
  if (auto* call = e.as<CallNode>()) {
    auto* o = call->op.as<ir::OpNode>();
    std::string name = o ? o->name.substr(o->name.find('.') + 1) : "";
    if (name == "if_then_else") {
      auto c = Lanes(call->args[0], lanes), a = Lanes(call->args[1], lanes), b = Lanes(call->args[2], lanes);
      for (int i = 0; i < lanes; ++i) out.push_back("(" + c[i] + " ? " + a[i] + " : " + b[i] + ")");
      return out;
    }
    std::vector<std::vector<std::string>> args;
    std::vector<DataType> types;
    for (const auto& a : call->args) {
      args.push_back(Lanes(a, lanes));
      types.push_back(a->dtype.element_of());
    }
    for (int i = 0; i < lanes; ++i) {
      std::vector<std::string> lane_args;
      for (auto& a : args) lane_args.push_back(a[i]);
      std::string v = ElementwiseCall(name, et, types, lane_args);
      if (v.empty()) Unsupported("T." + name + " on vector dtype " + t.ToString());
      out.push_back(v);
    }
    return out;
  }
  Unsupported(std::string("vector expression ") + e->type_key() + " of dtype " + t.ToString());
}

}  // namespace wb::codegen::cuda
