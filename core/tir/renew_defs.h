// Copying TensorIR with fresh definitions (TVM's RenewDefs): every variable, buffer and block a
// statement or function defines gets a new object, and uses follow, so that one piece of IR can be
// placed twice in a function (FuseTIR inlining one kernel twice, tensorize instantiating one
// intrinsic's implementation at every tile) without defining the same loop var twice.
#pragma once

#include <unordered_map>

#include "tir/functor.h"

namespace wb::tir {

class DefRenewer : public StmtExprMutator {
 public:
  // Substitutions applied to uses; definitions met while copying are added.
  std::unordered_map<const VarNode*, PrimExpr> var_map;
  std::unordered_map<const BufferNode*, Buffer> buffer_map;

  Var RenewVar(const Var& var);
  // A definition: a fresh buffer with a fresh data pointer and substituted shape.
  Buffer RenewBuffer(const Buffer& buffer);

  using StmtExprMutator::VisitExpr;
  using StmtExprMutator::VisitStmt;

 protected:
  using StmtExprMutator::VisitExpr_;
  using StmtExprMutator::VisitStmt_;

  PrimExpr VisitExpr_(const VarNode* op) override;
  PrimExpr VisitExpr_(const SizeVarNode* op) override;
  PrimExpr VisitExpr_(const LetNode* op) override;
  Stmt VisitStmt_(const BindNode* op) override;
  Stmt VisitStmt_(const ForNode* op) override;
  Stmt VisitStmt_(const AttrStmtNode* op) override;
  Stmt VisitStmt_(const SBlockNode* op) override;
  Buffer VisitBufferUse(const Buffer& buffer) override;
  Buffer VisitBufferDef(const Buffer& buffer) override { return RenewBuffer(buffer); }
};

// `func` with every parameter, symbolic shape var, buffer and inner definition fresh.
PrimFunc RenewDefs(const PrimFunc& func);

}  // namespace wb::tir
