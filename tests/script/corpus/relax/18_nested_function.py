# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((), dtype="int32")) -> R.Tensor((), dtype="int32"):
        # from tvm.script import relax as R
        
        @R.function
        def inner(y: R.Tensor((), dtype="int32")) -> R.Tensor((), dtype="int32"):
            z: R.Tensor((), dtype="int32") = R.add(y, y)
            return z

        w: R.Tensor((), dtype="int32") = inner(x)
        return w