# from tvm.script import ir as I
# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis

@I.ir_module
class Module:
    @T.prim_func(s_tir=True)
    def main(A: T.Buffer((64, 128), "float32"), B: T.Buffer((64, 128), "float32"), C: T.Buffer((64, 128), "float32")):
        T.func_attr({"tirx.noalias": True})
        # with T.sblock("root"):
        added = T.sblock_alloc_buffer((64, 128))
        for i, j in T.grid(64, 128):
            with T.sblock("add"):
                vi, vj = T.axis.remap("SS", [i, j])
                T.reads(A[vi, vj], B[vi, vj])
                T.writes(added[vi, vj])
                added[vi, vj] = A[vi, vj] + B[vi, vj]
        for i, j in T.grid(64, 128):
            with T.sblock("relu"):
                vi, vj = T.axis.remap("SS", [i, j])
                T.reads(added[vi, vj])
                T.writes(C[vi, vj])
                C[vi, vj] = T.max(added[vi, vj], T.float32(0.0))