#include "runtime/nonzero.h"

#include <vector>

namespace wb::runtime {

NDArray NonZero(const NDArray& x) {
  std::vector<int64_t> shape = x.shape();
  if (shape.empty()) shape = {1};
  int64_t total = x.NumElements();
  std::vector<int64_t> hits;
  for (int64_t i = 0; i < total; ++i) {
    if (x.GetDouble(i) != 0) hits.push_back(i);
  }
  auto ndim = static_cast<int64_t>(shape.size());
  auto count = static_cast<int64_t>(hits.size());
  NDArray out = NDArray::Empty({ndim, count}, Int(64));
  for (int64_t j = 0; j < count; ++j) {
    int64_t rest = hits[j];
    for (int64_t k = ndim; k-- > 0;) {
      out.SetInt(k * count + j, rest % shape[k]);
      rest /= shape[k];
    }
  }
  return out;
}

}  // namespace wb::runtime
