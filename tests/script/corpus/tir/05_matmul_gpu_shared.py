# from tvm.script import ir as I
# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis

@I.ir_module
class Module:
    @T.prim_func(s_tir=True)
    def main(A: T.Buffer((512, 512), "float32"), B: T.Buffer((512, 512), "float32"), C: T.Buffer((512, 512), "float32")):
        T.func_attr({"tirx.noalias": True})
        # with T.sblock("root"):
        A_shared = T.sblock_alloc_buffer((512, 512), scope="shared")
        B_shared = T.sblock_alloc_buffer((512, 512), scope="shared")
        C_local = T.sblock_alloc_buffer((512, 512), scope="local")
        for i_0_j_0_fused in T.thread_binding(64, thread="blockIdx.x"):
            for i_1_j_1_fused in T.thread_binding(256, thread="threadIdx.x"):
                for i_2_init, j_2_init in T.grid(4, 4):
                    with T.sblock("C_init"):
                        vi = T.axis.spatial(512, i_0_j_0_fused // 8 * 64 + i_1_j_1_fused // 16 * 4 + i_2_init)
                        vj = T.axis.spatial(512, i_0_j_0_fused % 8 * 64 + i_1_j_1_fused % 16 * 4 + j_2_init)
                        T.reads()
                        T.writes(C_local[vi, vj])
                        C_local[vi, vj] = T.float32(0.0)
                for k_0 in range(32):
                    for ax0_ax1_fused_0 in range(4):
                        for ax0_ax1_fused_1 in T.thread_binding(256, thread="threadIdx.x"):
                            with T.sblock("A_shared"):
                                v0 = T.axis.spatial(512, i_0_j_0_fused // 8 * 64 + (ax0_ax1_fused_0 * 256 + ax0_ax1_fused_1) // 16)
                                v1 = T.axis.spatial(512, k_0 * 16 + (ax0_ax1_fused_0 * 256 + ax0_ax1_fused_1) % 16)
                                T.reads(A[v0, v1])
                                T.writes(A_shared[v0, v1])
                                T.sblock_attr({"meta_schedule.cooperative_fetch": 1})
                                A_shared[v0, v1] = A[v0, v1]
                    for ax0_ax1_fused_0 in range(4):
                        for ax0_ax1_fused_1 in T.thread_binding(256, thread="threadIdx.x"):
                            with T.sblock("B_shared"):
                                v0 = T.axis.spatial(512, k_0 * 16 + (ax0_ax1_fused_0 * 256 + ax0_ax1_fused_1) // 64)
                                v1 = T.axis.spatial(512, i_0_j_0_fused % 8 * 64 + (ax0_ax1_fused_0 * 256 + ax0_ax1_fused_1) % 64)
                                T.reads(B[v0, v1])
                                T.writes(B_shared[v0, v1])
                                T.sblock_attr({"meta_schedule.cooperative_fetch": 1})
                                B_shared[v0, v1] = B[v0, v1]
                    for k_1, i_2, j_2 in T.grid(16, 4, 4):
                        with T.sblock("C_update"):
                            vi = T.axis.spatial(512, i_0_j_0_fused // 8 * 64 + i_1_j_1_fused // 16 * 4 + i_2)
                            vj = T.axis.spatial(512, i_0_j_0_fused % 8 * 64 + i_1_j_1_fused % 16 * 4 + j_2)
                            vk = T.axis.reduce(512, k_0 * 16 + k_1)
                            T.reads(C_local[vi, vj], A_shared[vi, vk], B_shared[vk, vj])
                            T.writes(C_local[vi, vj])
                            C_local[vi, vj] = C_local[vi, vj] + A_shared[vi, vk] * B_shared[vk, vj]
                for ax0, ax1 in T.grid(4, 4):
                    with T.sblock("C_local"):
                        v0 = T.axis.spatial(512, i_0_j_0_fused // 8 * 64 + i_1_j_1_fused // 16 * 4 + ax0)
                        v1 = T.axis.spatial(512, i_0_j_0_fused % 8 * 64 + i_1_j_1_fused % 16 * 4 + ax1)
                        T.reads(C_local[v0, v1])
                        T.writes(C[v0, v1])
                        C[v0, v1] = C_local[v0, v1]