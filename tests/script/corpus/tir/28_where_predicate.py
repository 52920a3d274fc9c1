# from tvm.script import ir as I
# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis

@I.ir_module
class Module:
    @T.prim_func(s_tir=True)
    def exp_cpu(A: T.Buffer((1000,), "float32"), B: T.Buffer((1000,), "float32")):
        T.func_attr({"tirx.noalias": True})
        # with T.sblock("root"):
        for i_0 in T.parallel(32):
            for i_1 in T.vectorized(32):
                with T.sblock("B"):
                    vi = T.axis.spatial(1000, i_0 * 32 + i_1)
                    T.where(i_0 * 32 + i_1 < 1000)
                    T.reads(A[vi])
                    T.writes(B[vi])
                    B[vi] = T.exp(A[vi])

    @T.prim_func(s_tir=True)
    def exp_gpu(A: T.Buffer((1000,), "float32"), B: T.Buffer((1000,), "float32")):
        T.func_attr({"tirx.noalias": True})
        # with T.sblock("root"):
        for i_0 in T.thread_binding(8, thread="blockIdx.x"):
            for i_1 in T.thread_binding(128, thread="threadIdx.x"):
                with T.sblock("B"):
                    vi = T.axis.spatial(1000, i_0 * 128 + i_1)
                    T.where(i_0 * 128 + i_1 < 1000)
                    T.reads(A[vi])
                    T.writes(B[vi])
                    B[vi] = T.exp(A[vi])