// The rewriting walk the Relax passes share (TVM's relax::ExprMutator, without a BlockBuilder):
// visits a function post-order and rebuilds a node only when a child changed, keeping its
// inferred type (the passes built on it keep types: they rename, drop or re-target bindings, they
// do not change what an expression computes). Uses of a var go through `var_remap_`, so a pass
// replaces a var everywhere by recording it once.
#pragma once

#include <functional>
#include <unordered_map>
#include <vector>

#include "ir/expr.h"
#include "relax/expr.h"

namespace wb::transform {

class RelaxExprMutator {
 public:
  virtual ~RelaxExprMutator() = default;

  // Dispatches on the kind; leaves (constants, shapes, prim values, globals, ops) come back as
  // they are.
  virtual relax::Expr VisitExpr(const relax::Expr& expr);
  virtual relax::Expr VisitVar(const relax::Var& var);
  virtual relax::Expr VisitCall(const relax::CallNode* call);
  virtual relax::Expr VisitFunction(const relax::FunctionNode* func);
  virtual relax::Expr VisitSeqExpr(const relax::SeqExprNode* seq);
  // Appends the rewritten block to `out` (nothing when it ends up empty).
  virtual void VisitBindingBlock(const relax::BindingBlock& block,
                                 std::vector<relax::BindingBlock>* out);
  // Appends the rewritten binding(s) to `out` (none: the binding is dropped).
  virtual void VisitBinding(const relax::Binding& binding, std::vector<relax::Binding>* out);
  // The var a binding defines, after rewriting (e.g. a DataflowVar made a Var).
  virtual relax::Var VisitVarDef(const relax::Var& var) { return var; }

 protected:
  // A rebuilt block of the same kind as `block`.
  static relax::BindingBlock RebuildBlock(const relax::BindingBlock& block,
                                          std::vector<relax::Binding> bindings);
  std::unordered_map<const relax::VarNode*, relax::Expr> var_remap_;
};

// Applies `fn` to every Relax function of the module; functions `fn` returns unchanged (the same
// object) are kept, so an untouched module comes back as the same object.
ir::IRModule MapRelaxFunctions(
    const ir::IRModule& module,
    const std::function<relax::Function(const relax::Function&, const ir::GlobalVar&)>& fn);

// The Relax vars `expr` uses (free or not), for liveness.
void CollectVarUses(const relax::Expr& expr,
                    std::unordered_map<const relax::VarNode*, int>* uses);

// True when evaluating `value` has no side effect the program could observe: op calls of pure
// ops, calls of pure Relax functions, tuples and leaves. Direct calls of PrimFuncs (which write
// their arguments) and of extern functions are impure.
bool IsPureValue(const relax::Expr& value, const ir::IRModule& module);

}  // namespace wb::transform
