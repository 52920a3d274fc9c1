from tvm.script import ir as I
from tvm.script import relax as R
from tvm.script import tirx as T

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((4,), "float32")):
        n = TypeVar("n")
        @R.function
        def from_param(y: R.Tensor((n,), "float32")) -> R.Tensor((n,), "float32"):
            z = R.ones(R.shape([n]), "float32")
            return z

        @R.function
        def from_match_cast(y: R.Tensor(ndim=1, dtype="float32")):
            k = T.int64()
            y2 = R.match_cast(y, R.Tensor((k,), "float32"))
            return y2

        a = from_param(x)
        b: R.Tensor(dtype="float32", ndim=1) = from_match_cast(x)
        return (a, b)

    @R.function
    def empty() -> R.Tuple:
        with R.dataflow():
            gv: R.Tuple = R.tuple()
            R.output(gv)
        return gv
