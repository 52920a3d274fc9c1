from tvm.script import ir as I
from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((4, 8), "float32"), pair: R.Tuple(R.Tensor((4,), "float32"), R.Shape([2, 3]))):
        first = R.TupleGetItem(pair, 0)
        second = R.TupleGetItem(tuple_value=pair, index=1)
        flat = R.reshape(x, R.ShapeExpr([32]))
        kept = R.builtin.stop_lift_params(flat)
        return (first, second, kept)

    @R.function(pure=False)
    def packed(x: R.Tensor((4,), "float32")):
        o: R.Any = R.call_packed("my_stack", x, x, ty_args=R.Any(), test_attr=True, level=2)
        return o
