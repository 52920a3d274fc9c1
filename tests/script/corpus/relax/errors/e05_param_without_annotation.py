# expect: 8:14: error: parameter 'x' needs a type annotation, e.g. R.Tensor((16,), dtype="float32")
from tvm.script import ir as I
from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x) -> R.Tensor((4,), "float32"):
        return x
