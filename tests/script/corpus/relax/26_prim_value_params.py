# from tvm.script import ir as I
# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((4,), dtype="float32"), k: T.int64, flag: T.bool) -> T.int64:
        y: R.Tensor((4,), dtype="float32") = R.add(x, x)
        return k