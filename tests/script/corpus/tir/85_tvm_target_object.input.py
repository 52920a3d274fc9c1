from tvm.script import tirx as T
import tvm

@T.prim_func
def main(A: T.Buffer((4,), "float32")):
    T.func_attr({"target": tvm.target.Target("llvm", host="llvm"), "tirx.noalias": True})
    for i in range(4):
        A[i] = T.float32(1.0)
