// LowerInitBlock: a reduction block's `with T.init():` becomes an `if` that runs the init when
// every reduction iter var is at the start of its domain, followed by the update.
#pragma once

#include "ir/transform.h"

namespace wb::transform {

ir::Pass LowerInitBlock();

}  // namespace wb::transform
