# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((1, 3, 32, 32), dtype="float32"), w: R.Tensor((16, 3, 3, 3), dtype="float32"), bias: R.Tensor((16,), dtype="float32")) -> R.Tensor((1, 16, 32, 32), dtype="float32"):
        with R.dataflow():
            lv: R.Tensor((1, 16, 32, 32), dtype="float32") = R.nn.conv2d(x, w, strides=[1, 1], padding=[1, 1, 1, 1], dilation=[1, 1], groups=1, data_layout="NCHW", kernel_layout="OIHW", out_layout="NCHW", out_dtype="void")
            lv1: R.Tensor((1, 16, 1, 1), dtype="float32") = R.reshape(bias, R.shape([1, 16, 1, 1]))
            lv2: R.Tensor((1, 16, 32, 32), dtype="float32") = R.add(lv, lv1)
            gv: R.Tensor((1, 16, 32, 32), dtype="float32") = R.nn.relu(lv2)
            R.output(gv)
        return gv