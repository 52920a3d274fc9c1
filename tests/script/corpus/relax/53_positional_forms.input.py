from tvm.script import ir as I
from tvm.script import tirx as T
from tvm.script import relax as R

@I.ir_module
class Mod:
    @T.prim_func(private=True)
    def double(x: T.Buffer((16,), "float32"), y: T.Buffer((16,), "float32")):
        for i in range(16):
            y[i] = x[i] * T.float32(2.0)

    @R.function
    def main(x: R.Tensor((16,), "float32"), k: R.Prim("int64"), o: R.Object) -> R.Tensor((16,), "float32"):
        y = R.call_tir(Mod.double, x, R.Tensor((16,), "float32"))
        c = 1
        s = R.prim_value(5)
        return y