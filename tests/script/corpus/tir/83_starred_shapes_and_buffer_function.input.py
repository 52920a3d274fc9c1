from tvm.script import tirx as T

dims = (8, 4)

@T.prim_func(private=True, s_tir=True)
def fill(a: T.handle, B: T.buffer((2, 8), "int32")):
    A = T.match_buffer(a, [2, *dims], "int32")
    for i, j, k in T.grid(2, *dims):
        A[i, j, k] = T.int32(len(dims))
    for idx in T.grid(*B.shape):
        B[idx] = A[idx[0], idx[1], 0]
