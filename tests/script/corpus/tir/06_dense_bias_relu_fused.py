# from tvm.script import ir as I
# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis

@I.ir_module
class Module:
    @T.prim_func(s_tir=True)
    def fused_dense_bias_relu(X: T.Buffer((32, 128), "float32"), W: T.Buffer((64, 128), "float32"), bias: T.Buffer((64,), "float32"), Y: T.Buffer((32, 64), "float32")):
        T.func_attr({"tirx.noalias": True})
        # with T.sblock("root"):
        dense = T.sblock_alloc_buffer((32, 64))
        biased = T.sblock_alloc_buffer((32, 64))
        for i, j, k in T.grid(32, 64, 128):
            with T.sblock("dense"):
                vi, vj, vk = T.axis.remap("SSR", [i, j, k])
                T.reads(X[vi, vk], W[vj, vk])
                T.writes(dense[vi, vj])
                with T.init():
                    dense[vi, vj] = T.float32(0.0)
                dense[vi, vj] = dense[vi, vj] + X[vi, vk] * W[vj, vk]
        for i, j in T.grid(32, 64):
            with T.sblock("bias_add"):
                vi, vj = T.axis.remap("SS", [i, j])
                T.reads(dense[vi, vj], bias[vj])
                T.writes(biased[vi, vj])
                biased[vi, vj] = dense[vi, vj] + bias[vj]
        for i, j in T.grid(32, 64):
            with T.sblock("relu"):
                vi, vj = T.axis.remap("SS", [i, j])
                T.reads(biased[vi, vj])
                T.writes(Y[vi, vj])
                Y[vi, vj] = T.max(biased[vi, vj], T.float32(0.0))