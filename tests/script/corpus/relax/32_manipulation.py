# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2, 3), dtype="float32"), y: R.Tensor((2, 3), dtype="float32")) -> R.Tensor((12,), dtype="float32"):
        with R.dataflow():
            lv: R.Tensor((4, 3), dtype="float32") = R.concat((x, y), axis=0)
            lv1: R.Tensor((1, 4, 3), dtype="float32") = R.expand_dims(lv, axis=[0])
            lv2: R.Tensor((4, 3), dtype="float32") = R.squeeze(lv1, axis=[0])
            gv: R.Tensor((12,), dtype="float32") = R.flatten(lv2)
            R.output(gv)
        return gv