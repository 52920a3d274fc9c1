# from tvm.script import ir as I
# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis

@I.ir_module
class Module:
    @T.prim_func(s_tir=True)
    def invert(img: T.Buffer((224, 224, 3), "uint8"), out: T.Buffer((224, 224, 3), "uint8")):
        T.func_attr({"tirx.noalias": True})
        # with T.sblock("root"):
        for h, w, c in T.grid(224, 224, 3):
            with T.sblock("invert"):
                v_h, v_w, v_c = T.axis.remap("SSS", [h, w, c])
                T.reads(img[v_h, v_w, v_c])
                T.writes(out[v_h, v_w, v_c])
                out[v_h, v_w, v_c] = T.uint8(255) - img[v_h, v_w, v_c]

    @T.prim_func(s_tir=True)
    def main(img: T.Buffer((224, 224, 3), "uint8"), mean: T.Buffer((3,), "float32"), std: T.Buffer((3,), "float32"), out: T.Buffer((1, 3, 224, 224), "float32")):
        T.func_attr({"tirx.noalias": True})
        # with T.sblock("root"):
        for n, c, h, w in T.grid(1, 3, 224, 224):
            with T.sblock("normalize"):
                v_n, v_c, v_h, v_w = T.axis.remap("SSSS", [n, c, h, w])
                T.reads(img[v_h, v_w, v_c], mean[v_c], std[v_c])
                T.writes(out[v_n, v_c, v_h, v_w])
                out[v_n, v_c, v_h, v_w] = (T.Cast("float32", img[v_h, v_w, v_c]) * T.float32(0.0039215686274509803) - mean[v_c]) / std[v_c]