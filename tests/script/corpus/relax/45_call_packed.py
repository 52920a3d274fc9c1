# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function(pure=False)
    def main(x: R.Tensor((4,), dtype="float32")) -> R.Tensor((4,), dtype="float32"):
        y: R.Tensor((4,), dtype="float32") = R.call_packed("my_packed", x, ty_args=(R.Tensor((4,), dtype="float32"),))
        z: R.Tensor((4,), dtype="float32") = R.call_packed("my_other", x, y, ty_args=(R.Tensor((4,), dtype="float32"),))
        return z