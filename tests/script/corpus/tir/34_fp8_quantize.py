# from tvm.script import ir as I
# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis

@I.ir_module
class Module:
    @T.prim_func(s_tir=True)
    def dequantize(Q: T.Buffer((32, 128), "float8_e4m3fn"), inv_scale: T.Buffer((), "float32"), X: T.Buffer((32, 128), "float16")):
        T.func_attr({"tirx.noalias": True})
        # with T.sblock("root"):
        for i, j in T.grid(32, 128):
            with T.sblock("dequantize"):
                vi, vj = T.axis.remap("SS", [i, j])
                T.reads(Q[vi, vj], inv_scale[()])
                T.writes(X[vi, vj])
                X[vi, vj] = T.Cast("float16", T.Cast("float32", Q[vi, vj]) * inv_scale[()])

    @T.prim_func(s_tir=True)
    def main(X: T.Buffer((32, 128), "float16"), scale: T.Buffer((), "float32"), Q: T.Buffer((32, 128), "float8_e4m3fn")):
        T.func_attr({"tirx.noalias": True})
        # with T.sblock("root"):
        for i, j in T.grid(32, 128):
            with T.sblock("quantize"):
                vi, vj = T.axis.remap("SS", [i, j])
                T.reads(X[vi, vj], scale[()])
                T.writes(Q[vi, vj])
                Q[vi, vj] = T.Cast("float8_e4m3fn", T.max(T.min(T.Cast("float32", X[vi, vj]) * scale[()], T.float32(448.0)), T.float32(-448.0)))