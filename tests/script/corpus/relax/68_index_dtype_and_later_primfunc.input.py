from tvm.script import ir as I
from tvm.script import relax as R
from tvm.script import tirx as T

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((4, 8), "int64")) -> R.Tensor((8, 4), "int64"):
        R.func_attr({"relax.force_pure": True})
        _ = Module.bump(x)
        y = R.layout_transform(x, index_map=T.index_map(lambda i, j: (j, i), index_dtype="int32"))
        return y

    @T.prim_func(private=True)
    def bump(H: T.Buffer((T.int64(4), T.int64(8)), "int64")):
        H[T.int64(0), T.int64(0)] = H[T.int64(0), T.int64(0)] + T.int64(1)
