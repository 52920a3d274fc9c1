# from tvm.script import ir as I
# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis

@I.ir_module
class Module:
    @T.prim_func(s_tir=True)
    def add_one_bf16(A: T.Buffer((256,), "bfloat16"), B: T.Buffer((256,), "bfloat16")):
        T.func_attr({"tirx.noalias": True})
        # with T.sblock("root"):
        for i in range(256):
            with T.sblock("B"):
                vi = T.axis.spatial(256, i)
                T.reads(A[vi])
                T.writes(B[vi])
                B[vi] = A[vi] + T.bfloat16(1.0)

    @T.prim_func(s_tir=True)
    def cast_to_bf16(A: T.Buffer((16, 64), "float32"), B: T.Buffer((16, 64), "bfloat16")):
        T.func_attr({"tirx.noalias": True})
        # with T.sblock("root"):
        for i, j in T.grid(16, 64):
            with T.sblock("cast"):
                vi, vj = T.axis.remap("SS", [i, j])
                T.reads(A[vi, vj])
                T.writes(B[vi, vj])
                B[vi, vj] = T.Cast("bfloat16", A[vi, vj])

    @T.prim_func(s_tir=True)
    def main(A: T.Buffer((16, 64), "bfloat16"), B: T.Buffer((16, 64), "float16"), C: T.Buffer((16, 64), "float32")):
        T.func_attr({"tirx.noalias": True})
        # with T.sblock("root"):
        for i, j in T.grid(16, 64):
            with T.sblock("mixed_add"):
                vi, vj = T.axis.remap("SS", [i, j])
                T.reads(A[vi, vj], B[vi, vj])
                T.writes(C[vi, vj])
                C[vi, vj] = T.Cast("float32", A[vi, vj]) + T.Cast("float32", B[vi, vj] * T.float16(0.5))