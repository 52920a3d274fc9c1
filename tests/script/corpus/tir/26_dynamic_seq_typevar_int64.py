# from typing import TypeVar
# from tvm.script import ir as I
# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis

@I.ir_module
class Module:
    seq_len = TypeVar("seq_len")
    @T.prim_func(private=True, s_tir=True)
    def repeat_kv(kv: T.Buffer((seq_len, T.int64(8), T.int64(64)), "float16"), out: T.Buffer(("seq_len * T.int64(2)", T.int64(8), T.int64(64)), "float16")):
        T.func_attr({"tirx.noalias": True})
        # with T.sblock("root"):
        for ax0, ax1, ax2 in T.grid(seq_len * T.int64(2), T.int64(8), T.int64(64)):
            with T.sblock("repeat"):
                v_ax0, v_ax1, v_ax2 = T.axis.remap("SSS", [ax0, ax1, ax2])
                T.reads(kv[v_ax0 // T.int64(2), v_ax1, v_ax2])
                T.writes(out[v_ax0, v_ax1, v_ax2])
                out[v_ax0, v_ax1, v_ax2] = kv[v_ax0 // T.int64(2), v_ax1, v_ax2]