#include "tir/expr_text.h"

#include <sstream>

#include "tir/builtin.h"

namespace wb::tir {

namespace {

const char* BinarySymbol(ir::TypeIndex t) {
  using ir::TypeIndex;
  switch (t) {
    case TypeIndex::kAdd: return " + ";
    case TypeIndex::kSub: return " - ";
    case TypeIndex::kMul: return " * ";
    case TypeIndex::kDiv: return " / ";
    case TypeIndex::kMod: return " % ";
    case TypeIndex::kFloorDiv: return " // ";
    case TypeIndex::kFloorMod: return " % ";
    case TypeIndex::kEQ: return " == ";
    case TypeIndex::kNE: return " != ";
    case TypeIndex::kLT: return " < ";
    case TypeIndex::kLE: return " <= ";
    case TypeIndex::kGT: return " > ";
    case TypeIndex::kGE: return " >= ";
    case TypeIndex::kAnd: return " and ";
    case TypeIndex::kOr: return " or ";
    default: return nullptr;
  }
}

std::string Join(const std::vector<ir::PrimExpr>& exprs) {
  std::string out;
  for (size_t i = 0; i < exprs.size(); ++i) out += (i ? ", " : "") + ExprText(exprs[i]);
  return out;
}

}  // namespace

std::string ExprText(const ir::PrimExpr& expr) {
  using ir::TypeIndex;
  if (!expr.defined()) return "None";
  if (auto imm = expr.as<IntImmNode>()) {
    if (imm->dtype.is_bool()) return imm->value ? "True" : "False";
    if (imm->dtype == ir::DataType::Int(32)) return std::to_string(imm->value);
    return "T." + imm->dtype.ToString() + "(" + std::to_string(imm->value) + ")";
  }
  if (auto imm = expr.as<FloatImmNode>()) {
    std::ostringstream os;
    os << imm->value;
    return "T." + imm->dtype.ToString() + "(" + os.str() + ")";
  }
  if (auto s = expr.as<StringImmNode>()) return "\"" + s->value + "\"";
  if (auto var = expr.as<VarNode>()) return var->name_hint;
  if (auto bin = expr.as<BinaryNode>()) {
    TypeIndex t = bin->type_index();
    if (t == TypeIndex::kMin || t == TypeIndex::kMax) {
      return std::string(t == TypeIndex::kMin ? "T.min(" : "T.max(") + ExprText(bin->a) + ", " + ExprText(bin->b) + ")";
    }
    if (const char* sym = BinarySymbol(t)) return "(" + ExprText(bin->a) + sym + ExprText(bin->b) + ")";
  }
  if (auto c = expr.as<CastNode>()) return "T.Cast(\"" + c->dtype.ToString() + "\", " + ExprText(c->value) + ")";
  if (auto load = expr.as<BufferLoadNode>()) return load->buffer->name + "[" + Join(load->indices) + "]";
  if (auto call = expr.as<CallNode>()) {
    std::string callee = "?";
    if (auto op = call->op.as<ir::OpNode>()) {
      const OpInfo* info = InfoOf(ir::Op(op));
      callee = info ? "T." + info->script_name : op->name;
    } else if (auto gv = call->op.as<ir::GlobalVarNode>()) {
      callee = gv->name_hint;
    }
    return callee + "(" + Join(call->args) + ")";
  }
  return std::string("<") + expr->type_key() + ">";
}

std::string RegionText(const BufferRegion& region) {
  std::string out = region->buffer->name + "[";
  for (size_t i = 0; i < region->region.size(); ++i) {
    const ir::Range& r = region->region[i];
    out += i ? ", " : "";
    auto extent = r->extent.as<IntImmNode>();
    if (extent && extent->value == 1) {
      out += ExprText(r->min);
    } else if (auto min = r->min.as<IntImmNode>(); min && extent) {
      out += std::to_string(min->value) + ":" + std::to_string(min->value + extent->value);
    } else {
      out += ExprText(r->min) + ":" + ExprText(r->min) + " + " + ExprText(r->extent);
    }
  }
  return out + "]";
}

}  // namespace wb::tir
