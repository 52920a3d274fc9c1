# from tvm.script import ir as I
# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis

@I.ir_module
class Module:
    @T.prim_func(s_tir=True)
    def gelu_erf(x: T.Buffer((8, 3072), "float32"), y: T.Buffer((8, 3072), "float32")):
        T.func_attr({"tirx.noalias": True})
        # with T.sblock("root"):
        for i, j in T.grid(8, 3072):
            with T.sblock("gelu"):
                vi, vj = T.axis.remap("SS", [i, j])
                T.reads(x[vi, vj])
                T.writes(y[vi, vj])
                y[vi, vj] = x[vi, vj] * (T.float32(0.5) + T.erf(x[vi, vj] * T.float32(0.70710678118654757)) * T.float32(0.5))

    @T.prim_func(s_tir=True)
    def gelu_tanh(x: T.Buffer((8, 3072), "float32"), y: T.Buffer((8, 3072), "float32")):
        T.func_attr({"tirx.noalias": True})
        # with T.sblock("root"):
        for i, j in T.grid(8, 3072):
            with T.sblock("gelu"):
                vi, vj = T.axis.remap("SS", [i, j])
                T.reads(x[vi, vj])
                T.writes(y[vi, vj])
                y[vi, vj] = T.float32(0.5) * x[vi, vj] * (T.float32(1.0) + T.tanh(T.float32(0.79788456080286541) * (x[vi, vj] + T.float32(0.044714999999999998) * x[vi, vj] * x[vi, vj] * x[vi, vj])))