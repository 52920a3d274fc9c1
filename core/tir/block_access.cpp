#include "tir/block_access.h"

namespace wb::tir {

std::vector<BufferRegion> WithoutAccumulatorReads(std::vector<BufferRegion> reads,
                                                  const std::vector<BufferRegion>& writes,
                                                  bool has_init) {
  if (!has_init) return reads;
  std::vector<BufferRegion> kept;
  for (BufferRegion& r : reads) {
    bool written = false;
    for (const BufferRegion& w : writes) written |= w->buffer.same_as(r->buffer);
    if (!written) kept.push_back(std::move(r));
  }
  return kept;
}

}  // namespace wb::tir
