# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis

@T.prim_func(s_tir=True)
def l2_norm(A: T.Buffer((32, 32), "float32"), norm: T.Buffer((), "float32")):
    T.func_attr({"tirx.noalias": True})
    # with T.sblock("root"):
    sq_sum = T.sblock_alloc_buffer((), "float64")
    for k0, k1 in T.grid(32, 32):
        with T.sblock("sq_sum"):
            v_k0, v_k1 = T.axis.remap("RR", [k0, k1])
            T.reads(A[v_k0, v_k1])
            T.writes(sq_sum[()])
            with T.init():
                sq_sum[()] = T.float64(0.0)
            sq_sum[()] = sq_sum[()] + T.Cast("float64", A[v_k0, v_k1]) * T.Cast("float64", A[v_k0, v_k1])
    with T.sblock("norm"):
        T.reads(sq_sum[()])
        T.writes(norm[()])
        norm[()] = T.Cast("float32", T.sqrt(sq_sum[()]))