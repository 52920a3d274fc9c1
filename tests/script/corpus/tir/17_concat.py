# from tvm.script import ir as I
# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis

@I.ir_module
class Module:
    @T.prim_func(s_tir=True)
    def main(a: T.Buffer((4, 16), "float32"), b: T.Buffer((4, 24), "float32"), c: T.Buffer((4, 8), "float32"), T_concat: T.Buffer((4, 48), "float32")):
        T.func_attr({"tirx.noalias": True})
        # with T.sblock("root"):
        for ax0, ax1 in T.grid(4, 48):
            with T.sblock("T_concat"):
                v_ax0, v_ax1 = T.axis.remap("SS", [ax0, ax1])
                T.reads(c[v_ax0, v_ax1 - 40], b[v_ax0, v_ax1 - 16], a[v_ax0, v_ax1])
                T.writes(T_concat[v_ax0, v_ax1])
                T_concat[v_ax0, v_ax1] = T.if_then_else(40 <= v_ax1, c[v_ax0, v_ax1 - 40], T.if_then_else(16 <= v_ax1, b[v_ax0, v_ax1 - 16], a[v_ax0, v_ax1]))