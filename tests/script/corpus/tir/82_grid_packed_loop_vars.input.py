from tvm.script import tirx as T

@T.prim_func
def main(A: T.Buffer((10, 12), "float32"), B: T.Buffer((10, 12, 2), "float32")):
    for lvs in T.grid(10, 12):
        A[lvs[0], lvs[1]] = T.float32(0.0)
    for idx in T.grid(*B.shape):
        B[idx[0], idx[1], idx[2]] = A[idx[0], idx[1]]
