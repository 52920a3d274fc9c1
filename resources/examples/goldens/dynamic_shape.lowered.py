# from tvm.script import ir as I
# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis

@I.ir_module
class Module:
    @T.prim_func(s_tir=True)
    def main(A: T.Buffer(("n", 64), "float32"), scale: T.Buffer((64,), "float32"), B: T.Buffer((n,), "float32")):
        n = T.int32()
        T.func_attr({"tirx.noalias": True})
        for i, k in T.grid(n, 64):
            if k == 0:
                B[i] = T.float32(0.0)
            B[i] = B[i] + A[i, k] * scale[k]
