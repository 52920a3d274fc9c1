# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((4,), dtype="float32"), i: R.Tensor((4,), dtype="int32")) -> R.Tuple(R.Tensor((4,), dtype="float32"), R.Tensor((4,), dtype="int32"), R.Tensor((), dtype="bool")):
        a: R.Tensor((4,), dtype="float32") = R.multiply(x, R.const(0.5, "float32"))
        b: R.Tensor((4,), dtype="float32") = R.add(a, R.const(1.0, "float32"))
        c: R.Tensor((4,), dtype="int32") = R.add(i, R.const(3, "int32"))
        d: R.Tensor((), dtype="bool") = R.const(True, "bool")
        e: R.Tensor((4,), dtype="float32") = R.subtract(b, R.const(-2.0, "float32"))
        return (e, c, d)