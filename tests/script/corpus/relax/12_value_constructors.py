# from tvm.script import ir as I
# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2, 3), dtype="float32")) -> R.Tuple(R.Shape([2, 3]), T.int64, R.Any, R.Any):
        s: R.Shape([2, 3]) = R.shape([2, 3])
        p: T.int64 = 7
        d: R.Any = R.dtype("float16")
        m: R.Any = R.str("hello")
        t: R.Tuple(R.Shape([2, 3]), T.int64, R.Any, R.Any) = (s, p, d, m)
        return t