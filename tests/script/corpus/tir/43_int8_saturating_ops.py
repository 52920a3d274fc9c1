# from tvm.script import ir as I
# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis

@I.ir_module
class Module:
    @T.prim_func(s_tir=True)
    def relu_zero_point(x: T.Buffer((1024,), "int8"), y: T.Buffer((1024,), "int8")):
        T.func_attr({"tirx.noalias": True})
        # with T.sblock("root"):
        for i in range(1024):
            with T.sblock("relu"):
                vi = T.axis.spatial(1024, i)
                T.reads(x[vi])
                T.writes(y[vi])
                y[vi] = T.max(x[vi], T.int8(-2))

    @T.prim_func(s_tir=True)
    def main(a: T.Buffer((1024,), "int8"), b: T.Buffer((1024,), "int8"), out: T.Buffer((1024,), "int8")):
        T.func_attr({"tirx.noalias": True})
        # with T.sblock("root"):
        for i in range(1024):
            with T.sblock("sat_add"):
                vi = T.axis.spatial(1024, i)
                T.reads(a[vi], b[vi])
                T.writes(out[vi])
                out[vi] = T.Cast("int8", T.max(T.min(T.Cast("int32", a[vi]) + T.Cast("int32", b[vi]), 127), -128))