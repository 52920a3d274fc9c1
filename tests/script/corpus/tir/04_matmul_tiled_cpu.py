# from tvm.script import ir as I
# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis

@I.ir_module
class Module:
    @T.prim_func(s_tir=True)
    def main(A: T.Buffer((256, 256), "float32"), B: T.Buffer((256, 256), "float32"), C: T.Buffer((256, 256), "float32")):
        T.func_attr({"tirx.noalias": True})
        # with T.sblock("root"):
        C_global = T.sblock_alloc_buffer((256, 256))
        for i_0_j_0_fused in T.parallel(64):
            for k_0, i_1, k_1 in T.grid(64, 32, 4):
                for j_1 in T.vectorized(32):
                    with T.sblock("C"):
                        vi = T.axis.spatial(256, i_0_j_0_fused // 8 * 32 + i_1)
                        vj = T.axis.spatial(256, i_0_j_0_fused % 8 * 32 + j_1)
                        vk = T.axis.reduce(256, k_0 * 4 + k_1)
                        T.reads(A[vi, vk], B[vk, vj])
                        T.writes(C_global[vi, vj])
                        with T.init():
                            C_global[vi, vj] = T.float32(0.0)
                        C_global[vi, vj] = C_global[vi, vj] + A[vi, vk] * B[vk, vj]
            for ax0 in range(32):
                for ax1 in T.vectorized(32):
                    with T.sblock("C_global"):
                        v0 = T.axis.spatial(256, i_0_j_0_fused // 8 * 32 + ax0)
                        v1 = T.axis.spatial(256, i_0_j_0_fused % 8 * 32 + ax1)
                        T.reads(C_global[v0, v1])
                        T.writes(C[v0, v1])
                        C[v0, v1] = C_global[v0, v1]