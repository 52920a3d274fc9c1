# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(t: R.Tuple(R.Tensor((2, 3), dtype="float32"), R.Tensor((3,), dtype="float32"))) -> R.Tensor((2, 3), dtype="float32"):
        a: R.Tensor((2, 3), dtype="float32") = t[0]
        b: R.Tensor((3,), dtype="float32") = t[1]
        c: R.Tensor((2, 3), dtype="float32") = R.add(a, b)
        return c