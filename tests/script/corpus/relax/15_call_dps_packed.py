# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((16, 16), dtype="float32")) -> R.Tensor((16, 16), dtype="float32"):
        with R.dataflow():
            lv = R.call_dps_packed("my_kernel", (x,), out_ty=R.Tensor((16, 16), dtype="float32"))
            gv = R.call_dps_packed("my_kernel2", (lv, x), out_ty=R.Tensor((16, 16), dtype="float32"))
            R.output(gv)
        return gv