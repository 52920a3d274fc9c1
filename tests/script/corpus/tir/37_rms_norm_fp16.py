# from tvm.script import ir as I
# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis

@I.ir_module
class Module:
    @T.prim_func(private=True, s_tir=True)
    def rms_norm(x: T.Buffer((4, 2048), "float16"), weight: T.Buffer((2048,), "float16"), out: T.Buffer((4, 2048), "float16")):
        T.func_attr({"tirx.noalias": True})
        # with T.sblock("root"):
        sq_sum = T.sblock_alloc_buffer((4,))
        for i, k in T.grid(4, 2048):
            with T.sblock("sq_sum"):
                vi, vk = T.axis.remap("SR", [i, k])
                T.reads(x[vi, vk])
                T.writes(sq_sum[vi])
                with T.init():
                    sq_sum[vi] = T.float32(0.0)
                sq_sum[vi] = sq_sum[vi] + T.Cast("float32", x[vi, vk]) * T.Cast("float32", x[vi, vk])
        for i, j in T.grid(4, 2048):
            with T.sblock("rms_norm"):
                vi, vj = T.axis.remap("SS", [i, j])
                T.reads(x[vi, vj], sq_sum[vi], weight[vj])
                T.writes(out[vi, vj])
                out[vi, vj] = T.Cast("float16", T.Cast("float32", x[vi, vj]) * T.rsqrt(sq_sum[vi] * T.float32(0.00048828125) + T.float32(9.9999999999999995e-07))) * weight[vj]