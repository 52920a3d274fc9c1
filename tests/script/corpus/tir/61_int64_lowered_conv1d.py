# from tvm.script import ir as I
# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis

@I.ir_module
class Module:
    @T.prim_func
    def conv1d(x: T.Buffer((T.int64(64),), "float32"), w: T.Buffer((T.int64(3),), "float32"), y: T.Buffer((T.int64(62),), "float32")):
        for i in range(T.int64(62)):
            y[i] = T.float32(0.0)
            for k in range(T.int64(3)):
                y[i] = y[i] + x[i + k] * w[k]

    @T.prim_func
    def main(x: T.Buffer((T.int64(4), T.int64(16)), "float32"), y: T.Buffer((T.int64(64),), "float32")):
        for i, j in T.grid(T.int64(4), T.int64(16)):
            y[i * T.int64(16) + j] = x[i, j] * T.float32(3.0)