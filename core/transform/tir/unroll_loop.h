// UnrollLoop: unrolls `T.unroll` loops, and serial loops small enough by the `tirx.UnrollLoop`
// PassContext config, as TVM does:
//   auto_max_step (0):   a serial loop nest is unrolled when extent x statements <= this
//   auto_max_depth (8):  at most this many nested loops are unrolled automatically
//   auto_max_extent (0): a serial loop of at most this extent is unrolled whatever its body
//   explicit_unroll (True): copy the body once per iteration; False only marks the loop
//                        T.unroll and leaves the copying to the code generator
//   unroll_local_access (False): loops whose variable indexes "local" memory are unrolled, so
//                        that memory can live in registers
// `pragma_auto_unroll_max_step` and `pragma_unroll_explicit` attributes (from loop pragmas)
// override the first and fourth option below them. Copies of the body get fresh variables for
// what they define, so every definition stays unique.
#pragma once

#include "ir/transform.h"

namespace wb::transform {

ir::Pass UnrollLoop();

}  // namespace wb::transform
