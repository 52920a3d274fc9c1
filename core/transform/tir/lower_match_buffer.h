// LowerMatchBuffer: removes blocks' `T.match_buffer` views. Every access of a matched buffer B
// (a view of the region A[m0:m0+e0, ..., mk:mk+ek]) becomes an access of A at the region's start
// plus B's indices; when A has more dimensions than B, B's dimensions are A's trailing ones and
// the leading ones stay at the region's start. B's symbolic fields are bound by what the view
// implies: its data to A's, its shape to the extents, its strides to A's strides and its
// elem_offset to A's plus the region start's offset, and substituted wherever they are used.
#pragma once

#include "ir/transform.h"

namespace wb::transform {

ir::Pass LowerMatchBuffer();

}  // namespace wb::transform
