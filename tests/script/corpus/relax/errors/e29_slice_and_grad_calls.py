# expect: 18:13: error: strided_slice: begin must be a tuple of integers, got R.Tuple(R.Prim("float32"))
# expect: 23:13: error: R.call_tir_with_grad needs te_grad_name=
# expect: 28:119: error: te_grad_kwargs must be a dict of names to values
# expect: 33:13: error: grad.start_checkpoint: the argument must be a variable
from tvm.script import ir as I
from tvm.script import relax as R
from tvm.script import tirx as T

@I.ir_module
class Module:
    @T.prim_func(private=True)
    def copy(A: T.Buffer((4,), "float32"), B: T.Buffer((4,), "float32")):
        for i in range(4):
            B[i] = A[i]

    @R.function
    def float_begin(x: R.Tensor((4,), "float32")):
        y = R.strided_slice(x, [0], [T.float32(1.0)], [3])
        return y

    @R.function
    def no_grad_name(x: R.Tensor((4,), "float32")):
        y = R.call_tir_with_grad(Module.copy, (x,), R.Tensor((4,), dtype="float32"))
        return y

    @R.function
    def bad_kwargs(x: R.Tensor((4,), "float32")):
        y = R.call_tir_with_grad(Module.copy, (x,), R.Tensor((4,), dtype="float32"), te_grad_name="g", te_grad_kwargs=[1])
        return y

    @R.function
    def checkpoint_of_constant(x: R.Tensor((4,), "float32")):
        y = R.grad.start_checkpoint(R.const(1.0, "float32"))
        return y
