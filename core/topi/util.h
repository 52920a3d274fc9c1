// Helpers shared by the topi operators: TVM's stage tags, builtin calls, dim comparison and
// axis normalization.
#pragma once

#include <string>
#include <vector>

#include "te/tensor.h"

namespace wb::topi {

// TVM's topi tags (topi/tags.h): what a stage is, for schedules that dispatch on it.
inline constexpr const char* kTagElemWise = "elemwise";
inline constexpr const char* kTagBroadcast = "broadcast";
inline constexpr const char* kTagInjective = "injective";
inline constexpr const char* kTagCommReduce = "comm_reduce";
inline constexpr const char* kTagCommReduceIdx = "comm_reduce_idx";

// A call of the TIR builtin `name` ("exp", "pow", ...) with the first argument's dtype.
ir::PrimExpr Intrin(const std::string& name, std::vector<ir::PrimExpr> args);
// True when two dims are the same constant or the same expression.
bool SameDim(const ir::PrimExpr& a, const ir::PrimExpr& b);
std::string DimString(const ir::PrimExpr& e);
// An axis in [-ndim, ndim) made non-negative; std::invalid_argument when out of range.
int64_t NormalizeAxis(int64_t axis, size_t ndim, const char* op);
// A literal of `dtype` (int64 for shapes).
ir::PrimExpr Const(ir::DataType dtype, double value);
ir::PrimExpr Index(int64_t value);  // an int64 index literal
// The product of dims, folded.
ir::PrimExpr Product(const std::vector<ir::PrimExpr>& dims);

}  // namespace wb::topi
