# expect: 10:18: error: matmul: dimension 784 of the first operand does not match dimension 128 of the second
from tvm.script import ir as I
from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor(("n", 784), "float32"), w: R.Tensor((128, 10), "float32")) -> R.Tensor(("n", 10), "float32"):
        with R.dataflow():
            lv = R.matmul(x, w)
            R.output(lv)
        return lv
