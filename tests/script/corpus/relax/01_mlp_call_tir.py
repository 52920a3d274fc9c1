# from tvm.script import ir as I
# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis
# from tvm.script import relax as R

@I.ir_module
class Module:
    @T.prim_func(private=True)
    def dense_bias0(x: T.Buffer((1, 784), "float32"), w: T.Buffer((784, 128), "float32"), b: T.Buffer((128,), "float32"), out: T.Buffer((1, 128), "float32")):
        for i, j in T.grid(1, 128):
            out[i, j] = b[j]
            for k in range(784):
                out[i, j] = out[i, j] + x[i, k] * w[k, j]

    @T.prim_func(private=True)
    def dense_bias1(x: T.Buffer((1, 128), "float32"), w: T.Buffer((128, 10), "float32"), b: T.Buffer((10,), "float32"), out: T.Buffer((1, 10), "float32")):
        for i, j in T.grid(1, 10):
            out[i, j] = b[j]
            for k in range(128):
                out[i, j] = out[i, j] + x[i, k] * w[k, j]

    @T.prim_func(private=True)
    def relu(x: T.Buffer((1, 128), "float32"), out: T.Buffer((1, 128), "float32")):
        for i, j in T.grid(1, 128):
            out[i, j] = T.max(x[i, j], T.float32(0.0))

    @R.function
    def main(x: R.Tensor((1, 784), dtype="float32"), w0: R.Tensor((784, 128), dtype="float32"), b0: R.Tensor((128,), dtype="float32"), w1: R.Tensor((128, 10), dtype="float32"), b1: R.Tensor((10,), dtype="float32")) -> R.Tensor((1, 10), dtype="float32"):
        cls = Module
        with R.dataflow():
            lv = R.call_tir(cls.dense_bias0, (x, w0, b0), out_ty=R.Tensor((1, 128), dtype="float32"))
            lv1 = R.call_tir(cls.relu, (lv,), out_ty=R.Tensor((1, 128), dtype="float32"))
            gv = R.call_tir(cls.dense_bias1, (lv1, w1, b1), out_ty=R.Tensor((1, 10), dtype="float32"))
            R.output(gv)
        return gv