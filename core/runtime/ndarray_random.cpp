// Seeded random contents for NDArrays: the inputs of every semantic check (interpreter vs
// schedule, interpreter vs compiled code), so the same seed must give the same bits on every
// machine. std::mt19937_64 is specified exactly; the distributions of <random> are not, so the
// mapping from raw bits to values is written out here.
#include <random>
#include <stdexcept>

#include "runtime/ndarray.h"

namespace wb::runtime {

void FillRandom(const NDArray& array, const RandomFillOptions& options) {
  const DLDataType t = array.dtype();
  if (t.lanes != 1) throw std::invalid_argument("FillRandom: vector dtype " + DTypeToString(t));
  std::mt19937_64 rng(options.seed);
  const int64_t n = array.NumElements();
  if (t.is_float()) {
    double low = options.low.value_or(-1.0);
    double high = options.high.value_or(1.0);
    for (int64_t i = 0; i < n; ++i) {
      double unit = static_cast<double>(rng() >> 11) * 0x1.0p-53;  // [0, 1)
      array.SetDouble(i, low + (high - low) * unit);
    }
    return;
  }
  int64_t low = 0;
  int64_t high = 1;
  if (t.code == kDLInt) {
    low = static_cast<int64_t>(options.low.value_or(-8));
    high = static_cast<int64_t>(options.high.value_or(8));
  } else if (t.code == kDLUInt) {
    low = static_cast<int64_t>(options.low.value_or(0));
    high = static_cast<int64_t>(options.high.value_or(15));
  } else if (t.code != kDLBool) {
    throw std::invalid_argument("FillRandom: unsupported dtype " + DTypeToString(t));
  }
  if (high < low) throw std::invalid_argument("FillRandom: high < low");
  const uint64_t span = static_cast<uint64_t>(high - low) + 1;
  for (int64_t i = 0; i < n; ++i) {
    // Modulo bias is at most span / 2^64: irrelevant for test inputs.
    array.SetInt(i, low + static_cast<int64_t>(span == 0 ? rng() : rng() % span));
  }
}

void FillRandom(const NDArray& array, uint64_t seed) {
  RandomFillOptions options;
  options.seed = seed;
  FillRandom(array, options);
}

}  // namespace wb::runtime
