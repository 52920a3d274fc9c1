# expect: 11:18: error: a call to the impure function 'R.call_packed' is not allowed inside R.dataflow(); move it out of the block
from tvm.script import ir as I
from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function(pure=False)
    def main(x: R.Tensor((4,), "float32")) -> R.Tensor((4,), "float32"):
        with R.dataflow():
            lv = R.add(x, x)
            gv = R.call_packed("side_effect", lv, ty_args=(R.Tensor((4,), "float32"),))
            R.output(gv)
        return gv