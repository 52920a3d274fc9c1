// Replacing variables by expressions throughout a statement or expression (TVM's Substitute).
#pragma once

#include <functional>
#include <unordered_map>

#include "tir/stmt.h"

namespace wb::tir {

using VarMap = std::unordered_map<const VarNode*, PrimExpr>;

// Every use of a var in `vmap` (loads, stores, regions, buffer shapes of uses are left alone)
// becomes its expression; nodes without a replaced var are shared, not copied.
Stmt Substitute(const Stmt& stmt, const VarMap& vmap);
PrimExpr Substitute(const PrimExpr& expr, const VarMap& vmap);
BufferRegion Substitute(const BufferRegion& region, const VarMap& vmap);

}  // namespace wb::tir
