# expect: 18:17: error: a call to the impure function 'cls.copy' is not allowed inside R.dataflow(); move it out of the block
# expect: 21:12: error: the annotation R.Tensor((5,), dtype="float32") does not fit the value's type R.Tensor((4,), dtype="float32")
from tvm.script import ir as I
from tvm.script import relax as R
from tvm.script import tirx as T

@I.ir_module
class Module:
    @T.prim_func
    def copy(A: T.Buffer((4,), "float32"), B: T.Buffer((4,), "float32")):
        for i in range(4):
            B[i] = A[i]

    @R.function
    def main(x: R.Tensor((4,), "float32"), y: R.Tensor((4,), "float32")) -> R.Tensor((4,), "float32"):
        cls = Module
        with R.dataflow():
            _ = cls.copy(x, y)
            z = R.add(x, y)
            R.output(z)
        w: R.Tensor((5,), "float32") = R.memory.view(z, R.shape([4]))
        return z
