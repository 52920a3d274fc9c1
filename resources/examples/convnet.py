# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((1, 3, 12, 12), dtype="float32"), w0: R.Tensor((8, 3, 3, 3), dtype="float32"), b0: R.Tensor((1, 8, 1, 1), dtype="float32"), w1: R.Tensor((4, 8, 3, 3), dtype="float32"), fc: R.Tensor((400, 10), dtype="float32")) -> R.Tensor((1, 10), dtype="float32"):
        with R.dataflow():
            lv: R.Tensor((1, 8, 12, 12), dtype="float32") = R.nn.conv2d(x, w0, strides=[1, 1], padding=[1, 1, 1, 1], dilation=[1, 1], groups=1, data_layout="NCHW", kernel_layout="OIHW", out_layout="NCHW", out_dtype="void")
            lv1: R.Tensor((1, 8, 12, 12), dtype="float32") = R.add(lv, b0)
            lv2: R.Tensor((1, 8, 12, 12), dtype="float32") = R.nn.relu(lv1)
            lv3: R.Tensor((1, 4, 10, 10), dtype="float32") = R.nn.conv2d(lv2, w1, strides=[1, 1], padding=[0, 0, 0, 0], dilation=[1, 1], groups=1, data_layout="NCHW", kernel_layout="OIHW", out_layout="NCHW", out_dtype="void")
            lv4: R.Tensor((1, 4, 10, 10), dtype="float32") = R.nn.relu(lv3)
            lv5: R.Tensor((1, 400), dtype="float32") = R.reshape(lv4, R.shape([1, 400]))
            gv: R.Tensor((1, 10), dtype="float32") = R.matmul(lv5, fc, out_dtype="void")
            R.output(gv)
        return gv