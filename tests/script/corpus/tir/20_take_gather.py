# from tvm.script import ir as I
# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis

@I.ir_module
class Module:
    @T.prim_func(private=True, s_tir=True)
    def gather(data: T.Buffer((T.int64(16), T.int64(100)), "float32"), indices: T.Buffer((T.int64(16), T.int64(8)), "int64"), T_gather: T.Buffer((T.int64(16), T.int64(8)), "float32")):
        T.func_attr({"tirx.noalias": True})
        # with T.sblock("root"):
        for ax0, ax1 in T.grid(T.int64(16), T.int64(8)):
            with T.sblock("T_gather"):
                v_ax0, v_ax1 = T.axis.remap("SS", [ax0, ax1])
                T.reads(data[v_ax0, indices[v_ax0, v_ax1]], indices[v_ax0, v_ax1])
                T.writes(T_gather[v_ax0, v_ax1])
                T_gather[v_ax0, v_ax1] = data[v_ax0, indices[v_ax0, v_ax1]]

    @T.prim_func(s_tir=True)
    def main(table: T.Buffer((100, 64), "float32"), ids: T.Buffer((32,), "int32"), T_take: T.Buffer((32, 64), "float32")):
        T.func_attr({"tirx.noalias": True})
        # with T.sblock("root"):
        for ax0, ax1 in T.grid(32, 64):
            with T.sblock("T_take"):
                v_ax0, v_ax1 = T.axis.remap("SS", [ax0, ax1])
                T.reads(table[T.min(T.max(0, ids[v_ax0]), 99), v_ax1], ids[v_ax0])
                T.writes(T_take[v_ax0, v_ax1])
                T_take[v_ax0, v_ax1] = table[T.min(T.max(0, ids[v_ax0]), 99), v_ax1]