from tvm.script import ir as I
from tvm.script import relax as R
from tvm.script import tirx as T

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor("float32", ndim=2), w: R.Tensor("float32", ndim=2)):
        m, n = T.int64(), T.int64()
        k, c = T.int64(), I.meta_var(T.int64(16))
        a = R.match_cast(x, R.Tensor((m, n), "float32"))
        b = R.match_cast(w, R.Tensor((k, c), "float32"))
        return (a, b, R.shape([m * n, c]))
