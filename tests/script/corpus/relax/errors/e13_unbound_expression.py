# expect: 9:9: error: a non-void Relax expression must be bound to a variable; this one has type R.Tensor((4,), dtype="float32")
from tvm.script import ir as I
from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((4,), "float32")) -> R.Tensor((4,), "float32"):
        R.add(x, x)
        return x
