# from tvm.script import ir as I
# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis

@I.ir_module
class Module:
    @T.prim_func(s_tir=True)
    def main(data: T.Buffer((1, 3, 32, 32), "float32"), weight: T.Buffer((16, 3, 3, 3), "float32"), conv: T.Buffer((1, 16, 32, 32), "float32")):
        T.func_attr({"tirx.noalias": True})
        # with T.sblock("root"):
        pad = T.sblock_alloc_buffer((1, 3, 34, 34))
        for n, c, h, w in T.grid(1, 3, 34, 34):
            with T.sblock("pad"):
                v_n, v_c, v_h, v_w = T.axis.remap("SSSS", [n, c, h, w])
                T.reads(data[v_n, v_c, v_h - 1, v_w - 1])
                T.writes(pad[v_n, v_c, v_h, v_w])
                pad[v_n, v_c, v_h, v_w] = T.if_then_else(1 <= v_h and v_h < 33 and 1 <= v_w and v_w < 33, data[v_n, v_c, v_h - 1, v_w - 1], T.float32(0.0))
        for n, f, y, x, rc, ry, rx in T.grid(1, 16, 32, 32, 3, 3, 3):
            with T.sblock("conv"):
                v_n, v_f, v_y, v_x, v_rc, v_ry, v_rx = T.axis.remap("SSSSRRR", [n, f, y, x, rc, ry, rx])
                T.reads(pad[v_n, v_rc, v_y + v_ry, v_x + v_rx], weight[v_f, v_rc, v_ry, v_rx])
                T.writes(conv[v_n, v_f, v_y, v_x])
                with T.init():
                    conv[v_n, v_f, v_y, v_x] = T.float32(0.0)
                conv[v_n, v_f, v_y, v_x] = conv[v_n, v_f, v_y, v_x] + pad[v_n, v_rc, v_y + v_ry, v_x + v_rx] * weight[v_f, v_rc, v_ry, v_rx]