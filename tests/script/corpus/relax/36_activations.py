# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((4, 10), dtype="float32")) -> R.Tensor((4, 10), dtype="float32"):
        with R.dataflow():
            lv: R.Tensor((4, 10), dtype="float32") = R.nn.gelu(x)
            lv1: R.Tensor((4, 10), dtype="float32") = R.nn.silu(lv)
            gv: R.Tensor((4, 10), dtype="float32") = R.nn.log_softmax(lv1, axis=1)
            R.output(gv)
        return gv