# from tvm.script import ir as I
# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis

@I.ir_module
class Module:
    @T.prim_func(s_tir=True)
    def main(logits: T.Buffer((16, 1000), "float32"), probs: T.Buffer((16, 1000), "float32")):
        T.func_attr({"tirx.noalias": True})
        row_max = T.alloc_buffer((16,))
        exp = T.alloc_buffer((16, 1000))
        row_sum = T.alloc_buffer((16,))
        for i, k in T.grid(16, 1000):
            if k == 0:
                row_max[i] = T.float32("-inf")
            row_max[i] = T.max(row_max[i], logits[i, k])
        for i, j in T.grid(16, 1000):
            exp[i, j] = T.exp(logits[i, j] - row_max[i])
        for i, k in T.grid(16, 1000):
            if k == 0:
                row_sum[i] = T.float32(0.0)
            row_sum[i] = row_sum[i] + exp[i, k]
        for i, j in T.grid(16, 1000):
            probs[i, j] = exp[i, j] / row_sum[i]
