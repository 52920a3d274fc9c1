# Constants that TVM prints as strings (numpy reads them): infinities and NaN, as masking code
# writes them (-inf before a softmax, a NaN check).
from tvm.script import ir as I
from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def masks(x: R.Tensor((8,), "float32")) -> R.Tensor((8,), "float32"):
        big = R.greater(x, R.const("inf", "float32"))
        low = R.maximum(x, R.const("-inf", "float32"))
        nan = R.const("nan", "float32")
        one = R.const("1.5", "float32")
        y = R.where(big, R.const(0.0, "float32"), low)
        return y
