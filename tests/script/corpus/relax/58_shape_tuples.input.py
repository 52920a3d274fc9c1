from tvm.script import ir as I
from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def create(x: R.Tensor(("n", 4), "float32")) -> R.Tensor(("n", 4), "float32"):
        a = R.zeros((2, 3), dtype="float32")
        b = R.ones((n, 4), "float32")
        c = R.full((2, 3), R.const(1.0, "float32"), dtype="float32")
        d = R.full(shape=[n * 2, 4], fill_value=R.const(0.5, "float32"))
        e = R.zeros((), "int32")
        f = R.ones([n + 1], dtype="float16")
        return x

    @R.function
    def manipulate(x: R.Tensor(("n", 4), "float32"), y: R.Tensor((3,), "float32")) -> R.Tensor((4, 3), "float32"):
        a = R.reshape(x, (n * 4,))
        b = R.reshape(x, [n, 2, 2])
        c = R.reshape(x, shape=(4, n))
        d = R.broadcast_to(y, (4, 3))
        return d
