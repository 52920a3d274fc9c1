# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(o: R.Any, x: R.Tensor) -> R.Tuple(R.Any, R.Tensor):
        t: R.Tuple(R.Any, R.Tensor) = (o, x)
        return t