# from tvm.script import ir as I
# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis

@I.ir_module
class Module:
    @T.prim_func(s_tir=True)
    def main(A: T.Buffer((64, 128), "float32"), B: T.Buffer((64, 128), "float32"), C: T.Buffer((64, 128), "float32")):
        T.func_attr({"tirx.noalias": True})
        added = T.alloc_buffer((64, 128))
        for i, j in T.grid(64, 128):
            added[i, j] = A[i, j] + B[i, j]
        for i, j in T.grid(64, 128):
            C[i, j] = T.max(added[i, j], T.float32(0.0))
