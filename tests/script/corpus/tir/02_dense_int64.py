# from tvm.script import ir as I
# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis

@I.ir_module
class Module:
    @T.prim_func(private=True, s_tir=True)
    def dense(x: T.Buffer((T.int64(4), T.int64(256)), "float32"), weight: T.Buffer((T.int64(512), T.int64(256)), "float32"), T_matmul_NT: T.Buffer((T.int64(4), T.int64(512)), "float32")):
        T.func_attr({"layout_free_buffers": [1], "tirx.noalias": True})
        # with T.sblock("root"):
        for i0, i1, k in T.grid(T.int64(4), T.int64(512), T.int64(256)):
            with T.sblock("T_matmul_NT"):
                v_i0, v_i1, v_k = T.axis.remap("SSR", [i0, i1, k])
                T.reads(x[v_i0, v_k], weight[v_i1, v_k])
                T.writes(T_matmul_NT[v_i0, v_i1])
                with T.init():
                    T_matmul_NT[v_i0, v_i1] = T.float32(0.0)
                T_matmul_NT[v_i0, v_i1] = T_matmul_NT[v_i0, v_i1] + x[v_i0, v_k] * weight[v_i1, v_k]