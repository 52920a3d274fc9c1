# from tvm.script import ir as I
# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis

@I.ir_module
class Module:
    @T.prim_func(s_tir=True)
    def cumsum(A: T.Buffer((16, 64), "float32"), out: T.Buffer((16, 64), "float32")):
        T.func_attr({"tirx.noalias": True})
        # with T.sblock("root"):
        for i, j in T.grid(16, 64):
            with T.sblock("cumsum"):
                vi = T.axis.spatial(16, i)
                vj = T.axis.scan(64, j)
                T.reads(A[vi, vj], out[vi, vj - 1])
                T.writes(out[vi, vj])
                out[vi, vj] = T.if_then_else(vj == 0, A[vi, vj], out[vi, vj - 1] + A[vi, vj])

    @T.prim_func(s_tir=True)
    def reverse_cumprod(A: T.Buffer((16, 64), "float32"), out: T.Buffer((16, 64), "float32")):
        T.func_attr({"tirx.noalias": True})
        # with T.sblock("root"):
        for i, j in T.grid(16, 64):
            with T.sblock("reverse_cumprod"):
                vi = T.axis.spatial(16, i)
                vj = T.axis.opaque(64, 63 - j)
                T.reads(A[vi, vj], out[vi, vj + 1])
                T.writes(out[vi, vj])
                out[vi, vj] = T.if_then_else(vj == 63, A[vi, vj], out[vi, vj + 1] * A[vi, vj])