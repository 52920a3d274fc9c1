// Every place two graphs differ, not only the first (ir/structural_equal.h): what `--compare` and
// the pass explorer's structural view list. Its own header because structural_equal.h is included
// across the code base and few places need this.
#pragma once

#include <cstddef>
#include <vector>

#include "ir/structural_equal.h"

namespace wb::ir {

// The differences between `a` and `b` in depth-first field order, as FindFirstMismatch reports the
// first: after each, the walk leaves that pair's insides and goes on with the rest (so a changed
// expression is one difference, not one per node inside it). At most `limit` are returned; `more`
// (when given) gets how many more there were. Empty when the graphs are equal.
std::vector<StructuralMismatch> FindMismatches(const ObjectRef& a, const ObjectRef& b,
                                               size_t limit = 50, size_t* more = nullptr,
                                               bool map_free_vars = true);

}  // namespace wb::ir
