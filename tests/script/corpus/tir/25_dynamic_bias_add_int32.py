# from tvm.script import ir as I
# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis

@I.ir_module
class Module:
    @T.prim_func(s_tir=True)
    def main(A: T.Buffer(("n", 128), "float32"), B: T.Buffer((128,), "float32"), C: T.Buffer((n, 128), "float32")):
        n = T.int32()
        T.func_attr({"tirx.noalias": True})
        # with T.sblock("root"):
        for i, j in T.grid(n, 128):
            with T.sblock("add_bias"):
                vi, vj = T.axis.remap("SS", [i, j])
                T.reads(A[vi, vj], B[vj])
                T.writes(C[vi, vj])
                C[vi, vj] = A[vi, vj] + B[vj]