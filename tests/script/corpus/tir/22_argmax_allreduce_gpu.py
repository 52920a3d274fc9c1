# from tvm.script import ir as I
# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis

@I.ir_module
class Module:
    @T.prim_func(s_tir=True)
    def main(A: T.Buffer((64, 256), "float32"), out_idx: T.Buffer((64,), "int32")):
        T.func_attr({"calling_conv": 2, "tirx.kernel_launch_params": ["blockIdx.x", "threadIdx.x"], "tirx.noalias": True})
        bx = T.launch_thread("blockIdx.x", 64)
        red_idx = T.alloc_local((1,), "int32")
        red_val = T.alloc_local((1,))
        tx = T.launch_thread("threadIdx.x", 256)
        with T.attr(T.comm_reducer(lambda x0, x1, y0, y1: (T.Select(x1 >= y1, x0, y0), T.Select(x1 >= y1, x1, y1)), [-1, T.float32("-inf")]), "reduce_scope", T.reinterpret("handle", T.uint64(0))):
            T.tvm_thread_allreduce(T.uint32(2), tx, A[bx, tx], T.bool(True), red_idx.data, red_val.data, tx)
        if tx == 0:
            out_idx[bx] = red_idx[0]