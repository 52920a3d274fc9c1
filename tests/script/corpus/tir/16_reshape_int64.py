# from tvm.script import ir as I
# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis

@I.ir_module
class Module:
    @T.prim_func(private=True, s_tir=True)
    def reshape(A: T.Buffer((T.int64(2), T.int64(3), T.int64(8), T.int64(16)), "float32"), T_reshape: T.Buffer((T.int64(6), T.int64(128)), "float32")):
        T.func_attr({"op_pattern": 2, "tirx.noalias": True})
        # with T.sblock("root"):
        for ax0, ax1 in T.grid(T.int64(6), T.int64(128)):
            with T.sblock("T_reshape"):
                v_ax0, v_ax1 = T.axis.remap("SS", [ax0, ax1])
                T.reads(A[v_ax0 // T.int64(3), v_ax0 % T.int64(3), v_ax1 // T.int64(16), v_ax1 % T.int64(16)])
                T.writes(T_reshape[v_ax0, v_ax1])
                T_reshape[v_ax0, v_ax1] = A[v_ax0 // T.int64(3), v_ax0 % T.int64(3), v_ax1 // T.int64(16), v_ax1 % T.int64(16)]

    @T.prim_func(private=True, s_tir=True)
    def space_to_depth(A: T.Buffer((T.int64(1), T.int64(4), T.int64(8), T.int64(8)), "float32"), B: T.Buffer((T.int64(1), T.int64(16), T.int64(4), T.int64(4)), "float32")):
        T.func_attr({"op_pattern": 2, "tirx.noalias": True})
        # with T.sblock("root"):
        for n, c, h, w in T.grid(T.int64(1), T.int64(16), T.int64(4), T.int64(4)):
            with T.sblock("space_to_depth"):
                v_n, v_c, v_h, v_w = T.axis.remap("SSSS", [n, c, h, w])
                T.reads(A[v_n, v_c % T.int64(4), v_h * T.int64(2) + v_c // T.int64(8), v_w * T.int64(2) + v_c % T.int64(8) // T.int64(4)])
                T.writes(B[v_n, v_c, v_h, v_w])
                B[v_n, v_c, v_h, v_w] = A[v_n, v_c % T.int64(4), v_h * T.int64(2) + v_c // T.int64(8), v_w * T.int64(2) + v_c % T.int64(8) // T.int64(4)]