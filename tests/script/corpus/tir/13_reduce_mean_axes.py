# from tvm.script import ir as I
# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis

@I.ir_module
class Module:
    @T.prim_func(s_tir=True)
    def log_row_min(A: T.Buffer((8, 64), "float32"), B: T.Buffer((8,), "float32")):
        T.func_attr({"tirx.noalias": True})
        # with T.sblock("root"):
        A_min = T.sblock_alloc_buffer((8,))
        for i, k in T.grid(8, 64):
            with T.sblock("A_min"):
                vi, vk = T.axis.remap("SR", [i, k])
                T.reads(A[vi, vk])
                T.writes(A_min[vi])
                with T.init():
                    A_min[vi] = T.float32("inf")
                A_min[vi] = T.min(A_min[vi], A[vi, vk])
        for i in range(8):
            with T.sblock("log"):
                vi = T.axis.spatial(8, i)
                T.reads(A_min[vi])
                T.writes(B[vi])
                B[vi] = T.Select(A_min[vi] < T.float32(0.0), T.float32("nan"), T.log(A_min[vi]))

    @T.prim_func(s_tir=True)
    def main(A: T.Buffer((8, 16, 4, 32), "float32"), T_mean: T.Buffer((8, 4), "float32")):
        T.func_attr({"tirx.noalias": True})
        # with T.sblock("root"):
        A_red = T.sblock_alloc_buffer((8, 4))
        for ax0, ax1, k1, k3 in T.grid(8, 4, 16, 32):
            with T.sblock("A_red"):
                v_ax0, v_ax1, v_k1, v_k3 = T.axis.remap("SSRR", [ax0, ax1, k1, k3])
                T.reads(A[v_ax0, v_k1, v_ax1, v_k3])
                T.writes(A_red[v_ax0, v_ax1])
                with T.init():
                    A_red[v_ax0, v_ax1] = T.float32(0.0)
                A_red[v_ax0, v_ax1] = A_red[v_ax0, v_ax1] + A[v_ax0, v_k1, v_ax1, v_k3]
        for ax0, ax1 in T.grid(8, 4):
            with T.sblock("T_mean"):
                v_ax0, v_ax1 = T.axis.remap("SS", [ax0, ax1])
                T.reads(A_red[v_ax0, v_ax1])
                T.writes(T_mean[v_ax0, v_ax1])
                T_mean[v_ax0, v_ax1] = A_red[v_ax0, v_ax1] * T.float32(0.001953125)