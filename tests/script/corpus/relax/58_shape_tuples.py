# from typing import TypeVar
# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    n = TypeVar("n")
    @R.function
    def create(x: R.Tensor((n, 4), dtype="float32")) -> R.Tensor((n, 4), dtype="float32"):
        a: R.Tensor((2, 3), dtype="float32") = R.zeros(R.shape([2, 3]), dtype="float32")
        b: R.Tensor((n, 4), dtype="float32") = R.ones(R.shape([n, 4]), dtype="float32")
        c: R.Tensor((2, 3), dtype="float32") = R.full(R.shape([2, 3]), R.const(1.0, "float32"), dtype="float32")
        d: R.Tensor((n * 2, 4), dtype="float32") = R.full(R.shape([n * 2, 4]), R.const(0.5, "float32"), dtype="void")
        e: R.Tensor((), dtype="int32") = R.zeros(R.shape([]), dtype="int32")
        f: R.Tensor((n + 1,), dtype="float16") = R.ones(R.shape([n + 1]), dtype="float16")
        return x

    n = TypeVar("n")
    @R.function
    def manipulate(x: R.Tensor((n, 4), dtype="float32"), y: R.Tensor((3,), dtype="float32")) -> R.Tensor((4, 3), dtype="float32"):
        a: R.Tensor((n * 4,), dtype="float32") = R.reshape(x, R.shape([n * 4]))
        b: R.Tensor((n, 2, 2), dtype="float32") = R.reshape(x, R.shape([n, 2, 2]))
        c: R.Tensor((4, n), dtype="float32") = R.reshape(x, R.shape([4, n]))
        d: R.Tensor((4, 3), dtype="float32") = R.broadcast_to(y, R.shape([4, 3]))
        return d