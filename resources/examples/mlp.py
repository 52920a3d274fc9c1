# from tvm.script import ir as I
# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis
# from tvm.script import relax as R

@I.ir_module
class Module:
    @T.prim_func
    def bias_relu(x: T.Buffer((8, 64), "float32"), b: T.Buffer((64,), "float32"), y: T.Buffer((8, 64), "float32")):
        # with T.sblock("root"):
        for i, j in T.grid(8, 64):
            with T.sblock("bias_relu"):
                vi, vj = T.axis.remap("SS", [i, j])
                T.reads(x[vi, vj], b[vj])
                T.writes(y[vi, vj])
                y[vi, vj] = T.max(x[vi, vj] + b[vj], T.float32(0.0))

    @R.function
    def main(x: R.Tensor((8, 32), dtype="float32"), w0: R.Tensor((32, 64), dtype="float32"), b0: R.Tensor((64,), dtype="float32"), w1: R.Tensor((64, 10), dtype="float32"), b1: R.Tensor((10,), dtype="float32")) -> R.Tensor((8, 10), dtype="float32"):
        cls = Module
        with R.dataflow():
            lv: R.Tensor((8, 64), dtype="float32") = R.matmul(x, w0, out_dtype="void")
            lv1 = R.call_tir(cls.bias_relu, (lv, b0), out_ty=R.Tensor((8, 64), dtype="float32"))
            lv2: R.Tensor((8, 10), dtype="float32") = R.matmul(lv1, w1, out_dtype="void")
            gv: R.Tensor((8, 10), dtype="float32") = R.add(lv2, b1)
            R.output(gv)
        return gv