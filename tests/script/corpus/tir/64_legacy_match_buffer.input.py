# Legacy input form: handle parameters bound with T.match_buffer, list shapes,
# T.serial(0, n) loops, no T.reads/T.writes, untyped float literals.
# from tvm.script import ir as I
# from tvm.script import tirx as T


@I.ir_module
class LegacyGemm:
    @T.prim_func(s_tir=True)
    def main(a: T.handle, b: T.handle, c: T.handle) -> None:
        # function attr dict
        T.func_attr({"tirx.noalias": True})
        A = T.match_buffer(a, [96, 64], dtype="float32")
        B = T.match_buffer(b, [80, 64], elem_offset=0, align=64, offset_factor=1)
        C = T.match_buffer(c, (96, 80), "float32")
        # body
        for i in T.serial(0, 96):
            for j in T.serial(0, 80):
                for k in T.serial(0, 64):
                    with T.sblock("update"):
                        vi, vj, vk = T.axis.remap("SSR", [i, j, k])
                        with T.init():
                            C[vi, vj] = 0.0
                        C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vj, vk]
