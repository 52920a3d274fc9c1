# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((8,), dtype="float32"), w: R.Tensor((8,), dtype="float32")) -> R.Tensor((8,), dtype="float32"):
        R.func_attr({"num_input": 1, "relax.force_pure": True})
        y: R.Tensor((8,), dtype="float32") = R.multiply(x, w)
        return y