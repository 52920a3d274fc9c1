# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((8,), dtype="float32"), y: R.Tensor((8,), dtype="float32")) -> R.Tensor((8,), dtype="float32"):
        with R.dataflow():
            lv: R.Tensor((8,), dtype="bool") = R.less(x, y)
            lv1: R.Tensor((8,), dtype="bool") = R.greater(x, R.const(0.0, "float32"))
            lv2: R.Tensor((8,), dtype="bool") = R.equal(x, y)
            lv3: R.Tensor((8,), dtype="float32") = R.where(lv, x, y)
            lv4: R.Tensor((8,), dtype="float32") = R.where(lv1, lv3, R.const(0.0, "float32"))
            gv: R.Tensor((8,), dtype="float32") = R.where(lv2, lv4, x)
            R.output(gv)
        return gv