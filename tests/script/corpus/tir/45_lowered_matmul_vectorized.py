# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis

@T.prim_func
def mmult(A: T.Buffer((16384,), "float32"), B: T.Buffer((16384,), "float32"), C: T.Buffer((16384,), "float32")):
    T.func_attr({"tirx.noalias": True})
    packedB = T.alloc_buffer((16384,))
    for x in T.parallel(4):
        for k in range(128):
            packedB[x * 4096 + k * 32:x * 4096 + k * 32 + 32] = B[k * 128 + x * 32:k * 128 + x * 32 + 32]
    for x_outer in T.parallel(4):
        C_global = T.alloc_buffer((1024,))
        for y_outer in range(4):
            for x_c_init in range(32):
                C_global[x_c_init * 32:x_c_init * 32 + 32] = T.Broadcast(T.float32(0.0), 32)
            for k_outer, x_c in T.grid(128, 32):
                C_global[x_c * 32:x_c * 32 + 32] = C_global[x_c * 32:x_c * 32 + 32] + T.Broadcast(A[x_outer * 4096 + x_c * 128 + k_outer], 32) * packedB[y_outer * 4096 + k_outer * 32:y_outer * 4096 + k_outer * 32 + 32]
            for x_inner in range(32):
                for y_inner in T.vectorized(32):
                    C[x_outer * 4096 + x_inner * 128 + y_outer * 32 + y_inner] = C_global[x_inner * 32 + y_inner]