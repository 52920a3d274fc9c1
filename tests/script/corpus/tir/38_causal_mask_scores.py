# from tvm.script import ir as I
# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis

@I.ir_module
class Module:
    @T.prim_func(s_tir=True)
    def causal_mask_fp16(scores: T.Buffer((4, 64, 64), "float16"), masked: T.Buffer((4, 64, 64), "float16")):
        T.func_attr({"tirx.noalias": True})
        # with T.sblock("root"):
        for h, i, j in T.grid(4, 64, 64):
            with T.sblock("mask"):
                v_h, v_i, v_j = T.axis.remap("SSS", [h, i, j])
                T.reads(scores[v_h, v_i, v_j])
                T.writes(masked[v_h, v_i, v_j])
                masked[v_h, v_i, v_j] = T.if_then_else(v_j <= v_i, scores[v_h, v_i, v_j], T.float16(-65504.0))

    @T.prim_func(s_tir=True)
    def main(q: T.Buffer((8, 128, 64), "float32"), k: T.Buffer((8, 128, 64), "float32"), scores: T.Buffer((8, 128, 128), "float32")):
        T.func_attr({"tirx.noalias": True})
        # with T.sblock("root"):
        qk = T.sblock_alloc_buffer((8, 128, 128))
        for h, i, j, d in T.grid(8, 128, 128, 64):
            with T.sblock("qk"):
                v_h, v_i, v_j, v_d = T.axis.remap("SSSR", [h, i, j, d])
                T.reads(q[v_h, v_i, v_d], k[v_h, v_j, v_d])
                T.writes(qk[v_h, v_i, v_j])
                with T.init():
                    qk[v_h, v_i, v_j] = T.float32(0.0)
                qk[v_h, v_i, v_j] = qk[v_h, v_i, v_j] + q[v_h, v_i, v_d] * k[v_h, v_j, v_d]
        for h, i, j in T.grid(8, 128, 128):
            with T.sblock("scale_mask"):
                v_h, v_i, v_j = T.axis.remap("SSS", [h, i, j])
                T.reads(qk[v_h, v_i, v_j])
                T.writes(scores[v_h, v_i, v_j])
                scores[v_h, v_i, v_j] = T.Select(v_j <= v_i, qk[v_h, v_i, v_j] * T.float32(0.125), T.float32("-inf"))