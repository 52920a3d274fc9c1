# expect: 9:30: error: a Relax `with` takes no `as` target
from tvm.script import ir as I
from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((4,), "float32")) -> R.Tensor((4,), "float32"):
        with R.dataflow() as frame:
            gv = R.add(x, x)
            R.output(gv)
        return gv
