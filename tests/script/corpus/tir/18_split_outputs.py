# from tvm.script import ir as I
# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis

@I.ir_module
class Module:
    @T.prim_func(s_tir=True)
    def split(A: T.Buffer((8, 48), "float32"), head: T.Buffer((8, 16), "float32"), tail: T.Buffer((8, 32), "float32")):
        T.func_attr({"tirx.noalias": True})
        # with T.sblock("root"):
        for ax0, ax1 in T.grid(8, 16):
            with T.sblock("split_head"):
                v_ax0, v_ax1 = T.axis.remap("SS", [ax0, ax1])
                T.reads(A[v_ax0, v_ax1])
                T.writes(head[v_ax0, v_ax1])
                head[v_ax0, v_ax1] = A[v_ax0, v_ax1]
        for ax0, ax1 in T.grid(8, 32):
            with T.sblock("split_tail"):
                v_ax0, v_ax1 = T.axis.remap("SS", [ax0, ax1])
                T.reads(A[v_ax0, v_ax1 + 16])
                T.writes(tail[v_ax0, v_ax1])
                tail[v_ax0, v_ax1] = A[v_ax0, v_ax1 + 16]