# from typing import TypeVar
# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    n = TypeVar("n")
    @R.function
    def main(x: R.Tensor((n, 4), dtype="float32")) -> R.Tensor(("n * 4",), dtype="float32"):
        with R.dataflow():
            gv: R.Tensor((n * 4,), dtype="float32") = R.reshape(x, R.shape([n * 4]))
            R.output(gv)
        return gv