# from tvm.script import ir as I
# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis

@I.ir_module
class Module:
    @T.prim_func(private=True)
    def clamp_index(i: T.int32, n: T.int32) -> T.int32:
        return T.max(T.min(i, n - 1), 0)

    @T.prim_func(private=True)
    def row_sum(row: T.handle("float32", "global"), n: T.int32) -> T.float32:
        R_1 = T.decl_buffer((n,), data=row)
        acc: T.float32 = T.float32(0.0)
        for j in range(n):
            acc = acc + R_1[j]
        return acc

    @T.prim_func(private=True)
    def scale_row(row: T.handle("float32", "global"), n: T.int32, alpha: T.float32):
        R_1 = T.decl_buffer((n,), data=row)
        for j in range(n):
            R_1[j] = R_1[j] * alpha

    @T.prim_func
    def main(A: T.Buffer((64, 128), "float32"), idx: T.Buffer((32,), "int32"), out: T.Buffer((32,), "float32")):
        for i in range(64):
            Module.scale_row(T.address_of(A[i, 0]), 128, T.float32(0.5))
        for i in range(32):
            r: T.let[T.int32] = Module.clamp_index(idx[i], 64)
            out[i] = Module.row_sum(T.address_of(A[r, 0]), 128)