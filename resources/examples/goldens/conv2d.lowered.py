# from tvm.script import ir as I
# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis

@I.ir_module
class Module:
    @T.prim_func(s_tir=True)
    def main(data: T.Buffer((1, 3, 32, 32), "float32"), weight: T.Buffer((16, 3, 3, 3), "float32"), conv: T.Buffer((1, 16, 32, 32), "float32")):
        T.func_attr({"tirx.noalias": True})
        pad = T.alloc_buffer((1, 3, 34, 34))
        for n, c, h, w in T.grid(1, 3, 34, 34):
            pad[n, c, h, w] = T.if_then_else(1 <= h and h < 33 and 1 <= w and w < 33, data[n, c, h - 1, w - 1], T.float32(0.0))
        for n, f, y, x, rc, ry, rx in T.grid(1, 16, 32, 32, 3, 3, 3):
            if rc == 0 and ry == 0 and rx == 0:
                conv[n, f, y, x] = T.float32(0.0)
            conv[n, f, y, x] = conv[n, f, y, x] + pad[n, rc, y + ry, x + rx] * weight[f, rc, ry, rx]
