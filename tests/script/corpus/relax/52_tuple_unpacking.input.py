from tvm.script import ir as I
from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(t: R.Tuple(R.Tensor((2,), "float32"), R.Tensor((2,), "float32"))) -> R.Tensor((2,), "float32"):
        a, b = t
        c = R.add(a, b)
        return c