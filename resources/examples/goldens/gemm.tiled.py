# from tvm.script import ir as I
# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis

@I.ir_module
class Module:
    @T.prim_func(s_tir=True)
    def main(A: T.Buffer((128, 64), "float32"), B: T.Buffer((64, 128), "float32"), C: T.Buffer((128, 128), "float32")):
        T.func_attr({"tirx.noalias": True})
        for i_0 in T.parallel(4):
            for j_0, i_1, k in T.grid(4, 32, 64):
                for j_1 in T.vectorized(32):
                    if k == 0:
                        C[i_0 * 32 + i_1, j_0 * 32 + j_1] = T.float32(0.0)
                    C[i_0 * 32 + i_1, j_0 * 32 + j_1] = C[i_0 * 32 + i_1, j_0 * 32 + j_1] + A[i_0 * 32 + i_1, k] * B[k, j_0 * 32 + j_1]
