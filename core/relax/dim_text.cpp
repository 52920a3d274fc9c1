#include "relax/dim_text.h"

#include "tir/expr.h"

namespace wb::relax {

namespace {

const char* InfixOf(ir::TypeIndex kind) {
  switch (kind) {
    case ir::TypeIndex::kAdd:
      return " + ";
    case ir::TypeIndex::kSub:
      return " - ";
    case ir::TypeIndex::kMul:
      return " * ";
    case ir::TypeIndex::kDiv:
      return " / ";
    case ir::TypeIndex::kFloorDiv:
      return " // ";
    case ir::TypeIndex::kFloorMod:
      return " % ";
    default:
      return nullptr;
  }
}

const char* CallNameOf(ir::TypeIndex kind) {
  switch (kind) {
    case ir::TypeIndex::kMin:
      return "T.min";
    case ir::TypeIndex::kMax:
      return "T.max";
    case ir::TypeIndex::kMod:
      return "T.truncmod";
    default:
      return nullptr;
  }
}

// Operands that are themselves sums or products are parenthesized: always correct, if not
// always minimal.
std::string Operand(const ir::PrimExpr& e) {
  std::string s = DimToString(e);
  if (e.as<tir::BinaryNode>() && InfixOf(e->type_index())) return "(" + s + ")";
  return s;
}

}  // namespace

std::string DimToString(const ir::PrimExpr& dim) {
  if (!dim.defined()) return "?";
  if (auto* i = dim.as<tir::IntImmNode>()) return std::to_string(i->value);
  if (auto* v = dim.as<tir::VarNode>()) return v->name_hint;
  if (auto* b = dim.as<tir::BinaryNode>()) {
    if (const char* op = InfixOf(dim->type_index())) return Operand(b->a) + op + Operand(b->b);
    if (const char* fn = CallNameOf(dim->type_index())) {
      return std::string(fn) + "(" + DimToString(b->a) + ", " + DimToString(b->b) + ")";
    }
  }
  if (auto* c = dim.as<tir::CastNode>()) return DimToString(c->value);
  return dim->type_key();
}

}  // namespace wb::relax
