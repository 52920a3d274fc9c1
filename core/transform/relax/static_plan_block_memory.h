// StaticPlanBlockMemory (TVM's pass of that name, after CallTIRRewrite in the default build
// pipeline): storage reuse for the R.builtin.alloc_tensor calls of each (non-dataflow) binding
// block. Each tensor of static shape whose lifetime the block sees whole (it only flows into
// PrimFunc calls and var aliases, never into a tuple, a return, another block, a Relax call or an
// op) gets a storage token: when its last use is done, its storage goes back to a pool, and a
// later allocation of the same dtype takes the smallest pooled storage that fits (else the
// largest, grown to fit). The block then reads
//
//   storage = R.memory.alloc_storage(R.shape([bytes]), R.prim_value(0), R.str("global"), R.dtype(dt))
//   alloc = R.memory.alloc_tensor(storage, R.prim_value(0), R.shape([...]), R.dtype(dt))
//   ...                                    # the uses of alloc
//   _ = R.memory.kill_tensor(alloc)        # after its last use
//   ...
//   _ = R.memory.kill_storage(storage)     # at the end of the block
//
// with each storage allocated where it is first needed, at the largest size it is used for.
// Tensors that escape, or have symbolic shapes, keep their R.builtin.alloc_tensor.
#pragma once

#include "ir/transform.h"

namespace wb::transform {

ir::Pass StaticPlanBlockMemory();

}  // namespace wb::transform
