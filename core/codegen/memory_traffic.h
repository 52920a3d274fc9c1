// The bytes one call of a PrimFunc moves to and from memory, by a simple model of reuse, for the
// roofline (FLOPs from flop_count.h over these bytes is the arithmetic intensity).
//
// The model. A loop nest whose footprint fits in the cache moves each distinct region it touches
// once; one that does not fit moves its body's traffic once per iteration of its outermost loop:
// - The footprint of a statement is, per buffer, the bounding box of the regions its blocks
//   access (their T.reads / T.writes, with the block's iterators bound to the loops around it)
//   while the loops inside the statement run over their ranges; statements outside any block
//   access the element their BufferLoad / BufferStore index. Boxes are counted in elements times
//   the dtype's size, not in cache lines (a strided column costs its elements only).
// - A buffer of the box is read once when the statement reads it, and written once when it
//   writes it (read and written: both). The read of a reduction's own accumulator (a block with
//   T.init that reads what it writes) is not a read: the nest initialises it.
// - Each statement of the function's top-level sequence is a nest of its own: a producer's output
//   that a later nest reads is moved again.
// - A nest whose footprint exceeds `cache_bytes` (the caller gives the last-level cache) is
//   split at its outermost loop: its bytes are that loop's trip count times the bytes of its body
//   for one iteration (the first; the body's own loops are nests again, split in turn). A single
//   block instance is its regions' size.
// - Buffers in a scope other than "global" (local, shared, warp) live on chip and move nothing.
// - A guard (if-then-else) moves what both of its branches move.
// Symbolic extents take their values from `bindings`; a box end that stays unknown takes the
// whole buffer, and a buffer shape that stays unknown makes the count unknown.
#pragma once

#include <cstdint>
#include <optional>

#include "codegen/flop_count.h"

namespace wb::codegen {

struct MemoryTraffic {
  std::optional<double> bytes;  // nullopt: unknown (a symbolic size with no binding)
  bool parallel = false;        // the function has a parallel loop (runs on every thread)
};

MemoryTraffic CountMemoryTraffic(const tir::PrimFunc& func, const VarBindings& bindings,
                                 int64_t cache_bytes);

}  // namespace wb::codegen
