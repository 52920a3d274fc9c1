// Copying TensorIR for FuseTIR: inlining a kernel's body into a fused PrimFunc matches its
// parameter buffers' shapes against the fused function's buffers and keeps block names unique;
// the fresh definitions themselves come from tir/renew_defs.h.
#pragma once

#include <string>
#include <unordered_map>
#include <vector>

#include "tir/functor.h"
#include "tir/renew_defs.h"

namespace wb::transform::fuse {

// Matches the dims of a kernel's buffer (`from`) against the dims it is bound to (`to`): a bare
// var of `from` met first is mapped to the dim of `to`; every other dim must equal its
// counterpart after substitution (constants by value). Returns a message on mismatch, else "".
std::string MatchShape(const std::vector<tir::PrimExpr>& from, const std::vector<tir::PrimExpr>& to,
                       std::unordered_map<const tir::VarNode*, tir::PrimExpr>* var_map);

// Gives blocks unique names in post order: the first keeps its name, later ones get `_1`, `_2`.
tir::Stmt DeduplicateBlockNames(const tir::Stmt& body);

}  // namespace wb::transform::fuse
