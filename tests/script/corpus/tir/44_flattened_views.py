# from tvm.script import ir as I
# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis

@I.ir_module
class Module:
    @T.prim_func(s_tir=True)
    def flip_sign_bits(A: T.Buffer((256,), "float32"), B: T.Buffer((256,), "float32")):
        T.func_attr({"tirx.noalias": True})
        A_bits = A.view("uint32")
        B_bits = B.view("uint32")
        for i in range(256):
            B_bits[i] = T.bitwise_xor(A_bits[i], T.uint32(2147483648))

    @T.prim_func(s_tir=True)
    def main(A: T.Buffer((64, 64), "float32"), B: T.Buffer((64, 64), "float32")):
        T.func_attr({"tirx.noalias": True})
        A_1 = A.view(4096)
        B_1 = B.view(4096)
        for i in T.parallel(64):
            row = T.alloc_buffer((64,))
            for j in range(64):
                row[j] = A_1[i * 64 + j] * T.float32(2.0)
            for j in range(64):
                B_1[i * 64 + j] = row[j] + T.float32(1.0)