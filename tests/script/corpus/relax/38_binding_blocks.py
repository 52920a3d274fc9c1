# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((4,), dtype="float32")) -> R.Tensor((4,), dtype="float32"):
        a: R.Tensor((4,), dtype="float32") = R.add(x, x)
        with R.dataflow():
            lv: R.Tensor((4,), dtype="float32") = R.multiply(a, a)
            b: R.Tensor((4,), dtype="float32") = R.nn.relu(lv)
            R.output(b)
        c: R.Tensor((4,), dtype="float32") = R.subtract(b, a)
        with R.dataflow():
            R.output()
        return c