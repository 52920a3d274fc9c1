# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((4, 16), dtype="float32"), w: R.Tensor((16, 8), dtype="float16")) -> R.Tensor((4, 8), dtype="float32"):
        with R.dataflow():
            lv: R.Tensor((4, 16), dtype="float16") = R.astype(x, dtype="float16")
            lv1: R.Tensor((4, 8), dtype="float32") = R.matmul(lv, w, out_dtype="float32")
            gv: R.Tensor((4, 8), dtype="float32") = R.nn.silu(lv1)
            R.output(gv)
        return gv