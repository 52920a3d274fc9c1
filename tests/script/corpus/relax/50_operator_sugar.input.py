from tvm.script import ir as I
from tvm.script import relax as R

@I.ir_module
class MyModel:
    @R.function
    def main(x: R.Tensor((4, 4), "float32"), y: R.Tensor([4, 4], "float32")):
        z = x + y
        w = z * x
        v = -w
        u = v - y
        return u