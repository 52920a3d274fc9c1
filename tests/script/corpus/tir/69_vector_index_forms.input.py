# from tvm.script import tirx as T

@T.prim_func
def vec(A: T.Buffer((256,), "float32"), B: T.Buffer((256,), "float32")):
    for i in T.serial(0, 64):
        B[T.Ramp(i * 4, 1, 4)] = A[T.Ramp(i * 4, 1, 4)] + T.Broadcast(T.float32(1), 4)
    for i in range(16):
        for j in range(16):
            B[i * 16 + j] = B[i * 16 + j] * 2.0
    for i in T.grid(8):
        B[T.Ramp(i * 32, 2, 16)] = A[T.Ramp(i * 32 + 1, 2, 16)]
    for i in T.vectorized(0, 8):
        B[i] = T.float32(0)
