// For the suites that link tests/testing: a kernel whose float store TestingBreakMeaning (and
// sch.testing_break_meaning()) break and whose variable `vi` TestingRenameVi renames.
#pragma once

namespace wb::transform::testing {

// A 64-element elementwise kernel, B = A + 1.
inline constexpr const char* kAddOneKernel = R"(# from tvm.script import tirx as T

@T.prim_func
def main(A: T.Buffer((64,), "float32"), B: T.Buffer((64,), "float32")):
    for i in range(64):
        with T.sblock("B"):
            vi = T.axis.spatial(64, i)
            B[vi] = A[vi] + T.float32(1.0)
)";

}  // namespace wb::transform::testing
