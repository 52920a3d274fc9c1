# from tvm.script import ir as I
# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis

@I.ir_module
class Module:
    @T.prim_func
    def axpy_ptr(n: T.int32, alpha: T.float32, x_ptr: T.handle("float32", "global"), y_ptr: T.handle("float32", "global")):
        x = T.decl_buffer((n,), data=x_ptr)
        y = T.decl_buffer((n,), data=y_ptr)
        for i in range(n):
            y[i] = alpha * x[i] + y[i]

    @T.prim_func
    def main(A: T.Buffer((128,), "float32"), lo: T.Buffer((64,), "float32"), hi: T.Buffer((64,), "float32")):
        A_hi = T.decl_buffer((64,), data=A.data, elem_offset=64)
        A_alias = T.decl_buffer((128,), data=A.data)
        for i in range(64):
            lo[i] = A_alias[i]
            hi[i] = A_hi[i]