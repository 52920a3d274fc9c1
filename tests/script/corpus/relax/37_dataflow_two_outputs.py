# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((3, 3), dtype="float32")) -> R.Tensor((3, 3), dtype="float32"):
        with R.dataflow():
            lv: R.Tensor((3, 3), dtype="float32") = R.exp(x)
            a: R.Tensor((3, 3), dtype="float32") = R.add(lv, x)
            b: R.Tensor((3, 3), dtype="float32") = R.multiply(lv, x)
            R.output(a, b)
        c: R.Tensor((3, 3), dtype="float32") = R.subtract(a, b)
        return c