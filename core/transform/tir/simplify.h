// Simplify: arithmetic simplification of every expression with what the loops and blocks tell
// about variable ranges (split/fuse index arithmetic folds back), and `if`s whose condition is
// provable from those ranges resolved.
#pragma once

#include "ir/transform.h"

namespace wb::transform {

ir::Pass Simplify();

}  // namespace wb::transform
