# expect: 13:16: error: 'lv' is a dataflow variable and is not visible outside its R.dataflow() block; list it in R.output(...) to use it here
from tvm.script import ir as I
from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((4,), "float32")) -> R.Tensor((4,), "float32"):
        with R.dataflow():
            lv = R.add(x, x)
            gv = R.multiply(lv, x)
            R.output(gv)
        return lv
