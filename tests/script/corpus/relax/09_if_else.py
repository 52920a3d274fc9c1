# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(cond: R.Tensor((), dtype="bool"), x: R.Tensor((4,), dtype="float32")) -> R.Tensor((4,), dtype="float32"):
        if cond:
            y: R.Tensor((4,), dtype="float32") = R.add(x, x)
        else:
            y: R.Tensor((4,), dtype="float32") = R.multiply(x, x)
        return y