// Normalize: puts every Relax function into the normal form the other passes assume (TVM's
// A-normal form): call and tuple-get-item operands, If conditions and SeqExpr results are leaves
// (vars, constants, shapes, prim values, globals) or tuples of leaves, the nested expressions being
// bound to fresh vars just before their use; a function body and each If branch is a SeqExpr;
// every expression has its inferred type; empty blocks are dropped. Functions already in this
// form come back as the same objects.
#pragma once

#include "ir/transform.h"

namespace wb::transform {

ir::Pass Normalize();

}  // namespace wb::transform
