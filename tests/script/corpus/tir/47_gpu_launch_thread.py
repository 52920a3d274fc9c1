# from tvm.script import ir as I
# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis

@I.ir_module
class Module:
    @T.prim_func
    def add_kernel(A: T.Buffer((100000,), "float32"), B: T.Buffer((100000,), "float32"), C: T.Buffer((100000,), "float32")):
        T.func_attr({"calling_conv": 2, "tirx.kernel_launch_params": ["blockIdx.x", "threadIdx.x"], "tirx.noalias": True})
        bx = T.launch_thread("blockIdx.x", 391)
        tx = T.launch_thread("threadIdx.x", 256)
        if bx * 256 + tx < 100000:
            C[bx * 256 + tx] = A[bx * 256 + tx] + B[bx * 256 + tx]

    @T.prim_func
    def scale_2d_kernel(A: T.Buffer((4096,), "float16"), alpha: T.float16):
        T.func_attr({"calling_conv": 2, "tirx.kernel_launch_params": ["blockIdx.y", "blockIdx.x", "threadIdx.y", "threadIdx.x"], "tirx.noalias": True})
        by = T.launch_thread("blockIdx.y", 4)
        bx = T.launch_thread("blockIdx.x", 4)
        ty = T.launch_thread("threadIdx.y", 16)
        tx = T.launch_thread("threadIdx.x", 16)
        A[by * 1024 + ty * 64 + bx * 16 + tx] = A[by * 1024 + ty * 64 + bx * 16 + tx] * alpha