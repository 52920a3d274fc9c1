# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2, 3), dtype="float32")) -> R.Tensor((2, 3), dtype="float32"):
        a: R.Tensor((2, 3), dtype="float32") = R.zeros(R.shape([2, 3]), dtype="float32")
        b: R.Tensor((2, 3), dtype="float32") = R.ones(R.shape([2, 3]), dtype="float32")
        c: R.Tensor((2, 3), dtype="float32") = R.full(R.shape([2, 3]), R.const(7.0, "float32"), dtype="float32")
        d: R.Tensor((2, 3), dtype="float32") = R.add(a, b)
        e: R.Tensor((2, 3), dtype="float32") = R.add(d, c)
        return e