# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((16,), dtype="float32")) -> R.Tensor((16,), dtype="float32"):
        with R.dataflow():
            lv: R.Tensor((16,), dtype="float32") = R.abs(x)
            lv1: R.Tensor((16,), dtype="float32") = R.log(lv)
            lv2: R.Tensor((16,), dtype="float32") = R.sqrt(lv)
            lv3: R.Tensor((16,), dtype="float32") = R.rsqrt(lv2)
            lv4: R.Tensor((16,), dtype="float32") = R.tanh(lv1)
            lv5: R.Tensor((16,), dtype="float32") = R.sigmoid(lv3)
            lv6: R.Tensor((16,), dtype="float32") = R.negative(lv4)
            gv: R.Tensor((16,), dtype="float32") = R.power(lv5, lv6)
            R.output(gv)
        return gv