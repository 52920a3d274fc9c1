# from tvm.script import ir as I
# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis

@I.ir_module
class Module:
    @T.prim_func
    def fast_rsqrt(A: T.Buffer((1024,), "float32"), B: T.Buffer((1024,), "float32")):
        T.func_attr({"tirx.noalias": True})
        for i in T.parallel(1024):
            bits: T.let[T.int32] = 1597463007 - T.shift_right(T.reinterpret("int32", A[i]), 1)
            y: T.let[T.float32] = T.reinterpret("float32", bits)
            B[i] = y * (T.float32(1.5) - T.float32(0.5) * A[i] * y * y)

    @T.prim_func
    def pack_int4(q: T.Buffer((1024,), "int8"), packed: T.Buffer((128,), "uint32"), packed_inv: T.Buffer((128,), "uint32")):
        T.func_attr({"tirx.noalias": True})
        for i in range(128):
            word: T.uint32 = T.uint32(0)
            for j in range(8):
                word = T.bitwise_or(word, T.shift_left(T.bitwise_and(T.Cast("uint32", q[i * 8 + j]), T.uint32(15)), T.Cast("uint32", j) * T.uint32(4)))
            packed[i] = word
            packed_inv[i] = T.bitwise_not(word)