# from typing import TypeVar
# from tvm.script import ir as I
# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis
# from tvm.script import relax as R

@I.ir_module
class Module:
    @T.prim_func(private=True)
    def scale(x: T.Buffer(("n",), "float32"), y: T.Buffer((n,), "float32"), n: T.int64):
        for i in range(n):
            y[i] = x[i] * T.float32(2.0)

    n = TypeVar("n")
    @R.function
    def main(x: R.Tensor((n,), dtype="float32")) -> R.Tensor((n,), dtype="float32"):
        cls = Module
        y = R.call_tir(cls.scale, (x, n), out_ty=R.Tensor((n,), dtype="float32"))
        return y