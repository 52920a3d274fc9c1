# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(table: R.Tensor((100, 16), dtype="float32"), idx: R.Tensor((5,), dtype="int64")) -> R.Tensor((5,), dtype="int64"):
        with R.dataflow():
            lv: R.Tensor((5, 16), dtype="float32") = R.take(table, idx, axis=0, mode="fast")
            gv: R.Tensor((5,), dtype="int64") = R.argmax(lv, axis=1, keepdims=False)
            R.output(gv)
        return gv