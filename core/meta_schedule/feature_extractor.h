// Program features for the cost model: a documented subset of TVM's per-store features
// (meta_schedule/feature_extractor/per_store_feature.cc), computed on the scheduled TensorIR
// (not the lowered one). For every BufferStore, with the loops around it:
//   0 float add/sub, 1 float mul, 2 float div/mod, 3 float min/max/compare, 4 math calls
//      (exp, sqrt, ...), 5 integer arithmetic: each the count in the stored value times the
//      iterations of the enclosing loops;
//   6 vectorized loops around, 7 product of their extents, 8 unrolled loops, 9 product of their
//      extents, 10 parallel loops, 11 product of their extents, 12 pragma_auto_unroll_max_step;
//   13 loops around, 14 iterations (the product of all extents);
//   for the 3 accesses (the store and its loads) touching the most bytes, 4 each: 15.. bytes
//      accessed, unique bytes (the extents of the loops the index depends on), the stride of
//      the innermost loop in the flattened index (elements), reuse (accessed / unique);
//   27 arithmetic intensity (float ops / unique bytes of all accesses);
//   28 bytes of buffers allocated inside the function.
// Each value enters as log2(1 + x). A function's row is the sum and the maximum over its
// stores (2 x kStoreFeatures values). Not here: TVM's reuse-distance, the intensity curve
// (one point is kept), the outer-loop and buffer-type groups.
#pragma once

#include <vector>

#include "tir/stmt.h"

namespace wb::meta_schedule {

inline constexpr int kStoreFeatures = 29;
inline constexpr int kFunctionFeatures = 2 * kStoreFeatures;

// One row per BufferStore, raw values (before the log).
std::vector<std::vector<double>> ExtractStoreFeatures(const tir::PrimFunc& func);
// The function's row (log2(1 + x), sum then max over the stores).
std::vector<float> ExtractFeatures(const tir::PrimFunc& func);

}  // namespace wb::meta_schedule
