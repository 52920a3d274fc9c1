# from tvm.script import ir as I
# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis

@I.ir_module
class Module:
    @T.prim_func(s_tir=True)
    def invert_mask(mask: T.Buffer((32, 10), "bool"), inv: T.Buffer((32, 10), "bool")):
        T.func_attr({"tirx.noalias": True})
        # with T.sblock("root"):
        for i, j in T.grid(32, 10):
            with T.sblock("invert"):
                vi, vj = T.axis.remap("SS", [i, j])
                T.reads(mask[vi, vj])
                T.writes(inv[vi, vj])
                inv[vi, vj] = not mask[vi, vj]

    @T.prim_func(s_tir=True)
    def label_mask(labels: T.Buffer((32,), "int32"), mask: T.Buffer((32, 10), "bool")):
        T.func_attr({"tirx.noalias": True})
        # with T.sblock("root"):
        for i, j in T.grid(32, 10):
            with T.sblock("mask"):
                vi, vj = T.axis.remap("SS", [i, j])
                T.reads(labels[vi])
                T.writes(mask[vi, vj])
                mask[vi, vj] = T.Select(labels[vi] < 0, T.bool(False), labels[vi] == vj)

    @T.prim_func(s_tir=True)
    def valid_rows(mask: T.Buffer((32, 10), "bool"), any_set: T.Buffer((32,), "bool")):
        T.func_attr({"tirx.noalias": True})
        # with T.sblock("root"):
        for i, k in T.grid(32, 10):
            with T.sblock("any_set"):
                vi, vk = T.axis.remap("SR", [i, k])
                T.reads(mask[vi, vk])
                T.writes(any_set[vi])
                with T.init():
                    any_set[vi] = T.bool(False)
                any_set[vi] = any_set[vi] or mask[vi, vk]

    @T.prim_func(s_tir=True)
    def main(labels: T.Buffer((32,), "int32"), one_hot: T.Buffer((32, 10), "float32")):
        T.func_attr({"tirx.noalias": True})
        # with T.sblock("root"):
        for i, j in T.grid(32, 10):
            with T.sblock("one_hot"):
                vi, vj = T.axis.remap("SS", [i, j])
                T.reads(labels[vi])
                T.writes(one_hot[vi, vj])
                one_hot[vi, vj] = T.Select(labels[vi] == vj, T.float32(1.0), T.float32(0.0))