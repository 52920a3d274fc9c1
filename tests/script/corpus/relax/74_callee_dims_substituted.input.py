from tvm.script import ir as I
from tvm.script import relax as R
from tvm.script import tirx as T

@I.ir_module
class Module:
    @R.function(private=True)
    def double_rows(A: R.Tensor(("m", "n"), "float32")) -> R.Tensor(("m * 2", "n"), "float32"):
        m = T.int64()
        n = T.int64()
        return R.zeros(R.shape([m * 2, n]), dtype="float32")

    @R.function
    def main(x: R.Tensor(("k", 4), "float32"), w: R.Tensor(dtype="float32", ndim=2)):
        k = T.int64()
        cls = Module
        y: R.Tensor((k * 2, 4), "float32") = cls.double_rows(x)
        z: R.Tensor(dtype="float32", ndim=2) = cls.double_rows(w)
        return (y, z)
