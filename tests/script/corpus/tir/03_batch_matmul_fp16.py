# from tvm.script import ir as I
# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis

@I.ir_module
class Module:
    @T.prim_func(s_tir=True)
    def main(lhs: T.Buffer((8, 64, 32), "float16"), rhs: T.Buffer((8, 32, 48), "float16"), out: T.Buffer((8, 64, 48), "float32")):
        T.func_attr({"tirx.noalias": True})
        # with T.sblock("root"):
        for b, i, j, k in T.grid(8, 64, 48, 32):
            with T.sblock("batch_matmul"):
                vb, vi, vj, vk = T.axis.remap("SSSR", [b, i, j, k])
                T.reads(lhs[vb, vi, vk], rhs[vb, vk, vj])
                T.writes(out[vb, vi, vj])
                with T.init():
                    out[vb, vi, vj] = T.float32(0.0)
                out[vb, vi, vj] = out[vb, vi, vj] + T.Cast("float32", lhs[vb, vi, vk]) * T.Cast("float32", rhs[vb, vk, vj])