# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(a: R.Tensor((4, 1), dtype="float32"), b: R.Tensor((1, 8), dtype="float32"), c: R.Tensor((8,), dtype="float32")) -> R.Tensor((4, 8), dtype="float32"):
        with R.dataflow():
            lv: R.Tensor((4, 8), dtype="float32") = R.multiply(a, b)
            lv1: R.Tensor((4, 8), dtype="float32") = R.add(lv, c)
            lv2: R.Tensor((4, 8), dtype="float32") = R.divide(lv1, R.const(2.0, "float32"))
            gv: R.Tensor((4, 8), dtype="float32") = R.maximum(lv2, lv)
            R.output(gv)
        return gv