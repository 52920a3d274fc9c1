# from tvm.script import tirx as T

@T.prim_func
def sugar(A: T.Buffer((64,), "int32"), B: T.Buffer((64,), "float32"), C: T.Buffer((64,), "float32"), n: T.int32):
    for i in T.serial(64):
        q = T.floordiv(A[i], 8)
        r = T.floormod(A[i], 8)
        B[i] = T.cast(q * 8 + r, "float32") + T.float32(T.truncdiv(A[i], 3)) + T.Cast("float32", T.truncmod(A[i], 3))
        C[i] += -B[i] if 0 <= i < n else T.float32(0)
        C[i] = C[i] * 2 + 1
