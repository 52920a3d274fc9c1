# from tvm.script import ir as I
# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis
# from tvm.script import relax as R

@I.ir_module
class Module:
    @T.prim_func(private=True)
    def split_half(x: T.Buffer((8,), "float32"), lo: T.Buffer((4,), "float32"), hi: T.Buffer((4,), "float32")):
        for i in range(4):
            lo[i] = x[i]
            hi[i] = x[i + 4]

    @R.function
    def main(x: R.Tensor((8,), dtype="float32")) -> R.Tensor((4,), dtype="float32"):
        cls = Module
        with R.dataflow():
            lv = R.call_tir(cls.split_half, (x,), out_ty=[R.Tensor((4,), dtype="float32"), R.Tensor((4,), dtype="float32")])
            lv1: R.Tensor((4,), dtype="float32") = lv[0]
            lv2: R.Tensor((4,), dtype="float32") = lv[1]
            gv: R.Tensor((4,), dtype="float32") = R.add(lv1, lv2)
            R.output(gv)
        return gv