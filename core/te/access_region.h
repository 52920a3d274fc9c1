// T.reads / T.writes for the blocks create_prim_func builds (the part of TVM's script.Complete
// it needs): every BufferLoad / BufferStore in a block's body and init, inner blocks'
// regions seen through their bindings, loops inside the block relaxed to their ranges. A
// buffer accessed at several points gets their hull when the points are constants and its
// whole extent otherwise. Reads leave out the buffers the block writes (TVM's
// GetBlockReadWriteRegion), so a reduction does not list its own accumulator.
#pragma once

#include "tir/stmt.h"

namespace wb::te {

// The statement with every SBlock's reads and writes recomputed (innermost blocks first).
tir::Stmt CompleteAccessRegions(const tir::Stmt& stmt);

}  // namespace wb::te
