# from tvm.script import ir as I
# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis

@I.ir_module
class Module:
    @T.prim_func(s_tir=True)
    def main(A: T.Buffer((64, 256), "int8"), B: T.Buffer((128, 256), "int8"), scale: T.Buffer((128,), "float32"), Q: T.Buffer((64, 128), "int8")):
        T.func_attr({"tirx.noalias": True})
        # with T.sblock("root"):
        acc = T.sblock_alloc_buffer((64, 128), "int32")
        for i, j, k in T.grid(64, 128, 256):
            with T.sblock("acc"):
                vi, vj, vk = T.axis.remap("SSR", [i, j, k])
                T.reads(A[vi, vk], B[vj, vk])
                T.writes(acc[vi, vj])
                with T.init():
                    acc[vi, vj] = 0
                acc[vi, vj] = acc[vi, vj] + T.Cast("int32", A[vi, vk]) * T.Cast("int32", B[vj, vk])
        for i, j in T.grid(64, 128):
            with T.sblock("requantize"):
                vi, vj = T.axis.remap("SS", [i, j])
                T.reads(acc[vi, vj], scale[vj])
                T.writes(Q[vi, vj])
                Q[vi, vj] = T.Cast("int8", T.max(T.min(T.round(T.Cast("float32", acc[vi, vj]) * scale[vj]), T.float32(127.0)), T.float32(-128.0)))