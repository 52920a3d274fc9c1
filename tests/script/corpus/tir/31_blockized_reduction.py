# from tvm.script import ir as I
# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis

@I.ir_module
class Module:
    @T.prim_func(s_tir=True)
    def main(A: T.Buffer((64, 64), "float32"), B: T.Buffer((64, 64), "float32"), C: T.Buffer((64, 64), "float32")):
        T.func_attr({"tirx.noalias": True})
        # with T.sblock("root"):
        for i_0, j_0, k_0 in T.grid(16, 16, 16):
            with T.sblock("C_o"):
                vi_o, vj_o, vk_o = T.axis.remap("SSR", [i_0, j_0, k_0])
                T.reads(A[vi_o * 4:vi_o * 4 + 4, vk_o * 4:vk_o * 4 + 4], B[vk_o * 4:vk_o * 4 + 4, vj_o * 4:vj_o * 4 + 4])
                T.writes(C[vi_o * 4:vi_o * 4 + 4, vj_o * 4:vj_o * 4 + 4])
                with T.init():
                    for i_1, j_1 in T.grid(4, 4):
                        with T.sblock("C_init"):
                            vi_i_init, vj_i_init = T.axis.remap("SS", [i_1, j_1])
                            T.reads()
                            T.writes(C[vi_o * 4 + vi_i_init, vj_o * 4 + vj_i_init])
                            C[vi_o * 4 + vi_i_init, vj_o * 4 + vj_i_init] = T.float32(0.0)
                for i_1, j_1, k_1 in T.grid(4, 4, 4):
                    with T.sblock("C"):
                        vi_i, vj_i, vk_i = T.axis.remap("SSR", [i_1, j_1, k_1])
                        T.reads(C[vi_o * 4 + vi_i, vj_o * 4 + vj_i], A[vi_o * 4 + vi_i, vk_o * 4 + vk_i], B[vk_o * 4 + vk_i, vj_o * 4 + vj_i])
                        T.writes(C[vi_o * 4 + vi_i, vj_o * 4 + vj_i])
                        C[vi_o * 4 + vi_i, vj_o * 4 + vj_i] = C[vi_o * 4 + vi_i, vj_o * 4 + vj_i] + A[vi_o * 4 + vi_i, vk_o * 4 + vk_i] * B[vk_o * 4 + vk_i, vj_o * 4 + vj_i]