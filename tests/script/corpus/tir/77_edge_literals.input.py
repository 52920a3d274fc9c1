# Literal and type edge cases that once broke the round trip (found by fuzz_tvmscript and an
# integer-mutation sweep): a shape variable declared in the body with a dtype other than int32,
# a Ramp whose slice stop would overflow int32, a quoted shape holding a string, and a Ramp
# longer than a slice can spell.
from tvm.script import ir as I
from tvm.script import tirx as T


@I.ir_module
class Module:
    @T.prim_func
    def narrow_shape_var(a: T.handle, b: T.Buffer((16,), "float32")):
        n = T.int16()
        x = T.match_buffer(a, (n, 16))
        for i, j in T.grid(T.Cast("int32", n), 16):
            x[i, j] = b[j]

    @T.prim_func
    def wide_stride(A: T.Buffer((64,), "float32"), B: T.Buffer((64,), "float32")):
        for i in range(4):
            B[T.Ramp(i, 2147483647, 4)] = A[T.Ramp(i * 4, 1, 4)]

    @T.prim_func
    def cast_in_shape(b: T.handle, a: T.handle):
        n = T.int32()
        y = T.match_buffer(b, (T.Cast("int64", n) * T.int64(2),))
        x = T.match_buffer(a, (n,))
        for i in range(n):
            y[T.Cast("int64", i)] = x[i]
