# from tvm.script import ir as I
# from tvm.script import tirx as T

@I.ir_module
class Module:
    @T.prim_func
    def classify(x: T.Buffer(512, "float32"), out: T.Buffer([512], "int32"), n: T.int32):
        for i in range(0, n):
            if x[i] < 0.0:
                out[i] = 0
            elif x[i] < 1.0:
                out[i] = 1
            elif x[i] < 10.0:
                out[i] = 2
            else:
                out[i] = 3

    @T.prim_func
    def dequant(q: T.Buffer[(16,), "int8"], s: T.Buffer(shape=(16,), dtype="float16"), out: T.Buffer((16,), dtype="float16")):
        for i in range(16):
            out[i] = T.Cast("float16", q[i]) * s[i]
