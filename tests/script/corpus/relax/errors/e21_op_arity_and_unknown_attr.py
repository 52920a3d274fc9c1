# expect: 10:26: error: R.nn.relu takes at most 1 argument
# expect: 11:41: error: R.nn.softmax has no argument or attribute 'dim'
from tvm.script import ir as I
from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((4,), "float32")) -> R.Tensor((4,), "float32"):
        y = R.nn.relu(x, x)
        z = R.nn.softmax(y, axis=0, dim=1)
        return z
