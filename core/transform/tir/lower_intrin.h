// LowerIntrin: rewrites operations that code generators have no instruction for into ones they
// do. Integer floordiv/floormod (TIR's index arithmetic) become truncating division and
// remainder (C's `/` and `%`, what LLVM's sdiv/srem do), corrected where the signs can differ:
//   a // c, a % c with a >= 0 provable:   a / c, a % c
//   c a positive power of two:            a >> log2(c), a & (c - 1)
//   otherwise:                            q = a / b, r = a % b;
//                                         r != 0 and sign(r) != sign(b) ? q - 1 : q (r + b : r)
// Floating-point floordiv/floormod become T.floor(a / b) and a - T.floor(a / b) * b.
#pragma once

#include "ir/transform.h"

namespace wb::transform {

ir::Pass LowerIntrin();

}  // namespace wb::transform
