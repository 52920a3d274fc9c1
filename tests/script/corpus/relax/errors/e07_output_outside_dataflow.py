# expect: 10:9: error: R.output(...) is only allowed as the last statement of an R.dataflow() block
from tvm.script import ir as I
from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((4,), "float32")) -> R.Tensor((4,), "float32"):
        y = R.add(x, x)
        R.output(y)
        return y
