from tvm.script import ir as I
from tvm.script import tirx as T

@I.ir_module
class Module:
    @T.prim_func
    def on_gpu(A: T.Buffer((64,), "float32")):
        T.func_attr({"target": T.target("cuda -arch=sm_80", host="llvm"), "tirx.noalias": True})
        for i in T.thread_binding(64, thread="threadIdx.x"):
            A[i] = A[i] * T.float32(2.0)

    @T.prim_func
    def on_cpu(A: T.Buffer((64,), "float32")):
        T.func_attr({"target": T.target({"kind": "llvm", "keys": ["cpu"], "mcpu": "skylake", "tag": ""})})
        with T.attr(T.target("llvm"), "target", 0):
            for i in range(64):
                A[i] = A[i] + T.float32(1.0)
