# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis

@T.prim_func(s_tir=True)
def row_sum_warp(A: T.Buffer((128, 32), "float32"), B: T.Buffer((128,), "float32")):
    T.func_attr({"tirx.noalias": True})
    bx = T.launch_thread("blockIdx.x", 128)
    red_buf = T.alloc_local((1,))
    tx = T.launch_thread("threadIdx.x", 32)
    with T.attr(T.comm_reducer(lambda x, y: x + y, [T.float32(0.0)]), "reduce_scope", T.reinterpret("handle", T.uint64(0))):
        T.tvm_thread_allreduce(T.uint32(1), A[bx, tx], T.bool(True), red_buf.data, tx)
    if tx == 0:
        B[bx] = red_buf[0]