#include "sum_reference.h"

#include <cstring>

namespace {

#if defined(__AVX512F__)
constexpr int kLanes = 16;
#else
constexpr int kLanes = 8;
#endif
typedef float VF __attribute__((vector_size(kLanes * 4)));

}  // namespace

float SumReference(const float* x, int64_t begin, int64_t end) {
  // Four accumulators: an add's latency covered by independent chains.
  VF acc[4] = {};
  const int64_t step = 4 * kLanes;
  for (int64_t i = begin; i + step <= end; i += step) {
    for (int a = 0; a < 4; ++a) {
      VF v;
      std::memcpy(&v, x + i + a * kLanes, sizeof(v));
      acc[a] += v;
    }
  }
  VF total = (acc[0] + acc[1]) + (acc[2] + acc[3]);
  float s = 0;
  for (int l = 0; l < kLanes; ++l) s += total[l];
  return s;
}
