# A module in the form SplitHostDevice + LowerDeviceKernelLaunch produce: the host function
# launches the device kernel (calling_conv 2) through T.call_packed with its launch parameters.
from tvm.script import ir as I
from tvm.script import tirx as T


@I.ir_module
class Module:
    @T.prim_func
    def add(A: T.Buffer((1000,), "float32"), B: T.Buffer((1000,), "float32"), C: T.Buffer((1000,), "float32")):
        T.call_packed("add_kernel", A.data, B.data, C.data, 4, 256)

    @T.prim_func
    def add_kernel(A: T.Buffer((1000,), "float32"), B: T.Buffer((1000,), "float32"), C: T.Buffer((1000,), "float32")):
        T.func_attr({"calling_conv": 2, "tir.kernel_launch_params": ["blockIdx.x", "threadIdx.x"], "tir.noalias": True})
        bx = T.launch_thread("blockIdx.x", 4)
        tx = T.launch_thread("threadIdx.x", 256)
        if bx * 256 + tx < 1000:
            C[bx * 256 + tx] = A[bx * 256 + tx] + B[bx * 256 + tx]
