#include "lang/analysis_describe.h"

#include <sstream>

#include "relax/expr.h"
#include "tir/builtin.h"

namespace wb::lang {

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
  if (auto imm = expr.as<tir::IntImmNode>()) {
    if (imm->dtype.is_bool()) return imm->value ? "True" : "False";
    if (imm->dtype == ir::DataType::Int(32)) return std::to_string(imm->value);
    return "T." + imm->dtype.ToString() + "(" + std::to_string(imm->value) + ")";
  }
  if (auto imm = expr.as<tir::FloatImmNode>()) {
    std::ostringstream os;
    os << imm->value;
    return "T." + imm->dtype.ToString() + "(" + os.str() + ")";
  }
  if (auto s = expr.as<tir::StringImmNode>()) return "\"" + s->value + "\"";
  if (auto var = expr.as<tir::VarNode>()) return var->name_hint;
  if (auto bin = expr.as<tir::BinaryNode>()) {
    TypeIndex t = bin->type_index();
    if (t == TypeIndex::kMin || t == TypeIndex::kMax) {
      return std::string(t == TypeIndex::kMin ? "T.min(" : "T.max(") + ExprText(bin->a) + ", " + ExprText(bin->b) + ")";
    }
    if (const char* sym = BinarySymbol(t)) return "(" + ExprText(bin->a) + sym + ExprText(bin->b) + ")";
  }
  if (auto c = expr.as<tir::CastNode>()) return "T.Cast(\"" + c->dtype.ToString() + "\", " + ExprText(c->value) + ")";
  if (auto load = expr.as<tir::BufferLoadNode>()) return load->buffer->name + "[" + Join(load->indices) + "]";
  if (auto call = expr.as<tir::CallNode>()) {
    std::string callee = "?";
    if (auto op = call->op.as<ir::OpNode>()) {
      const tir::OpInfo* info = tir::InfoOf(ir::Op(op));
      callee = info ? "T." + info->script_name : op->name;
    } else if (auto gv = call->op.as<ir::GlobalVarNode>()) {
      callee = gv->name_hint;
    }
    return callee + "(" + Join(call->args) + ")";
  }
  return std::string("<") + expr->type_key() + ">";
}

std::string BufferText(const tir::Buffer& buffer) {
  std::string shape = Join(buffer->shape);
  if (buffer->shape.size() == 1) shape += ",";
  std::string out = "T.Buffer((" + shape + "), \"" + buffer->dtype.ToString() + "\"";
  std::string scope = buffer->scope();
  if (scope != "global") out += ", scope=\"" + scope + "\"";
  return out + ")";
}

std::string RegionText(const tir::BufferRegion& region) {
  std::string out = region->buffer->name + "[";
  for (size_t i = 0; i < region->region.size(); ++i) {
    const ir::Range& r = region->region[i];
    out += i ? ", " : "";
    auto extent = r->extent.as<tir::IntImmNode>();
    if (extent && extent->value == 1) {
      out += ExprText(r->min);
    } else if (auto min = r->min.as<tir::IntImmNode>(); min && extent) {
      out += std::to_string(min->value) + ":" + std::to_string(min->value + extent->value);
    } else {
      out += ExprText(r->min) + ":" + ExprText(r->min) + " + " + ExprText(r->extent);
    }
  }
  return out + "]";
}

namespace {

std::string RelaxSignatureText(const std::string& name, const relax::FunctionNode* func) {
  std::string out = "def " + name + "(";
  for (size_t i = 0; i < func->params.size(); ++i) {
    out += (i ? ", " : "") + func->params[i]->name_hint + ": " + relax::TypeToString(func->params[i]->struct_info);
  }
  out += ")";
  if (func->ret_struct_info.defined()) out += " -> " + relax::TypeToString(func->ret_struct_info);
  return out;
}

}  // namespace

std::string DecoratorText(const ir::BaseFuncNode* func) {
  return ir::IsInstance<relax::FunctionNode>(func) ? "@R.function" : "@T.prim_func";
}

std::string FunctionKindText(const ir::BaseFuncNode* func) {
  return ir::IsInstance<relax::FunctionNode>(func) ? "Relax function" : "PrimFunc";
}

std::string SignatureText(const std::string& name, const ir::BaseFuncNode* base) {
  if (ir::IsInstance<relax::FunctionNode>(base)) {
    return RelaxSignatureText(name, static_cast<const relax::FunctionNode*>(base));
  }
  if (!ir::IsInstance<tir::PrimFuncNode>(base)) return "def " + name;
  auto func = static_cast<const tir::PrimFuncNode*>(base);
  std::string out = "def " + name + "(";
  for (size_t i = 0; i < func->params.size(); ++i) {
    out += i ? ", " : "";
    const tir::Buffer& buffer = func->buffer_map[i];
    if (buffer.defined()) {
      out += buffer->name + ": " + BufferText(buffer);
    } else {
      out += func->params[i]->name_hint + ": T." + func->params[i]->dtype.ToString();
    }
  }
  return out + ")";
}

}  // namespace wb::lang
