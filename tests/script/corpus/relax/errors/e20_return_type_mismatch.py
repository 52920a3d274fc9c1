# expect: 10:16: error: the function returns R.Tensor((4,), dtype="float32"), which does not fit its declared return type R.Tensor((3,), dtype="float32")
from tvm.script import ir as I
from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((4,), "float32")) -> R.Tensor((3,), "float32"):
        y = R.add(x, x)
        return y
