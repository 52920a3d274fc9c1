# from typing import TypeVar
# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    n = TypeVar("n")
    @R.function
    def main(x: R.Tensor((n, 784), dtype="float32"), w: R.Tensor((784, 10), dtype="float32")) -> R.Tensor((n, 10), dtype="float32"):
        with R.dataflow():
            lv: R.Tensor((n, 10), dtype="float32") = R.matmul(x, w, out_dtype="void")
            gv: R.Tensor((n, 10), dtype="float32") = R.nn.relu(lv)
            R.output(gv)
        return gv