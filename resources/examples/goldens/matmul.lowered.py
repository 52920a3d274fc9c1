# from tvm.script import ir as I
# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis

@I.ir_module
class Module:
    @T.prim_func(s_tir=True)
    def main(A: T.Buffer((256, 256), "float32"), B: T.Buffer((256, 256), "float32"), C: T.Buffer((256, 256), "float32")):
        T.func_attr({"tirx.noalias": True})
        for i, j, k in T.grid(256, 256, 256):
            if k == 0:
                C[i, j] = T.float32(0.0)
            C[i, j] = C[i, j] + A[i, k] * B[k, j]
