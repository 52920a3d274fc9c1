# from tvm.script import ir as I
# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis

@I.ir_module
class Module:
    @T.prim_func(private=True, s_tir=True)
    def fused_conv2d_add_relu(x: T.Buffer((T.int64(1), T.int64(16), T.int64(16), T.int64(8)), "float32"), w: T.Buffer((T.int64(3), T.int64(3), T.int64(8), T.int64(16)), "float32"), b: T.Buffer((T.int64(1), T.int64(1), T.int64(1), T.int64(16)), "float32"), compute_intermediate: T.Buffer((T.int64(1), T.int64(16), T.int64(16), T.int64(16)), "float32")):
        T.func_attr({"tirx.noalias": True})
        # with T.sblock("root"):
        pad_temp = T.sblock_alloc_buffer((T.int64(1), T.int64(18), T.int64(18), T.int64(8)))
        conv2d_nhwc_intermediate = T.sblock_alloc_buffer((T.int64(1), T.int64(16), T.int64(16), T.int64(16)))
        T_add_intermediate = T.sblock_alloc_buffer((T.int64(1), T.int64(16), T.int64(16), T.int64(16)))
        for i0, i1, i2, i3 in T.grid(T.int64(1), T.int64(18), T.int64(18), T.int64(8)):
            with T.sblock("pad_temp"):
                v_i0, v_i1, v_i2, v_i3 = T.axis.remap("SSSS", [i0, i1, i2, i3])
                T.reads(x[v_i0, v_i1 - T.int64(1), v_i2 - T.int64(1), v_i3])
                T.writes(pad_temp[v_i0, v_i1, v_i2, v_i3])
                pad_temp[v_i0, v_i1, v_i2, v_i3] = T.if_then_else(T.int64(1) <= v_i1 and v_i1 < T.int64(17) and T.int64(1) <= v_i2 and v_i2 < T.int64(17), x[v_i0, v_i1 - T.int64(1), v_i2 - T.int64(1), v_i3], T.float32(0.0))
        for nn, yy, xx, ff, ry, rx, rc in T.grid(T.int64(1), T.int64(16), T.int64(16), T.int64(16), T.int64(3), T.int64(3), T.int64(8)):
            with T.sblock("conv2d_nhwc"):
                v_nn, v_yy, v_xx, v_ff, v_ry, v_rx, v_rc = T.axis.remap("SSSSRRR", [nn, yy, xx, ff, ry, rx, rc])
                T.reads(pad_temp[v_nn, v_yy + v_ry, v_xx + v_rx, v_rc], w[v_ry, v_rx, v_rc, v_ff])
                T.writes(conv2d_nhwc_intermediate[v_nn, v_yy, v_xx, v_ff])
                with T.init():
                    conv2d_nhwc_intermediate[v_nn, v_yy, v_xx, v_ff] = T.float32(0.0)
                conv2d_nhwc_intermediate[v_nn, v_yy, v_xx, v_ff] = conv2d_nhwc_intermediate[v_nn, v_yy, v_xx, v_ff] + pad_temp[v_nn, v_yy + v_ry, v_xx + v_rx, v_rc] * w[v_ry, v_rx, v_rc, v_ff]
        for ax0, ax1, ax2, ax3 in T.grid(T.int64(1), T.int64(16), T.int64(16), T.int64(16)):
            with T.sblock("T_add"):
                v_ax0, v_ax1, v_ax2, v_ax3 = T.axis.remap("SSSS", [ax0, ax1, ax2, ax3])
                T.reads(conv2d_nhwc_intermediate[v_ax0, v_ax1, v_ax2, v_ax3], b[T.int64(0), T.int64(0), T.int64(0), v_ax3])
                T.writes(T_add_intermediate[v_ax0, v_ax1, v_ax2, v_ax3])
                T_add_intermediate[v_ax0, v_ax1, v_ax2, v_ax3] = conv2d_nhwc_intermediate[v_ax0, v_ax1, v_ax2, v_ax3] + b[T.int64(0), T.int64(0), T.int64(0), v_ax3]
        for i0, i1, i2, i3 in T.grid(T.int64(1), T.int64(16), T.int64(16), T.int64(16)):
            with T.sblock("compute"):
                v_i0, v_i1, v_i2, v_i3 = T.axis.remap("SSSS", [i0, i1, i2, i3])
                T.reads(T_add_intermediate[v_i0, v_i1, v_i2, v_i3])
                T.writes(compute_intermediate[v_i0, v_i1, v_i2, v_i3])
                compute_intermediate[v_i0, v_i1, v_i2, v_i3] = T.max(T_add_intermediate[v_i0, v_i1, v_i2, v_i3], T.float32(0.0))