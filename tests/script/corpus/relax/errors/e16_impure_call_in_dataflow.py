# expect: 16:18: error: a call to the impure function 'cls.log_value' is not allowed inside R.dataflow(); move it out of the block
from tvm.script import ir as I
from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function(pure=False)
    def log_value(x: R.Tensor((4,), "float32")) -> R.Tensor((4,), "float32"):
        return x

    @R.function(pure=False)
    def main(x: R.Tensor((4,), "float32")) -> R.Tensor((4,), "float32"):
        cls = Module
        with R.dataflow():
            lv = R.add(x, x)
            gv = cls.log_value(lv)
            R.output(gv)
        return gv
