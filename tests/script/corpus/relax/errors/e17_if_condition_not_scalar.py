# expect: 9:12: error: the condition of a Relax if must be a scalar (a 0-d tensor or a prim value), got R.Tensor((4,), dtype="bool")
from tvm.script import ir as I
from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(c: R.Tensor((4,), "bool"), x: R.Tensor((4,), "float32")) -> R.Tensor((4,), "float32"):
        if c:
            y = R.add(x, x)
        else:
            y = x
        return y
