# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2, 4, 14, 14, 4), dtype="float32"), w: R.Tensor((8, 4, 3, 3, 4, 4), dtype="float32"), v: R.Tensor((2, 14, 14, 16), dtype="float32"), u: R.Tensor((8, 16, 3, 3), dtype="float32")) -> R.Tuple(R.Tensor((2, 8, 7, 7, 4), dtype="float32"), R.Tensor((2, 13, 13, 32), dtype="float32"), R.Tensor((2, 8, 1, 1, 4), dtype="float32"), R.Tensor((2, 1, 12, 12, 8), dtype="float32")):
        y: R.Tensor((2, 8, 14, 14, 4), dtype="float32") = R.nn.conv2d(x, w, strides=[1, 1], padding=[1, 1, 1, 1], dilation=[1, 1], groups=1, data_layout="NCHW4c", kernel_layout="OIHW4i4o", out_layout="NCHW4c", out_dtype="void")
        z: R.Tensor((2, 1, 12, 12, 8), dtype="float32") = R.nn.conv2d(v, u, strides=[1, 1], padding=[0, 0, 0, 0], dilation=[1, 1], groups=1, data_layout="NHWC", kernel_layout="OIHW", out_layout="NCHW8c", out_dtype="void")
        p: R.Tensor((2, 8, 7, 7, 4), dtype="float32") = R.nn.max_pool2d(y, pool_size=[2, 2], strides=[2, 2], dilation=[1, 1], padding=[0, 0, 0, 0], ceil_mode=False, count_include_pad=False, layout="NCHW4c", out_layout="NCHW4c")
        q: R.Tensor((2, 13, 13, 32), dtype="float32") = R.nn.avg_pool2d(y, pool_size=[2, 2], strides=[1, 1], dilation=[1, 1], padding=[0, 0, 0, 0], ceil_mode=False, count_include_pad=False, layout="NCHW4c", out_layout="NHWC")
        r: R.Tensor((2, 8, 1, 1, 4), dtype="float32") = R.nn.adaptive_avg_pool2d(y, output_size=[1, 1], layout="NCHW4c", out_layout="NCHW4c")
        return (p, q, r, z)