# from tvm.script import ir as I
# from tvm.script import tirx as T

# Softmax written by hand: explicit root block, per-axis T.axis.spatial/reduce
# where the printer would use T.axis.remap, reads/writes left to inference,
# T.min_value instead of a literal, list shapes and an explicit float32 dtype.


@I.ir_module
class Softmax:
    @T.prim_func(s_tir=True)
    def main(A: T.Buffer([32, 64], "float32"), out: T.Buffer([32, 64], "float32")):
        with T.sblock("root"):
            mx = T.sblock_alloc_buffer([32], "float32")
            ex = T.sblock_alloc_buffer([32, 64], "float32")
            sm = T.sblock_alloc_buffer([32], "float32")
            for i, k in T.grid(32, 64):
                with T.sblock("max"):
                    vi = T.axis.spatial(32, i)
                    vk = T.axis.reduce(64, k)
                    with T.init():
                        mx[vi] = T.min_value("float32")
                    mx[vi] = T.max(mx[vi], A[vi, vk])
            for i, j in T.grid(32, 64):
                with T.sblock("exp"):
                    vi = T.axis.spatial(32, i)
                    vj = T.axis.spatial(64, j)
                    ex[vi, vj] = T.exp(A[vi, vj] - mx[vi])
            for i, k in T.grid(32, 64):
                with T.sblock("sum"):
                    vi = T.axis.S(32, i)
                    vk = T.axis.R(64, k)
                    with T.init():
                        sm[vi] = 0.0
                    sm[vi] += ex[vi, vk]
            for i, j in T.grid(32, 64):
                with T.sblock("norm"):
                    vi, vj = T.axis.remap("SS", [i, j])
                    out[vi, vj] = ex[vi, vj] / sm[vi]
