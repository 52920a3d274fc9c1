from tvm.script import ir as I
from tvm.script import relax as R
from tvm.script import tirx as T

@I.ir_module
class Module:
    @T.prim_func(private=True)
    def fill(x: T.Buffer((2,), "float32")):
        x[0] = T.float32(0.0)
        x[1] = T.float32(1.0)

    @R.function
    def main() -> R.Tensor((2,), "float32"):
        gv = R.call_tir(Module.fill, (), R.Tensor((2,), dtype="float32"))
        return gv
