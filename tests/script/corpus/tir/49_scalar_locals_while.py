# from tvm.script import ir as I
# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis

@I.ir_module
class Module:
    @T.prim_func
    def first_above(A: T.Buffer((64, 1024), "float32"), thresh: T.float32, pos: T.Buffer((64,), "int32")):
        for r in T.parallel(64):
            found: T.int32 = -1
            for i in range(1024):
                if A[r, i] > thresh:
                    found = i
                    T.break_loop()
            pos[r] = found

    @T.prim_func
    def sign_count(A: T.Buffer((256,), "float32"), out: T.Buffer((256,), "int32")):
        for i in range(256):
            s: T.int32
            if A[i] > T.float32(0.0):
                s = 1
            else:
                s = -1
            out[i] = s

    @T.prim_func
    def main(sorted_seq: T.Buffer((1024,), "float32"), values: T.Buffer((256,), "float32"), indices: T.Buffer((256,), "int32")):
        for i in T.parallel(256):
            lo: T.int32 = 0
            hi: T.int32 = 1024
            while lo < hi:
                mid: T.let[T.int32] = (lo + hi) // 2
                if sorted_seq[mid] < values[i]:
                    lo = mid + 1
                else:
                    hi = mid
            indices[i] = lo