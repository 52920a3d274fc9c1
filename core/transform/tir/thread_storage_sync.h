// ThreadSync(storage_scope="shared"): inserts T.tvm_storage_sync(scope) barriers into kernels
// where memory of that scope written by one thread may be read (or overwritten) by another:
// walking each kernel in execution order, a statement that reads what was written since the last
// barrier, or writes what was read or written since then, gets a barrier before it, unless both
// accesses use the same index mentioning a threadIdx variable (each thread its own element).
// A loop's body is walked from what was pending before it together with every access of the
// body, so that a conflict between the end of one iteration and the start of the next (a tile
// reused by the next step) gets its barrier too; the two branches of an `if`
// are joined conservatively. A loop, `if` or launch that conflicts as a whole gets its barrier
// before it rather than inside (so it runs once, and outside divergent branches). Barriers
// already present count. TVM's thread_storage_sync.cc.
#pragma once

#include <string>

#include "ir/transform.h"

namespace wb::transform {

ir::Pass ThreadSync(std::string storage_scope = "shared");

}  // namespace wb::transform
