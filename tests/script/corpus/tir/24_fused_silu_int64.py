# from tvm.script import ir as I
# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis

@I.ir_module
class Module:
    @T.prim_func(private=True, s_tir=True)
    def fused_add_silu(a: T.Buffer((T.int64(2), T.int64(1024)), "float32"), b: T.Buffer((T.int64(2), T.int64(1024)), "float32"), compute_intermediate: T.Buffer((T.int64(2), T.int64(1024)), "float32")):
        T.func_attr({"tirx.noalias": True})
        # with T.sblock("root"):
        T_add_intermediate = T.sblock_alloc_buffer((T.int64(2), T.int64(1024)))
        for ax0, ax1 in T.grid(T.int64(2), T.int64(1024)):
            with T.sblock("T_add"):
                v_ax0, v_ax1 = T.axis.remap("SS", [ax0, ax1])
                T.reads(a[v_ax0, v_ax1], b[v_ax0, v_ax1])
                T.writes(T_add_intermediate[v_ax0, v_ax1])
                T_add_intermediate[v_ax0, v_ax1] = a[v_ax0, v_ax1] + b[v_ax0, v_ax1]
        for i0, i1 in T.grid(T.int64(2), T.int64(1024)):
            with T.sblock("compute"):
                v_i0, v_i1 = T.axis.remap("SS", [i0, i1])
                T.reads(T_add_intermediate[v_i0, v_i1])
                T.writes(compute_intermediate[v_i0, v_i1])
                compute_intermediate[v_i0, v_i1] = T_add_intermediate[v_i0, v_i1] * T.sigmoid(T_add_intermediate[v_i0, v_i1])

    @T.prim_func(private=True, s_tir=True)
    def fused_multiply_add(x: T.Buffer((T.int64(2), T.int64(1024)), "float32"), w: T.Buffer((T.int64(1024),), "float32"), y: T.Buffer((T.int64(2), T.int64(1024)), "float32"), T_add_intermediate: T.Buffer((T.int64(2), T.int64(1024)), "float32")):
        T.func_attr({"tirx.noalias": True})
        # with T.sblock("root"):
        T_multiply_intermediate = T.sblock_alloc_buffer((T.int64(2), T.int64(1024)))
        for ax0, ax1 in T.grid(T.int64(2), T.int64(1024)):
            with T.sblock("T_multiply"):
                v_ax0, v_ax1 = T.axis.remap("SS", [ax0, ax1])
                T.reads(x[v_ax0, v_ax1], w[v_ax1])
                T.writes(T_multiply_intermediate[v_ax0, v_ax1])
                T_multiply_intermediate[v_ax0, v_ax1] = x[v_ax0, v_ax1] * w[v_ax1]
        for ax0, ax1 in T.grid(T.int64(2), T.int64(1024)):
            with T.sblock("T_add"):
                v_ax0, v_ax1 = T.axis.remap("SS", [ax0, ax1])
                T.reads(T_multiply_intermediate[v_ax0, v_ax1], y[v_ax0, v_ax1])
                T.writes(T_add_intermediate[v_ax0, v_ax1])
                T_add_intermediate[v_ax0, v_ax1] = T_multiply_intermediate[v_ax0, v_ax1] + y[v_ax0, v_ax1]