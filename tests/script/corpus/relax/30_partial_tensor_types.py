# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(a: R.Tensor(dtype="float32", ndim=2), b: R.Tensor(ndim=3), c: R.Tensor(dtype="int8")) -> R.Tensor(dtype="float32", ndim=2):
        y: R.Tensor(dtype="float32", ndim=2) = R.nn.relu(a)
        return y