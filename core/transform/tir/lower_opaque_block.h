// LowerOpaqueBlock: removes the (opaque) blocks: a block's allocations become AllocBuffer
// statements at its place, its predicate an `if`; thread-bound loops become `thread_extent`
// attributes (vthread-bound loops serial loops: the virtual threads of a thread run one after
// another), and loop pragmas `pragma_*` attributes on the loop's body, as TVM's lowering
// expects next.
#pragma once

#include "ir/transform.h"

namespace wb::transform {

ir::Pass LowerOpaqueBlock();

}  // namespace wb::transform
