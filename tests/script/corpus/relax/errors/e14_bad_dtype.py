# expect: 8:38: error: unknown dtype 'flaot32'
from tvm.script import ir as I
from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((4,), dtype="flaot32")) -> R.Tensor((4,), "float32"):
        return x
