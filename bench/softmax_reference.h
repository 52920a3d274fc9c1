// The reference a user would write by hand for a row softmax: three vectorized passes over each
// row (max; exp and sum; scale), compiled -O3 -march=native (bench/CMakeLists.txt), rows
// [begin, end) of an n-column matrix.
#pragma once

#include <cstdint>

void SoftmaxRowsReference(const float* x, float* y, int64_t begin, int64_t end, int64_t n);
