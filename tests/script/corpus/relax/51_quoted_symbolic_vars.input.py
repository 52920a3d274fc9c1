from tvm.script import ir as I
from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor(("n", 784), "float32"), w: R.Tensor((784, "m"), "float32")) -> R.Tensor(("n", "m"), "float32"):
        n = T.int64()
        m = T.int64()
        with R.dataflow():
            lv = R.matmul(x, w)
            R.output(lv)
        return lv