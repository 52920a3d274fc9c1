# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis

@T.prim_func
def main(A: T.Buffer((64,), "float32"), B: T.Buffer((64,), "float32"), n: T.int32):
    for i in range(1, 63):
        B[i] = (A[i - 1] + A[i] + A[i + 1]) * T.float32(0.33333333333333331)
    for i in range(0, 64, 4):
        B[i] = A[i] * T.float32(2.0)
    for i in range(n, n + (64 - n)):
        B[i] = T.float32(0.0)
    for i in T.unroll(2, 6):
        B[i] = B[i] + A[i]
    for i in T.unroll(0, 8, step=2):
        B[i] = B[i] - A[i]
    for i in T.serial(8, unroll=4):
        B[i + 8] = A[i]
    for i in T.serial(8, unroll=False):
        B[i + 16] = A[i]
    for i in T.vectorized(32, 48):
        B[i] = A[i] * A[i]
    for i in T.parallel(16):
        for j in T.vectorized(4):
            B[i * 4 + j] = B[i * 4 + j] + T.float32(1.0)