# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((4, 8, 16), dtype="float32")) -> R.Tensor((4, 1, 1), dtype="float32"):
        with R.dataflow():
            lv: R.Tensor((4, 16), dtype="float32") = R.sum(x, axis=[1], keepdims=False)
            lv1: R.Tensor((4, 1), dtype="float32") = R.mean(lv, axis=[1], keepdims=True)
            lv2: R.Tensor((4, 1, 1), dtype="float32") = R.max(x, axis=[1, 2], keepdims=True)
            lv3: R.Tensor((4, 1, 1), dtype="float32") = R.min(x, axis=[-1, -2], keepdims=True)
            gv: R.Tensor((4, 1, 1), dtype="float32") = R.subtract(lv2, lv3)
            R.output(gv)
        return gv