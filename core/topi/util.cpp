#include "topi/util.h"

#include <stdexcept>

#include "ir/structural_equal.h"
#include "tir/builtin.h"
#include "tir/op.h"

namespace wb::topi {

ir::PrimExpr Intrin(const std::string& name, std::vector<ir::PrimExpr> args) {
  ir::DataType t = args.at(0)->dtype;
  return tir::MakeCall(t, tir::GetOp("tirx." + name), std::move(args));
}

bool SameDim(const ir::PrimExpr& a, const ir::PrimExpr& b) {
  const int64_t* x = tir::AsConstInt(a);
  const int64_t* y = tir::AsConstInt(b);
  if (x && y) return *x == *y;
  return a.same_as(b) || ir::StructuralEqual(a, b, /*map_free_vars=*/false);
}

std::string DimString(const ir::PrimExpr& e) {
  if (const int64_t* v = tir::AsConstInt(e)) return std::to_string(*v);
  if (auto* var = e.as<tir::VarNode>()) return var->name_hint;
  return "(expression)";
}

int64_t NormalizeAxis(int64_t axis, size_t ndim, const char* op) {
  int64_t n = static_cast<int64_t>(ndim);
  if (axis < -n || axis >= n) {
    throw std::invalid_argument(std::string("topi.") + op + ": axis " + std::to_string(axis) +
                                " is out of range for " + std::to_string(n) + " dims");
  }
  return axis < 0 ? axis + n : axis;
}

ir::PrimExpr Const(ir::DataType dtype, double value) {
  if (dtype.is_floating_point()) return tir::make_const(dtype, value);
  return tir::make_const(dtype, static_cast<int64_t>(value));
}

ir::PrimExpr Index(int64_t value) { return tir::make_const(ir::DataType::Int(64), value); }

ir::PrimExpr Product(const std::vector<ir::PrimExpr>& dims) {
  if (dims.empty()) return Index(1);
  ir::PrimExpr p = dims[0];
  for (size_t i = 1; i < dims.size(); ++i) p = tir::mul(p, dims[i]);
  return p;
}

}  // namespace wb::topi
