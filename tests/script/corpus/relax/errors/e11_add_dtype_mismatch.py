# expect: 9:13: error: add: data types float32 and int32 of the operands do not match
from tvm.script import ir as I
from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((4,), "float32"), y: R.Tensor((4,), "int32")) -> R.Tensor((4,), "float32"):
        z = R.add(x, y)
        return z
