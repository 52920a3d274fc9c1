// Cache stages (cache_read, cache_write, reindex): declared on Schedule (schedule.h); this header
// names the helpers the three share with other primitive files.
#pragma once

#include <string>

#include "tir/stmt.h"

namespace wb::schedule {

// The `index`-th read (or write) buffer of `block`; BufferIndexOutOfRangeError otherwise.
tir::Buffer NthAccessBuffer(const char* primitive, const tir::SBlockNode* block, int64_t index,
                            bool is_read);

}  // namespace wb::schedule
