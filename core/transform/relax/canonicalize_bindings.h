// CanonicalizeBindings: removes the bindings that only rename a value, so later passes see one
// name per value. `y = x` (and a match_cast to the type the value already has) is dropped and y's
// uses read x; `t[i]` of a tuple built in the function reads the field directly; an output var
// bound to a dataflow var (`gv = lv`) takes over lv's binding, since lv is not visible outside
// the block.
#pragma once

#include "ir/transform.h"

namespace wb::transform {

ir::Pass CanonicalizeBindings();

}  // namespace wb::transform
