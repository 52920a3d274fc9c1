# from tvm.script import ir as I
# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis

@I.ir_module
class Module:
    @T.prim_func(s_tir=True)
    def main(A: T.Buffer((128, 256), "float32"), mean: T.Buffer((128,), "float32")):
        T.func_attr({"tirx.noalias": True})
        # with T.sblock("root"):
        row_sum = T.sblock_alloc_buffer((128,))
        for i in T.thread_binding(128, thread="blockIdx.x"):
            for k_0 in T.thread_binding(64, thread="threadIdx.x"):
                for k_1 in range(4):
                    with T.sblock("row_sum"):
                        vi = T.axis.spatial(128, i)
                        vk = T.axis.reduce(256, k_0 * 4 + k_1)
                        T.reads(A[vi, vk])
                        T.writes(row_sum[vi])
                        with T.init():
                            row_sum[vi] = T.float32(0.0)
                        row_sum[vi] = row_sum[vi] + A[vi, vk]
            for k_0 in T.thread_binding(64, thread="threadIdx.x"):
                with T.sblock("mean"):
                    vi = T.axis.spatial(128, i)
                    T.where(k_0 < 1)
                    T.reads(row_sum[vi])
                    T.writes(mean[vi])
                    mean[vi] = row_sum[vi] * T.float32(0.00390625)