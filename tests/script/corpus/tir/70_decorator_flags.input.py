# from tvm.script import ir as I
# from tvm.script import tirx as T

@I.ir_module(check_well_formed=False, s_tir=True)
class MyKernels:
    @T.prim_func(s_tir=True)
    def main(A: T.Buffer((32,), "float32"), B: T.Buffer((32,), "float32")) -> None:
        for i in range(32):
            MyKernels.helper(T.address_of(A[i]), T.address_of(B[i]))

    @T.prim_func(private=True, s_tir=True)
    def helper(a_ptr: T.handle("float32"), b_ptr: T.handle("float32")):
        a = T.decl_buffer((2,), data=a_ptr)
        b = T.decl_buffer((2,), data=b_ptr)
        v: T.let = a[0] * 2.0
        w = T.bind(v + a[1])
        u = T.float32()
        T.bind(w * w, var=u)
        assert u >= 0.0, "value must be non-negative"
        b[0] = u
