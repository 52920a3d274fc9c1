# from tvm.script import ir as I
# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis

@I.ir_module
class Module:
    @T.prim_func(s_tir=True)
    def transpose_2d(A: T.Buffer((48, 80), "float32"), T_transpose: T.Buffer((80, 48), "float32")):
        T.func_attr({"tirx.noalias": True})
        # with T.sblock("root"):
        for ax0, ax1 in T.grid(80, 48):
            with T.sblock("T_transpose"):
                v_ax0, v_ax1 = T.axis.remap("SS", [ax0, ax1])
                T.reads(A[v_ax1, v_ax0])
                T.writes(T_transpose[v_ax0, v_ax1])
                T_transpose[v_ax0, v_ax1] = A[v_ax1, v_ax0]

    @T.prim_func(s_tir=True)
    def main(data: T.Buffer((2, 64, 14, 14), "float32"), data_nhwc: T.Buffer((2, 14, 14, 64), "float32")):
        T.func_attr({"tirx.noalias": True})
        # with T.sblock("root"):
        for n, h, w, c in T.grid(2, 14, 14, 64):
            with T.sblock("nchw_to_nhwc"):
                v_n, v_h, v_w, v_c = T.axis.remap("SSSS", [n, h, w, c])
                T.reads(data[v_n, v_c, v_h, v_w])
                T.writes(data_nhwc[v_n, v_h, v_w, v_c])
                data_nhwc[v_n, v_h, v_w, v_c] = data[v_n, v_c, v_h, v_w]