// Structural hashing of IR, consistent with StructuralEqual: structurally equal graphs hash
// equal, so IR can key hash tables and caches (tuning records, dedup of identical functions).
#pragma once

#include <cstdint>

#include "ir/object.h"

namespace wb::ir {

// A 64-bit hash of the structure of `node`. Variables, buffers and global functions hash by the
// order of their first occurrence and, there, by their own fields (dtype, type annotation, buffer
// shape); names, spans and FieldKind::kIgnore fields are left out; ops hash by name, values by
// value. The value is the same across runs and platforms, except that with `map_free_vars` false
// a free variable hashes by its address, as StructuralEqual then compares it by identity.
uint64_t StructuralHash(const ObjectRef& node, bool map_free_vars = true);

}  // namespace wb::ir
