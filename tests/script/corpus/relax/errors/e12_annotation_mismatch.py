# expect: 9:12: error: the annotation R.Tensor((3,), dtype="float32") does not fit the value's type R.Tensor((4,), dtype="float32")
from tvm.script import ir as I
from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((4,), "float32")) -> R.Tensor((4,), "float32"):
        y: R.Tensor((3,), "float32") = R.add(x, x)
        return x
