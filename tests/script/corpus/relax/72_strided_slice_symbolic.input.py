from tvm.script import ir as I
from tvm.script import relax as R
from tvm.script import tirx as T

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor(("m", "n"), "float32")):
        m = T.int64()
        n = T.int64()
        quarter = R.strided_slice(x, [1], [0], [n // 4], assume_inbound=True)
        clipped = R.strided_slice(x, (R.prim_value(0),), (R.prim_value(n // 2),), (R.prim_value(m),))
        stepped = R.strided_slice(x, [0, 1], [1, 0], [m, n], [2, 3], assume_inbound=True)
        tail = R.strided_slice(x, [0], [2], [5])
        return (quarter, clipped, stepped, tail)
