from tvm.script import ir as I
from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((8,), "float32")) -> R.Tensor((8,), "float32"):
        c = R.const(2.5)
        i = R.const(3)
        b = R.const(False)
        y = R.multiply(x, c)
        return y