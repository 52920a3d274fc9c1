from tvm.script import tirx as T

@T.prim_func(s_tir=True)
def f(A: T.Buffer((16, 16), "float32"), B: T.Buffer((16,), "float32")) -> None:
    for i in T.serial(16):
        with T.sblock("outer"):
            vi = T.axis.spatial(16, i)
            S = T.sblock_alloc_buffer([1, 16], dtype="float32", scope="shared")
            for ax1 in range(16):
                with T.sblock("copy"):
                    v1 = T.axis.spatial(16, ax1)
                    S[vi, v1] = A[vi, v1]
            B[vi] = S[vi, 0]
