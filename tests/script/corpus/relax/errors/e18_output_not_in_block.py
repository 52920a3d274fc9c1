# expect: 11:26: error: R.output: 'x' is not bound in this R.dataflow() block
from tvm.script import ir as I
from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((4,), "float32")) -> R.Tensor((4,), "float32"):
        with R.dataflow():
            gv = R.add(x, x)
            R.output(gv, x)
        return gv
