# from tvm.script import ir as I
# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis

@I.ir_module
class Module:
    @T.prim_func(s_tir=True)
    def depthwise_conv2d(data: T.Buffer((1, 32, 28, 28), "float16"), kernel: T.Buffer((32, 1, 3, 3), "float16"), out: T.Buffer((1, 32, 14, 14), "float16")):
        T.func_attr({"tirx.noalias": True})
        # with T.sblock("root"):
        padded = T.sblock_alloc_buffer((1, 32, 30, 30), "float16")
        for n, c, h, w in T.grid(1, 32, 30, 30):
            with T.sblock("padded"):
                v_n, v_c, v_h, v_w = T.axis.remap("SSSS", [n, c, h, w])
                T.reads(data[v_n, v_c, v_h - 1, v_w - 1])
                T.writes(padded[v_n, v_c, v_h, v_w])
                padded[v_n, v_c, v_h, v_w] = T.if_then_else(1 <= v_h and v_h < 29 and 1 <= v_w and v_w < 29, data[v_n, v_c, v_h - 1, v_w - 1], T.float16(0.0))
        for n, c, y, x, dy, dx in T.grid(1, 32, 14, 14, 3, 3):
            with T.sblock("depthwise"):
                v_n, v_c, v_y, v_x, v_dy, v_dx = T.axis.remap("SSSSRR", [n, c, y, x, dy, dx])
                T.reads(padded[v_n, v_c, v_y * 2 + v_dy, v_x * 2 + v_dx], kernel[v_c, 0, v_dy, v_dx])
                T.writes(out[v_n, v_c, v_y, v_x])
                with T.init():
                    out[v_n, v_c, v_y, v_x] = T.float16(0.0)
                out[v_n, v_c, v_y, v_x] = out[v_n, v_c, v_y, v_x] + padded[v_n, v_c, v_y * 2 + v_dy, v_x * 2 + v_dx] * kernel[v_c, 0, v_dy, v_dx]