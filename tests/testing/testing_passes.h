// What the meaning-changing test passes of testing_passes.cpp do, for suites that break a
// function the same way by other means (a schedule step), and a kernel to break.
#pragma once

#include "tir/stmt.h"

namespace wb::transform::testing {

// A 64-element elementwise kernel, B = A + 1, whose store the passes above can break.
inline constexpr const char* kAddOneKernel = R"(# from tvm.script import tirx as T

@T.prim_func
def main(A: T.Buffer((64,), "float32"), B: T.Buffer((64,), "float32")):
    for i in range(64):
        with T.sblock("B"):
            vi = T.axis.spatial(64, i)
            B[vi] = A[vi] + T.float32(1.0)
)";

// `f` with 1 added to every float store: what a buggy rewrite does to a program's meaning.
tir::PrimFunc AddOneToFloatStores(const tir::PrimFunc& f);

}  // namespace wb::transform::testing
