from tvm.script import ir as I
from tvm.script import relax as R
from tvm.script import tirx as T

@I.ir_module
class Module:
    @T.prim_func
    def exp(a: T.handle, b: T.handle):
        T.evaluate(0)

    @T.prim_func
    def copy(A: T.Buffer((4,), "float32"), B: T.Buffer((4,), "float32")):
        for i in range(4):
            B[i] = A[i]

    @R.function
    def main(x: R.Tensor((4,), "float32"), y: R.Tensor(("n",), "float32")) -> R.Tensor((4,), "float32"):
        n = T.int64()
        R.func_attr({"relax.force_pure": True})
        cls = Module
        out = R.builtin.alloc_tensor(R.shape([4]), R.dtype("float32"), R.prim_value(0))
        _: R.Tuple = cls.exp(x, out)
        cls.copy(x, out)
        padded: R.Tensor((2 * n + 2,), dtype="float32") = R.builtin.alloc_tensor(R.shape([10]), R.dtype("float32"), R.prim_value(0))
        return out
