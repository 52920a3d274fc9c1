from tvm.script import ir as I
from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function(pure=False)
    def log_twice(x: R.Tensor((4,), "float32")) -> R.Tuple:
        first = R.print(x, format="x = {}")
        second = R.print(format="done")
        pair = (first, second)
        return second

    @R.function(pure=False)
    def main(x: R.Tensor((4,), "float32")) -> R.Tensor((4,), "float32"):
        cls = Module
        status = cls.log_twice(x)
        return x
