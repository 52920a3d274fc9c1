// The reference a user would write by hand for the sum of a large array: vector partial sums in
// several accumulators (GCC vector extensions at the native width), compiled -O3 -march=native
// (bench/CMakeLists.txt); the elements [begin, end), a multiple of 64 apart.
#pragma once

#include <cstdint>

float SumReference(const float* x, int64_t begin, int64_t end);
