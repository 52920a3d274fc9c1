// EliminateCommonSubexpr(call_only): within a binding block, a pure value computed again
// (structurally equal to an earlier binding's value, after earlier replacements) reads the
// earlier var instead. An output var whose value repeats a dataflow var's becomes a copy
// `gv = lv` (the dataflow var is not visible after the block). Allocations and impure calls are
// never merged; with call_only=True only calls are.
#pragma once

#include "ir/transform.h"

namespace wb::transform {

ir::Pass EliminateCommonSubexpr(bool call_only = false);

}  // namespace wb::transform
