# from tvm.script import ir as I
# from tvm.script import tirx as T

# The form older Relax lowering printed: handle parameters, a body-level
# int64 shape variable and match_buffer (printed today as a TypeVar signature).
@I.ir_module
class Module:
    @T.prim_func(private=True, s_tir=True)
    def add(var_x: T.handle, var_y: T.handle, var_T_add: T.handle):
        T.func_attr({"tirx.noalias": True})
        n = T.int64()
        x = T.match_buffer(var_x, (T.int64(1), n, T.int64(128)), "float16")
        y = T.match_buffer(var_y, (T.int64(1), n, T.int64(128)), "float16")
        T_add = T.match_buffer(var_T_add, (T.int64(1), n, T.int64(128)), "float16")
        # with T.sblock("root"):
        for ax0, ax1, ax2 in T.grid(T.int64(1), n, T.int64(128)):
            with T.sblock("T_add"):
                v_ax0, v_ax1, v_ax2 = T.axis.remap("SSS", [ax0, ax1, ax2])
                T.reads(x[v_ax0, v_ax1, v_ax2], y[v_ax0, v_ax1, v_ax2])
                T.writes(T_add[v_ax0, v_ax1, v_ax2])
                T_add[v_ax0, v_ax1, v_ax2] = x[v_ax0, v_ax1, v_ax2] + y[v_ax0, v_ax1, v_ax2]

    @T.prim_func(private=True, s_tir=True)
    def sum_rows(var_A: T.handle, var_out: T.handle):
        T.func_attr({"tirx.noalias": True})
        m = T.int64()
        A = T.match_buffer(var_A, (m, T.int64(64)))
        out = T.match_buffer(var_out, (m,))
        for i, k in T.grid(m, T.int64(64)):
            with T.sblock("sum"):
                vi, vk = T.axis.remap("SR", [i, k])
                T.reads(A[vi, vk])
                T.writes(out[vi])
                with T.init():
                    out[vi] = T.float32(0)
                out[vi] = out[vi] + A[vi, vk]
