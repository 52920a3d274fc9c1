# from tvm.script import ir as I
# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis

@I.ir_module
class Module:
    @T.prim_func(s_tir=True)
    def main(data: T.Buffer((1, 3, 32, 32), "float32"), resize: T.Buffer((1, 3, 64, 64), "float32")):
        T.func_attr({"tirx.noalias": True})
        # with T.sblock("root"):
        for n, c, y, x in T.grid(1, 3, 64, 64):
            with T.sblock("resize"):
                v_n, v_c, v_y, v_x = T.axis.remap("SSSS", [n, c, y, x])
                T.reads(data[v_n, v_c, 0:32, 0:32])
                T.writes(resize[v_n, v_c, v_y, v_x])
                in_y: T.let[T.float32] = T.max((T.Cast("float32", v_y) + T.float32(0.5)) * T.float32(0.5) - T.float32(0.5), T.float32(0.0))
                in_x: T.let[T.float32] = T.max((T.Cast("float32", v_x) + T.float32(0.5)) * T.float32(0.5) - T.float32(0.5), T.float32(0.0))
                y0: T.let[T.int32] = T.Cast("int32", T.floor(in_y))
                x0: T.let[T.int32] = T.Cast("int32", T.floor(in_x))
                y1: T.let[T.int32] = T.min(y0 + 1, 31)
                x1: T.let[T.int32] = T.min(x0 + 1, 31)
                dy: T.let[T.float32] = in_y - T.Cast("float32", y0)
                dx: T.let[T.float32] = in_x - T.Cast("float32", x0)
                resize[v_n, v_c, v_y, v_x] = (data[v_n, v_c, y0, x0] * (T.float32(1.0) - dx) + data[v_n, v_c, y0, x1] * dx) * (T.float32(1.0) - dy) + (data[v_n, v_c, y1, x0] * (T.float32(1.0) - dx) + data[v_n, v_c, y1, x1] * dx) * dy