# from tvm.script import ir as I
# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis

@I.ir_module
class Module:
    @T.prim_func
    def smoothstep(A: T.Buffer((256,), "float32"), B: T.Buffer((256,), "float32")):
        for i in range(256):
            t = T.float32()
            B[i] = T.Let(t * t * (T.float32(3.0) - T.float32(2.0) * t), where={t: T.max(T.min(A[i], T.float32(1.0)), T.float32(0.0))})

    @T.prim_func
    def main(n: T.int32, idx_ptr: T.handle("int32", "global"), src: T.Buffer((512, 64), "float32"), dst_ptr: T.handle("float32", "global")):
        assert n <= 512, ("ValueError", ["n must not exceed 512"])
        idx = T.decl_buffer((n,), "int32", data=idx_ptr)
        dst = T.decl_buffer((n, 64), data=dst_ptr)
        for i in range(n):
            row: T.let[T.int32] = idx[i]
            assert 0 <= row and row < 512, ("IndexError", ["gather index ", "out of range"])
            for j in T.vectorized(64):
                dst[i, j] = src[row, j]