// FLOP counting of a PrimFunc (TVM's FlopEstimator idea): every floating-point arithmetic
// operation or math call in a stored value counts once per lane, multiplied by the extents of
// the loops around it. Symbolic extents take their values from `bindings` (shape variables
// bound from the arguments); an extent that stays unknown makes the count unknown.
#pragma once

#include <cstdint>
#include <map>
#include <optional>

#include "tir/stmt.h"

namespace wb::codegen {

using VarBindings = std::map<const tir::VarNode*, int64_t>;

std::optional<double> CountFlops(const tir::PrimFunc& func, const VarBindings& bindings = {});

// The operations one call executes, of any dtype: every arithmetic node, comparison, call,
// buffer load and store, times the extents of the loops around it. What the reference
// interpreter's run time grows with (workbench's `auto` reference choice reads it).
std::optional<double> CountOperations(const tir::PrimFunc& func, const VarBindings& bindings = {});

// The value of an integer expression over bound variables (constants, + - * // % min max),
// or nullopt.
std::optional<int64_t> EvalIndex(const ir::PrimExpr& e, const VarBindings& bindings);

}  // namespace wb::codegen
