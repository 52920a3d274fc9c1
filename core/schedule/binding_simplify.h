// The IterMap simplification TVM applies to block bindings after split and fuse, so that
// `(i_0 * 32 + i_1)` stays affine text and `floordiv(floormod(f, 128), 1)` becomes `f % 128`.
#pragma once

#include <utility>
#include <vector>

#include "tir/stmt.h"

namespace wb::schedule {

using LoopRanges = std::vector<std::pair<tir::Var, ir::Range>>;

// The loops in `path` (root to a statement, the statement itself excluded) that belong to the
// statement's block scope: those below the nearest enclosing SBlock.
LoopRanges OuterLoopRanges(const std::vector<const tir::StmtNode*>& path);

// Rewrites the bindings of every SBlockRealize in `body` with DetectIterMap (surjective) over
// `outer` plus the loops of `body` between it and the block; bindings that are not affine stay
// as they are. Without `preserve_unit_iters`, unit-extent loops are replaced by 0 first.
tir::Stmt SimplifyBindings(const tir::Stmt& body, const LoopRanges& outer,
                           bool preserve_unit_iters);

}  // namespace wb::schedule
