# from tvm.script import ir as I
# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis

@I.ir_module
class Module:
    @T.prim_func(private=True, s_tir=True)
    def fused_decode_matmul(packed: T.Buffer((T.int64(512), T.int64(64)), "uint32"), scales: T.Buffer((T.int64(512), T.int64(16)), "float16"), x: T.Buffer((T.int64(1), T.int64(1), T.int64(512)), "float16"), out: T.Buffer((T.int64(1), T.int64(1), T.int64(512)), "float16")):
        T.func_attr({"tirx.noalias": True})
        # with T.sblock("root"):
        decoded = T.sblock_alloc_buffer((T.int64(512), T.int64(512)), "float16")
        for i, j in T.grid(T.int64(512), T.int64(512)):
            with T.sblock("decode"):
                v_i, v_j = T.axis.remap("SS", [i, j])
                T.reads(packed[v_i, v_j // T.int64(8)], scales[v_i, v_j // T.int64(32)])
                T.writes(decoded[v_i, v_j])
                decoded[v_i, v_j] = (T.Cast("float16", T.bitwise_and(T.shift_right(packed[v_i, v_j // T.int64(8)], T.Cast("uint32", v_j % T.int64(8)) * T.uint32(4)), T.uint32(15))) - T.float16(7.0)) * scales[v_i, v_j // T.int64(32)]
        for i0, i1, i2, k in T.grid(T.int64(1), T.int64(1), T.int64(512), T.int64(512)):
            with T.sblock("matmul"):
                v_i0, v_i1, v_i2, v_k = T.axis.remap("SSSR", [i0, i1, i2, k])
                T.reads(x[v_i0, v_i1, v_k], decoded[v_i2, v_k])
                T.writes(out[v_i0, v_i1, v_i2])
                with T.init():
                    out[v_i0, v_i1, v_i2] = T.float16(0.0)
                out[v_i0, v_i1, v_i2] = out[v_i0, v_i1, v_i2] + x[v_i0, v_i1, v_k] * decoded[v_i2, v_k]