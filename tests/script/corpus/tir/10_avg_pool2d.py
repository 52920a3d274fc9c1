# from tvm.script import ir as I
# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis

@I.ir_module
class Module:
    @T.prim_func(s_tir=True)
    def avg_pool2d(data: T.Buffer((2, 32, 32, 32), "float32"), pool_avg: T.Buffer((2, 32, 16, 16), "float32")):
        T.func_attr({"tirx.noalias": True})
        # with T.sblock("root"):
        pool_sum = T.sblock_alloc_buffer((2, 32, 16, 16))
        for n, c, h, w, rh, rw in T.grid(2, 32, 16, 16, 2, 2):
            with T.sblock("pool_sum"):
                v_n, v_c, v_h, v_w, v_rh, v_rw = T.axis.remap("SSSSRR", [n, c, h, w, rh, rw])
                T.reads(data[v_n, v_c, v_h * 2 + v_rh, v_w * 2 + v_rw])
                T.writes(pool_sum[v_n, v_c, v_h, v_w])
                with T.init():
                    pool_sum[v_n, v_c, v_h, v_w] = T.float32(0.0)
                pool_sum[v_n, v_c, v_h, v_w] = pool_sum[v_n, v_c, v_h, v_w] + data[v_n, v_c, v_h * 2 + v_rh, v_w * 2 + v_rw]
        for n, c, h, w in T.grid(2, 32, 16, 16):
            with T.sblock("pool_avg"):
                v_n, v_c, v_h, v_w = T.axis.remap("SSSS", [n, c, h, w])
                T.reads(pool_sum[v_n, v_c, v_h, v_w])
                T.writes(pool_avg[v_n, v_c, v_h, v_w])
                T.sblock_attr({"schedule_rule": "meta_schedule.pool_avg"})
                pool_avg[v_n, v_c, v_h, v_w] = pool_sum[v_n, v_c, v_h, v_w] * T.float32(0.25)