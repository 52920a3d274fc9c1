# from typing import TypeVar
# from tvm.script import ir as I
# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis
# from tvm.script import relax as R

@I.ir_module
class Module:
    @T.prim_func(private=True)
    def add_bias(x_handle: T.handle, b: T.Buffer((T.int64(16),), "float32"), out_handle: T.handle):
        n = T.int64()
        x = T.match_buffer(x_handle, (n, T.int64(16)))
        out = T.match_buffer(out_handle, (n, T.int64(16)))
        for i, j in T.grid(n, T.int64(16)):
            out[i, j] = x[i, j] + b[j]

    batch = TypeVar("batch")
    @R.function
    def main(x: R.Tensor((batch, 16), dtype="float32"), b: R.Tensor((16,), dtype="float32")) -> R.Tensor((batch, 16), dtype="float32"):
        cls = Module
        with R.dataflow():
            lv = R.call_tir(cls.add_bias, (x, b), out_ty=R.Tensor((batch, 16), dtype="float32"))
            gv: R.Tensor((batch, 16), dtype="float32") = R.nn.relu(lv)
            R.output(gv)
        return gv