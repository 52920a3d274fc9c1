# expect: 14:25: error: a dimension of the shape of R.zeros must be an integer or an integer expression such as n * 2, got a float
# expect: 19:30: error: a dimension of the shape of R.reshape must be an integer or an integer expression such as n * 2, got a string
# expect: 24:32: error: a dimension of the shape of R.broadcast_to must be an integer or an integer expression such as n * 2, got a Relax value of type R.Tensor((4,), dtype="float32")
# expect: 29:30: error: a dimension of the shape of R.full must be an integer or an integer expression such as n * 2, got None
# expect: 34:21: error: a dimension of the shape of R.ones must be an integer or an integer expression such as n * 2, got a float32 expression
from tvm.script import ir as I
from tvm.script import relax as R
from tvm.script import tir as T

@I.ir_module
class Module:
    @R.function
    def float_dim(x: R.Tensor((4,), "float32")):
        y = R.zeros((2, 3.5), dtype="float32")
        return y

    @R.function
    def string_dim(x: R.Tensor((4,), "float32")):
        y = R.reshape(x, (2, "two"))
        return y

    @R.function
    def tensor_dim(x: R.Tensor((4,), "float32")):
        y = R.broadcast_to(x, [x, 4])
        return y

    @R.function
    def keyword_shape(x: R.Tensor((4,), "float32")):
        y = R.full(shape=(2, None), fill_value=R.const(1.0, "float32"))
        return y

    @R.function
    def float_expr(x: R.Tensor(("n",), "float32")):
        y = R.ones((T.float32(0.5) * 2, 4), "float32")
        return y
