# from tvm.script import ir as I
# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis

@I.ir_module
class Module:
    @T.prim_func(s_tir=True)
    def main(A: T.Buffer((128, 128), "float16"), B: T.Buffer((128, 128), "float16"), C: T.Buffer((128, 128), "float32")):
        T.func_attr({"tirx.noalias": True})
        # with T.sblock("root"):
        for i_0, j_0 in T.grid(8, 8):
            with T.sblock("zero_tile"):
                vi_o, vj_o = T.axis.remap("SS", [i_0, j_0])
                T.reads()
                T.writes(C[vi_o * 16:vi_o * 16 + 16, vj_o * 16:vj_o * 16 + 16])
                C_tile = T.match_buffer(C[vi_o * 16:vi_o * 16 + 16, vj_o * 16:vj_o * 16 + 16], (16, 16), strides=(128, 1), offset_factor=1)
                T.call_extern("int32", "tile_fill_zero_16x16", C_tile.data, C_tile.elem_offset)
        for i_0, j_0, k_0 in T.grid(8, 8, 8):
            with T.sblock("gemm_tile"):
                vi_o, vj_o, vk_o = T.axis.remap("SSR", [i_0, j_0, k_0])
                T.reads(C[vi_o * 16:vi_o * 16 + 16, vj_o * 16:vj_o * 16 + 16], A[vi_o * 16:vi_o * 16 + 16, vk_o * 16:vk_o * 16 + 16], B[vk_o * 16:vk_o * 16 + 16, vj_o * 16:vj_o * 16 + 16])
                T.writes(C[vi_o * 16:vi_o * 16 + 16, vj_o * 16:vj_o * 16 + 16])
                A_tile = T.match_buffer(A[vi_o * 16:vi_o * 16 + 16, vk_o * 16:vk_o * 16 + 16], (16, 16), "float16", strides=(128, 1), offset_factor=1)
                B_tile = T.match_buffer(B[vk_o * 16:vk_o * 16 + 16, vj_o * 16:vj_o * 16 + 16], (16, 16), "float16", strides=(128, 1), offset_factor=1)
                C_tile = T.match_buffer(C[vi_o * 16:vi_o * 16 + 16, vj_o * 16:vj_o * 16 + 16], (16, 16), strides=(128, 1), offset_factor=1)
                T.call_extern("int32", "tile_mma_16x16x16", C_tile.data, C_tile.elem_offset, A_tile.data, A_tile.elem_offset, B_tile.data, B_tile.elem_offset)
        for i in range(128):
            with T.sblock("row_scale"):
                vi = T.axis.spatial(128, i)
                T.reads(C[vi, 0:128])
                T.writes(C[vi, 0:128])
                row = T.match_buffer(C[vi, 0:128], (128,))
                T.call_extern("int32", "scale_row_inplace", row.data, 128)