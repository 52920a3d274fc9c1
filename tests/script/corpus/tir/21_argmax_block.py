# from tvm.script import ir as I
# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis

@I.ir_module
class Module:
    @T.prim_func(s_tir=True)
    def main(A: T.Buffer((32, 1000), "float32"), A_red: T.Buffer((32,), "int32")):
        T.func_attr({"tirx.noalias": True})
        # with T.sblock("root"):
        A_red_temp_v0 = T.sblock_alloc_buffer((32,), "int32")
        A_red_temp_v1 = T.sblock_alloc_buffer((32,))
        for ax0, k1 in T.grid(32, 1000):
            with T.sblock("A_red_temp"):
                v_ax0, v_k1 = T.axis.remap("SR", [ax0, k1])
                T.reads(A[v_ax0, v_k1])
                T.writes(A_red_temp_v0[v_ax0], A_red_temp_v1[v_ax0])
                with T.init():
                    A_red_temp_v0[v_ax0] = -1
                    A_red_temp_v1[v_ax0] = T.float32("-inf")
                v_A_red_temp_v0: T.let[T.int32] = T.Select(A_red_temp_v1[v_ax0] > A[v_ax0, v_k1] or A_red_temp_v1[v_ax0] == A[v_ax0, v_k1] and A_red_temp_v0[v_ax0] < v_k1, A_red_temp_v0[v_ax0], v_k1)
                v_A_red_temp_v1: T.let[T.float32] = T.Select(A_red_temp_v1[v_ax0] > A[v_ax0, v_k1], A_red_temp_v1[v_ax0], A[v_ax0, v_k1])
                A_red_temp_v0[v_ax0] = v_A_red_temp_v0
                A_red_temp_v1[v_ax0] = v_A_red_temp_v1
        for ax0 in range(32):
            with T.sblock("A_red"):
                v_ax0 = T.axis.spatial(32, ax0)
                T.reads(A_red_temp_v0[v_ax0])
                T.writes(A_red[v_ax0])
                A_red[v_ax0] = A_red_temp_v0[v_ax0]