# from tvm.script import ir as I
# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis

@I.ir_module
class Module:
    @T.prim_func
    def deinterleave(A: T.Buffer((1024,), "float32"), even: T.Buffer((512,), "float32"), odd: T.Buffer((512,), "float32")):
        for i in range(128):
            even[i * 4:i * 4 + 4] = A[i * 8:i * 8 + 8:2]
            odd[i * 4:i * 4 + 4] = A[i * 8 + 1:i * 8 + 1 + 8:2]

    @T.prim_func
    def interleave(even: T.Buffer((512,), "float32"), odd: T.Buffer((512,), "float32"), out: T.Buffer((1024,), "float32")):
        for i in range(128):
            out[i * 8:i * 8 + 8] = T.Shuffle([even[i * 4:i * 4 + 4], odd[i * 4:i * 4 + 4]], [0, 4, 1, 5, 2, 6, 3, 7])

    @T.prim_func
    def masked_copy(n: T.int32, A: T.Buffer((1024,), "float32"), B: T.Buffer((1024,), "float32")):
        for i in range((n + 3) // 4):
            B.vstore([T.Ramp(i * 4, 1, 4)], A.vload([T.Ramp(i * 4, 1, 4)], predicate=T.Ramp(i * 4, 1, 4) < T.Broadcast(n, 4)), predicate=T.Ramp(i * 4, 1, 4) < T.Broadcast(n, 4))

    @T.prim_func
    def main(A: T.Buffer((1024,), "float32"), B: T.Buffer((1024,), "float32")):
        for i in range(256):
            B[i * 4:i * 4 + 4] = A[i * 4:i * 4 + 4] * T.Cast("float32x4", T.Ramp(i * 4, 1, 4)) + T.Broadcast(T.float32(0.5), 4)