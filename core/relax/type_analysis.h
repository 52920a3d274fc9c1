// Walking and rewriting the symbolic dims inside Relax types: which tirx.Vars a type mentions,
// substituting them (a callee's `n` becomes the caller's dim at a call), and erasing the dims
// that mention vars out of scope (a function's result may not name a var bound inside it).
#pragma once

#include <functional>
#include <unordered_map>
#include <vector>

#include "relax/type.h"
#include "tir/expr.h"

namespace wb::relax {

// Calls `fn` on every dim of every tensor and shape type inside `type`, in order.
void ForEachDim(const Type& type, const std::function<void(const PrimExpr&)>& fn);
// The tirx.Vars that `expr` mentions, each once, in first-occurrence order.
std::vector<tir::Var> VarsOf(const PrimExpr& expr);
// The tirx.Vars that `type` mentions, each once, in first-occurrence order.
std::vector<tir::Var> VarsOf(const Type& type);

using DimMap = std::unordered_map<const Object*, PrimExpr>;
// `type` with every var in `map` replaced; unchanged types are returned as they are.
Type SubstituteDims(const Type& type, const DimMap& map);
PrimExpr SubstituteDims(const PrimExpr& expr, const DimMap& map);
// `type` with every dim of its tensor and shape types replaced by `fn(dim)` (a simplifier, say);
// the same object when `fn` changes no dim.
Type MapDims(const Type& type, const std::function<PrimExpr(const PrimExpr&)>& fn);
// Matches `param` (a callee's declared type) against `arg` (the caller's): where a dim of the
// param is a bare var, maps it to the arg's dim. Vars already mapped are left as they are.
void MatchDims(const Type& param, const Type& arg, DimMap* map);
// `type` with every shape that mentions a var not accepted by `in_scope` forgotten (keeping the
// rank), as TVM's EraseToWellDefined.
Type EraseToWellDefined(const Type& type, const std::function<bool(const tir::VarNode*)>& in_scope);

}  // namespace wb::relax
