# from tvm.script import ir as I
# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis

@I.ir_module
class Module:
    @T.prim_func(s_tir=True)
    def main(A: T.Buffer((128, 64), "float32"), B: T.Buffer((64, 128), "float32"), C: T.Buffer((128, 128), "float32")):
        T.func_attr({"tirx.noalias": True})
        for i, j, k in T.grid(128, 128, 64):
            if k == 0:
                C[i, j] = T.float32(0.0)
            C[i, j] = C[i, j] + A[i, k] * B[k, j]
