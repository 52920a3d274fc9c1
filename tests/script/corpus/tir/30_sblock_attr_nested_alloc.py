# from tvm.script import ir as I
# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis

@I.ir_module
class Module:
    @T.prim_func(s_tir=True)
    def main(A: T.Buffer((128, 64), "float32"), B: T.Buffer((128,), "float32")):
        T.func_attr({"tirx.noalias": True})
        # with T.sblock("root"):
        for i_0 in T.serial(16, annotations={"pragma_auto_unroll_max_step": 64, "pragma_unroll_explicit": 1}):
            with T.sblock("tile"):
                vi_o = T.axis.spatial(16, i_0)
                T.reads(A[vi_o * 8:vi_o * 8 + 8, 0:64])
                T.writes(B[vi_o * 8:vi_o * 8 + 8])
                T.sblock_attr({"meta_schedule.parallel": 16, "meta_schedule.vectorize": 64})
                sq = T.sblock_alloc_buffer((8, 64))
                for i_1, j in T.grid(8, 64):
                    with T.sblock("square"):
                        vi_i, vj = T.axis.remap("SS", [i_1, j])
                        T.reads(A[vi_o * 8 + vi_i, vj])
                        T.writes(sq[vi_i, vj])
                        sq[vi_i, vj] = A[vi_o * 8 + vi_i, vj] * A[vi_o * 8 + vi_i, vj]
                for i_1, j in T.grid(8, 64):
                    with T.sblock("sum_sq"):
                        vi_i, vj = T.axis.remap("SR", [i_1, j])
                        T.reads(sq[vi_i, vj])
                        T.writes(B[vi_o * 8 + vi_i])
                        with T.init():
                            B[vi_o * 8 + vi_i] = T.float32(0.0)
                        B[vi_o * 8 + vi_i] = B[vi_o * 8 + vi_i] + sq[vi_i, vj]