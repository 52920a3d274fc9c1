# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2, 16, 64), dtype="float32"), gamma: R.Tensor((64,), dtype="float32"), beta: R.Tensor((64,), dtype="float32")) -> R.Tensor((2, 16, 64), dtype="float32"):
        with R.dataflow():
            gv: R.Tensor((2, 16, 64), dtype="float32") = R.nn.layer_norm(x, gamma, beta, axes=[-1], epsilon=1.0000000000000001e-05, center=True, scale=True)
            R.output(gv)
        return gv