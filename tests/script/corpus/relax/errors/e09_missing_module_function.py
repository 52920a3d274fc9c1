# expect: 10:28: error: the module has no function 'nope'
from tvm.script import ir as I
from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((4,), "float32")) -> R.Tensor((4,), "float32"):
        cls = Module
        y = R.call_tir(cls.nope, (x,), out_ty=R.Tensor((4,), "float32"))
        return y
