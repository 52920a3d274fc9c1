# from tvm.script import ir as I
# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis

@I.ir_module
class Module:
    I.module_attrs({"system_lib_prefix": "kernels_", "tirx.is_scheduled": True})
    @T.prim_func(s_tir=True)
    def relu6(A: T.Buffer((512,), "float32"), B: T.Buffer((512,), "float32")):
        T.func_attr({"tirx.noalias": True})
        # with T.sblock("root"):
        for i in range(512):
            with T.sblock("relu6"):
                vi = T.axis.spatial(512, i)
                T.reads(A[vi])
                T.writes(B[vi])
                B[vi] = T.min(T.max(A[vi], T.float32(0.0)), T.float32(6.0))

    @T.prim_func(s_tir=True)
    def main(A: T.Buffer((512,), "float32"), B: T.Buffer((512,), "float32")):
        T.func_attr({"global_symbol": "kernels_hardswish", "tirx.noalias": True})
        # with T.sblock("root"):
        for i in range(512):
            with T.sblock("hardswish"):
                vi = T.axis.spatial(512, i)
                T.reads(A[vi])
                T.writes(B[vi])
                B[vi] = A[vi] * T.min(T.max(A[vi] + T.float32(3.0), T.float32(0.0)), T.float32(6.0)) * T.float32(0.16666666666666666)