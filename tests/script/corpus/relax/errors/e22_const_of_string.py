# expect: 9:21: error: R.const expects a number, a bool or a list of them, got a string
from tvm.script import ir as I
from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((4,), "float32")) -> R.Tensor((4,), "float32"):
        y = R.const("a")
        return x
