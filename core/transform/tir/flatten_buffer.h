// FlattenBuffer: every multi-dimensional buffer access becomes a one-dimensional one, the form
// code generators address memory in. An access A[i, j] of a row-major (4, 8) buffer becomes
// A_1[i * 8 + j] through a flat buffer that shares A's data pointer; declared strides and the
// element offset are folded into the flat index, so the flat buffer is compact, starts at the
// data pointer (elem_offset 0) and is long enough to hold every element the original reaches.
//
// As in TVM, the PrimFunc's buffer_map keeps the original buffers (they describe the arguments
// the caller passes); the body declares the flat views (`T.decl_buffer` over the parameter's
// data) ahead of everything else. Allocations and `T.decl_buffer`s in the body are flattened in
// place. Boolean buffers are stored as int8 (loads cast back to bool, stores cast to int8), as
// in TVM. Runs after LowerOpaqueBlock: blocks and match_buffer must be gone.
#pragma once

#include "ir/transform.h"

namespace wb::transform {

ir::Pass FlattenBuffer();

}  // namespace wb::transform
