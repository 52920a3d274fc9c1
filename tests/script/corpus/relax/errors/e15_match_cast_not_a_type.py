# expect: 9:29: error: R.match_cast expects a type as its second argument, e.g. R.Tensor((n,), "float32")
from tvm.script import ir as I
from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor(ndim=1)) -> R.Tensor(ndim=1):
        y = R.match_cast(x, 4)
        return y
