from tvm.script import ir as I
from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2, 3), "float32")) -> R.Tensor((2, 3), "float32"):
        w = R.const([[1, 2, 3], [4, 5, 6]], "float32")
        bias = R.const([0.5, -1, 2])
        idx = R.const([2, 0, -1])
        mask = R.const([True, False, True])
        half = R.const([1.5, -0.25], "float16")
        empty = R.const([], "int64")
        y = R.add(R.multiply(x, w), bias)
        return y
