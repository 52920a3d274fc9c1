// Helpers shared by the block-creating primitives of core/schedule/primitive (reduction.cpp,
// blockize.cpp, layout.cpp).
#pragma once

#include <unordered_set>
#include <vector>

#include "schedule/schedule.h"

namespace wb::schedule::detail {

// `node` as a T, or null (raw statement pointers from PathTo have no `as`).
template <typename T>
const T* NodeAs(const tir::StmtNode* node) {
  return ir::IsInstance<T>(node) ? static_cast<const T*>(node) : nullptr;
}

// Whether `e` mentions one of `vars`.
bool UsesAnyVar(const tir::PrimExpr& e, const std::unordered_set<const tir::VarNode*>& vars);
// The loops between `node` and its nearest enclosing block, outer to inner (TVM's GetLoops).
std::vector<tir::For> LoopsAbove(const tir::PrimFunc& func, const tir::StmtNode* node);
// `body` with `target` replaced by `stmts`, spliced into the enclosing sequence when there is one.
tir::Stmt SpliceInto(const tir::Stmt& body, const tir::StmtNode* target,
                     const std::vector<tir::Stmt>& stmts);
// Replaces `target` by the statements `stmts`, splicing them into the enclosing sequence when
// there is one (so no sequence nests in a sequence, as TVM's mutators flatten them).
void ReplaceBySeq(Schedule& sch, const tir::StmtNode* target, std::vector<tir::Stmt> stmts,
                  const ReplaceOptions& options = {});

}  // namespace wb::schedule::detail
