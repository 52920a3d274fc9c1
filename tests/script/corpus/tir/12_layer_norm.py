# from tvm.script import ir as I
# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis

@I.ir_module
class Module:
    @T.prim_func(private=True, s_tir=True)
    def layer_norm(x: T.Buffer((4, 256), "float32"), gamma: T.Buffer((256,), "float32"), beta: T.Buffer((256,), "float32"), T_layer_norm: T.Buffer((4, 256), "float32")):
        T.func_attr({"op_pattern": 4, "tirx.noalias": True})
        # with T.sblock("root"):
        x_red_temp_v0 = T.sblock_alloc_buffer((4,))
        x_red_temp_v1 = T.sblock_alloc_buffer((4,))
        for ax0, k1 in T.grid(4, 256):
            with T.sblock("x_red_temp"):
                v_ax0, v_k1 = T.axis.remap("SR", [ax0, k1])
                T.reads(x[v_ax0, v_k1])
                T.writes(x_red_temp_v0[v_ax0], x_red_temp_v1[v_ax0])
                with T.init():
                    x_red_temp_v0[v_ax0] = T.float32(0.0)
                    x_red_temp_v1[v_ax0] = T.float32(0.0)
                v_x_red_temp_v0: T.let[T.float32] = x_red_temp_v0[v_ax0] + x[v_ax0, v_k1]
                v_x_red_temp_v1: T.let[T.float32] = x_red_temp_v1[v_ax0] + x[v_ax0, v_k1] * x[v_ax0, v_k1]
                x_red_temp_v0[v_ax0] = v_x_red_temp_v0
                x_red_temp_v1[v_ax0] = v_x_red_temp_v1
        for ax0, ax1 in T.grid(4, 256):
            with T.sblock("T_layer_norm"):
                v_ax0, v_ax1 = T.axis.remap("SS", [ax0, ax1])
                T.reads(x[v_ax0, v_ax1], x_red_temp_v0[v_ax0], x_red_temp_v1[v_ax0], gamma[v_ax1], beta[v_ax1])
                T.writes(T_layer_norm[v_ax0, v_ax1])
                T_layer_norm[v_ax0, v_ax1] = (x[v_ax0, v_ax1] - x_red_temp_v0[v_ax0] * T.float32(0.00390625)) * T.rsqrt(x_red_temp_v1[v_ax0] * T.float32(0.00390625) - x_red_temp_v0[v_ax0] * T.float32(0.00390625) * (x_red_temp_v0[v_ax0] * T.float32(0.00390625)) + T.float32(1.0000000000000001e-05)) * gamma[v_ax1] + beta[v_ax1]