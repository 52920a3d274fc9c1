// Locating statements in an immutable TIR tree: blocks in pre-order, a loop by its variable, the
// chain of ancestors of a node, and rebuilding the ancestors when one statement is replaced.
#pragma once

#include <string>
#include <vector>

#include "tir/stmt.h"

namespace wb::schedule {

// `n` as a T, or null when it is another kind of node.
template <typename T>
const T* NodeAs(const ir::Object* n) {
  return ir::IsInstance<T>(n) ? static_cast<const T*>(n) : nullptr;
}

// Every SBlock under `body` in pre-order, nested blocks included (blocks inside `T.init()` too:
// they never carry a schedulable name clash in practice, and the order stays stable).
std::vector<tir::SBlock> CollectBlocks(const tir::Stmt& body);
// The blocks named `name` under `body` in pre-order, blocks inside `T.init()` excluded.
std::vector<tir::SBlock> FindBlocks(const tir::Stmt& body, const std::string& name);
// The For whose loop variable is `var`; null when none.
tir::For FindLoop(const tir::Stmt& body, const tir::VarNode* var);
// Statements from `body` down to `target` inclusive; empty when `target` is not under `body`.
std::vector<const tir::StmtNode*> PathTo(const tir::Stmt& body, const tir::StmtNode* target);
// `body` with the statement `target` swapped for `replacement`, sharing every untouched subtree.
tir::Stmt ReplaceStmt(const tir::Stmt& body, const tir::StmtNode* target,
                      const tir::Stmt& replacement);

}  // namespace wb::schedule
