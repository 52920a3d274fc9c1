// What the meaning-changing test passes of testing_passes.cpp do, for suites that break a
// function the same way by other means (a schedule step).
#pragma once

#include "tir/stmt.h"

namespace wb::transform::testing {

// `f` with 1 added to every float store: what a buggy rewrite does to a program's meaning.
tir::PrimFunc AddOneToFloatStores(const tir::PrimFunc& f);

}  // namespace wb::transform::testing
