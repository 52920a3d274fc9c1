// Copying TensorIR for FuseTIR: inlining a kernel's body into a fused PrimFunc replaces its
// parameter buffers by the fused function's buffers, and gives every variable, buffer and block
// it defines a fresh object, so that one kernel inlined twice (exp then exp) does not define the
// same loop var twice. TVM calls the second half RenewDefs.
#pragma once

#include <string>
#include <unordered_map>
#include <vector>

#include "tir/functor.h"

namespace wb::transform::fuse {

class DefRenewer : public tir::StmtExprMutator {
 public:
  // Substitutions applied to uses; definitions met while copying are added.
  std::unordered_map<const tir::VarNode*, tir::PrimExpr> var_map;
  std::unordered_map<const tir::BufferNode*, tir::Buffer> buffer_map;

  tir::Var RenewVar(const tir::Var& var);
  // A definition: a fresh buffer with a fresh data pointer and substituted shape.
  tir::Buffer RenewBuffer(const tir::Buffer& buffer);

  using tir::StmtExprMutator::VisitExpr;
  using tir::StmtExprMutator::VisitStmt;

 protected:
  using tir::StmtExprMutator::VisitExpr_;
  using tir::StmtExprMutator::VisitStmt_;

  tir::PrimExpr VisitExpr_(const tir::VarNode* op) override;
  tir::PrimExpr VisitExpr_(const tir::SizeVarNode* op) override;
  tir::PrimExpr VisitExpr_(const tir::LetNode* op) override;
  tir::Stmt VisitStmt_(const tir::BindNode* op) override;
  tir::Stmt VisitStmt_(const tir::ForNode* op) override;
  tir::Stmt VisitStmt_(const tir::AttrStmtNode* op) override;
  tir::Stmt VisitStmt_(const tir::SBlockNode* op) override;
  tir::Buffer VisitBufferUse(const tir::Buffer& buffer) override;
  tir::Buffer VisitBufferDef(const tir::Buffer& buffer) override { return RenewBuffer(buffer); }
};

// `func` with every parameter, symbolic shape var, buffer and inner definition fresh.
tir::PrimFunc RenewDefs(const tir::PrimFunc& func);

// Matches the dims of a kernel's buffer (`from`) against the dims it is bound to (`to`): a bare
// var of `from` met first is mapped to the dim of `to`; every other dim must equal its
// counterpart after substitution (constants by value). Returns a message on mismatch, else "".
std::string MatchShape(const std::vector<tir::PrimExpr>& from, const std::vector<tir::PrimExpr>& to,
                       std::unordered_map<const tir::VarNode*, tir::PrimExpr>* var_map);

// Gives blocks unique names in post order: the first keeps its name, later ones get `_1`, `_2`.
tir::Stmt DeduplicateBlockNames(const tir::Stmt& body);

}  // namespace wb::transform::fuse
