# expect: 9:13: error: unknown function 'R.fancy_op'
from tvm.script import ir as I
from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((4,), "float32")) -> R.Tensor((4,), "float32"):
        y = R.fancy_op(x)
        return y
