// Rewriting Relax expressions for the fusion passes: FuseOps moves bindings into new functions
// (their arguments become parameters, their symbolic dims fresh vars of the new function) and
// FuseTIR replaces calls in the caller; both need "this expression, with these Relax vars and
// these TensorIR vars replaced", types included (so do BindParams and LiftTransformParams).
// Unchanged subtrees are shared, not copied.
#pragma once

#include <functional>
#include <unordered_map>
#include <vector>

#include "relax/expr.h"
#include "relax/type_analysis.h"
#include "tir/expr.h"

namespace wb::transform::fuse {

class ExprRewriter {
 public:
  // Relax vars (by node) to their replacements; TensorIR vars to theirs.
  std::unordered_map<const ir::Object*, relax::Expr> var_map;
  relax::DimMap dim_map;
  // Applied to every dim and shape value that a substitution changed (BindParams folds `n * 2`
  // into 8 once n is bound); none: the dims are kept as substituted.
  std::function<ir::PrimExpr(const ir::PrimExpr&)> simplify;

  relax::Expr Rewrite(const relax::Expr& expr);
  relax::Type RewriteType(const relax::Type& type);
  // The binding with its value rewritten. Its var is kept when its type does not change;
  // otherwise a new var of the same kind and name replaces it (and is recorded in var_map).
  relax::Binding RewriteBinding(const relax::Binding& binding);
  relax::BindingBlock RewriteBlock(const relax::BindingBlock& block);
};

// The TensorIR vars that `expr` mentions (in types, shapes, prim values and call type
// arguments), each once, in first-occurrence order.
std::vector<tir::Var> SymbolicVarsOf(const relax::Expr& expr);

// True when the function attribute `key` is set to a true value (TVM's HasNonzeroAttr).
bool HasNonzeroAttr(const ir::BaseFuncNode* func, const std::string& key);

}  // namespace wb::transform::fuse
