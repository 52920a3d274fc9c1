// Programs that the run-and-check suites share (tests/workbench/tst_run_check, tests/app/tst_gui_build).
#pragma once

namespace wb::test {

// One call that takes practically forever (float additions LLVM may not fold).
inline constexpr const char* kSpin = R"(# from tvm.script import tirx as T

@T.prim_func
def main(A: T.Buffer((1,), "float32")):
    for i, j, k in T.grid(100000, 100000, 100000):
        A[0] = A[0] + T.float32(1.0)
)";

// A Relax function: nothing to schedule, run through the Relax VM.
inline constexpr const char* kRelax = R"(# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((4, 8), dtype="float32"), w: R.Tensor((8, 3), dtype="float32")) -> R.Tensor((4, 3), dtype="float32"):
        with R.dataflow():
            lv = R.matmul(x, w)
            gv = R.add(lv, lv)
            R.output(gv)
        return gv
)";

}  // namespace wb::test
