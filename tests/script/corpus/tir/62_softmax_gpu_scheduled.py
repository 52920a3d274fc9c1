# from tvm.script import ir as I
# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis

@I.ir_module
class Module:
    @T.prim_func(s_tir=True)
    def main(A: T.Buffer((256, 256), "float32"), out: T.Buffer((256, 256), "float32")):
        T.func_attr({"tirx.noalias": True})
        # with T.sblock("root"):
        row_max = T.sblock_alloc_buffer((256,), scope="shared")
        row_sum = T.sblock_alloc_buffer((256,), scope="shared")
        for i in T.thread_binding(256, thread="blockIdx.x"):
            for k_0 in range(2):
                for k_1 in T.thread_binding(128, thread="threadIdx.x"):
                    with T.sblock("row_max"):
                        vi = T.axis.spatial(256, i)
                        vk = T.axis.reduce(256, k_0 * 128 + k_1)
                        T.reads(A[vi, vk])
                        T.writes(row_max[vi])
                        with T.init():
                            row_max[vi] = T.float32("-inf")
                        row_max[vi] = T.max(row_max[vi], A[vi, vk])
            for k_0 in range(2):
                for k_1 in T.thread_binding(128, thread="threadIdx.x"):
                    with T.sblock("row_sum"):
                        vi = T.axis.spatial(256, i)
                        vk = T.axis.reduce(256, k_0 * 128 + k_1)
                        T.reads(A[vi, vk], row_max[vi])
                        T.writes(row_sum[vi])
                        with T.init():
                            row_sum[vi] = T.float32(0.0)
                        row_sum[vi] = row_sum[vi] + T.exp(A[vi, vk] - row_max[vi])
            for j_0 in range(2):
                for j_1 in T.thread_binding(128, thread="threadIdx.x"):
                    with T.sblock("normalize"):
                        vi = T.axis.spatial(256, i)
                        vj = T.axis.spatial(256, j_0 * 128 + j_1)
                        T.reads(A[vi, vj], row_max[vi], row_sum[vi])
                        T.writes(out[vi, vj])
                        out[vi, vj] = T.exp(A[vi, vj] - row_max[vi]) / row_sum[vi]