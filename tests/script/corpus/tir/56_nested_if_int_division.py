# from tvm.script import ir as I
# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis

@I.ir_module
class Module:
    @T.prim_func
    def bucketize(x: T.Buffer((512,), "float32"), bucket: T.Buffer((512,), "int32")):
        for i in range(512):
            if x[i] < T.float32(0.0):
                bucket[i] = 0
            else:
                if x[i] < T.float32(1.0):
                    bucket[i] = 1
                else:
                    if x[i] < T.float32(10.0):
                        bucket[i] = 2
                    else:
                        bucket[i] = 3

    @T.prim_func
    def main(A: T.Buffer((256,), "int32"), B: T.Buffer((256,), "int32"), C: T.Buffer((256,), "int32")):
        for i in range(256):
            if A[i] < 0:
                B[i] = T.Div(A[i], 4)
                C[i] = T.truncmod(A[i], 4)
            else:
                if A[i] < 100:
                    B[i] = A[i] // 4
                    C[i] = A[i] % 4
                else:
                    B[i] = T.Select(A[i] % 2 == 0, A[i] // 2, A[i] * 3 + 1)
                    C[i] = T.if_then_else(A[i] > 1000, 1000, A[i])
            if i % 64 == 0:
                if B[i] == 0:
                    C[i] = -1