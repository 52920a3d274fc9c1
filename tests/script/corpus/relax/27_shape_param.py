# from typing import TypeVar
# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    m = TypeVar("m")
    n = TypeVar("n")
    @R.function
    def main(x: R.Tensor((m, n), dtype="float32"), s: R.Shape([n, m])) -> R.Tensor((n, m), dtype="float32"):
        y: R.Tensor((n, m), dtype="float32") = R.reshape(x, s)
        return y