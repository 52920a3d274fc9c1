# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(q: R.Tensor((8, 64, 32), dtype="float32"), k: R.Tensor((8, 64, 32), dtype="float32"), v: R.Tensor((8, 64, 32), dtype="float32")) -> R.Tensor((8, 64, 32), dtype="float32"):
        with R.dataflow():
            lv: R.Tensor((8, 32, 64), dtype="float32") = R.permute_dims(k, axes=[0, 2, 1])
            lv1: R.Tensor((8, 64, 64), dtype="float32") = R.matmul(q, lv, out_dtype="void")
            lv2: R.Tensor((8, 64, 64), dtype="float32") = R.multiply(lv1, R.const(0.125, "float32"))
            lv3: R.Tensor((8, 64, 64), dtype="float32") = R.nn.softmax(lv2, axis=-1)
            gv: R.Tensor((8, 64, 32), dtype="float32") = R.matmul(lv3, v, out_dtype="void")
            R.output(gv)
        return gv