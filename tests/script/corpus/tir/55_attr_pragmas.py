# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis

@T.prim_func
def scale_with_pragmas(A: T.Buffer((1024,), "float32"), B: T.Buffer((1024,), "float32")):
    T.func_attr({"tirx.noalias": True})
    T.attr({"compute_scope": "scale_with_pragmas_compute_", "pragma_debug_level": 1})
    buf = T.alloc_buffer((1024,))
    with T.attr(buf.data, "storage_alignment", 128):
        for i in T.serial(64, annotations={"pragma_auto_unroll_max_step": 16, "pragma_unroll_explicit": 1}):
            for j in T.unroll(16):
                buf[i * 16 + j] = A[i * 16 + j] * T.float32(2.0)
    for i in T.parallel(1024):
        B[i] = buf[i] + T.float32(1.0)