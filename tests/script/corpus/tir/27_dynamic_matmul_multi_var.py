# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis

@T.prim_func(s_tir=True)
def dyn_matmul(A: T.Buffer(("m", "k"), "float32"), B: T.Buffer((k, "n"), "float32"), C: T.Buffer((m, n), "float32")):
    m, k = T.int32(), T.int32()
    n = T.int32()
    T.func_attr({"tirx.noalias": True})
    # with T.sblock("root"):
    for i, j, r in T.grid(m, n, k):
        with T.sblock("C"):
            vi, vj, vr = T.axis.remap("SSR", [i, j, r])
            T.reads(A[vi, vr], B[vr, vj])
            T.writes(C[vi, vj])
            with T.init():
                C[vi, vj] = T.float32(0.0)
            C[vi, vj] = C[vi, vj] + A[vi, vr] * B[vr, vj]