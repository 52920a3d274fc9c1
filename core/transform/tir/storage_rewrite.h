// StorageRewrite: lets allocations whose lifetimes do not overlap share memory, so a lowered
// function needs less scratch memory. Within one sequence of statements, a flat allocation B
// whose first use comes after the last use of an earlier allocation A (same element type and
// storage scope, constant size) stops allocating: B becomes a `T.decl_buffer` over A's data,
// and A's allocation grows to the larger of the two sizes. A freed allocation can be reused
// again after its new owner's last use.
//
// As in TVM, the reused memory is not cleared: a program that reads an allocation before
// writing it reads what the earlier owner left there (TVM leaves such reads undefined).
// Not done (TVM does): hoisting allocations out of loops to the function's top, and packing
// allocations of different element types into one.
#pragma once

#include "ir/transform.h"

namespace wb::transform {

ir::Pass StorageRewrite();

}  // namespace wb::transform
