# from tvm.script import ir as I
# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis

@I.ir_module
class Module:
    @T.prim_func(s_tir=True)
    def main(logits: T.Buffer((16, 1000), "float32"), probs: T.Buffer((16, 1000), "float32")):
        T.func_attr({"tirx.noalias": True})
        # with T.sblock("root"):
        row_max = T.sblock_alloc_buffer((16,))
        exp = T.sblock_alloc_buffer((16, 1000))
        row_sum = T.sblock_alloc_buffer((16,))
        for i, k in T.grid(16, 1000):
            with T.sblock("row_max"):
                vi, vk = T.axis.remap("SR", [i, k])
                T.reads(logits[vi, vk])
                T.writes(row_max[vi])
                with T.init():
                    row_max[vi] = T.float32("-inf")
                row_max[vi] = T.max(row_max[vi], logits[vi, vk])
        for i, j in T.grid(16, 1000):
            with T.sblock("exp"):
                vi, vj = T.axis.remap("SS", [i, j])
                T.reads(logits[vi, vj], row_max[vi])
                T.writes(exp[vi, vj])
                exp[vi, vj] = T.exp(logits[vi, vj] - row_max[vi])
        for i, k in T.grid(16, 1000):
            with T.sblock("row_sum"):
                vi, vk = T.axis.remap("SR", [i, k])
                T.reads(exp[vi, vk])
                T.writes(row_sum[vi])
                with T.init():
                    row_sum[vi] = T.float32(0.0)
                row_sum[vi] = row_sum[vi] + exp[vi, vk]
        for i, j in T.grid(16, 1000):
            with T.sblock("normalize"):
                vi, vj = T.axis.remap("SS", [i, j])
                T.reads(exp[vi, vj], row_sum[vi])
                T.writes(probs[vi, vj])
                probs[vi, vj] = exp[vi, vj] / row_sum[vi]