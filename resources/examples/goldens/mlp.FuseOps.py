# from tvm.script import ir as I
# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis
# from tvm.script import relax as R

@I.ir_module
class Module:
    @T.prim_func(private=True, s_tir=True)
    def add(lv2: T.Buffer((T.int64(8), T.int64(10)), "float32"), b1: T.Buffer((T.int64(10),), "float32"), T_add: T.Buffer((T.int64(8), T.int64(10)), "float32")):
        T.func_attr({"op_pattern": 0, "tirx.noalias": True})
        # with T.sblock("root"):
        for ax0, ax1 in T.grid(T.int64(8), T.int64(10)):
            with T.sblock("T_add"):
                v_ax0, v_ax1 = T.axis.remap("SS", [ax0, ax1])
                T.reads(lv2[v_ax0, v_ax1], b1[v_ax1])
                T.writes(T_add[v_ax0, v_ax1])
                T_add[v_ax0, v_ax1] = lv2[v_ax0, v_ax1] + b1[v_ax1]

    @T.prim_func
    def bias_relu(x: T.Buffer((8, 64), "float32"), b: T.Buffer((64,), "float32"), y: T.Buffer((8, 64), "float32")):
        T.func_attr({"op_pattern": 0})
        # with T.sblock("root"):
        for i, j in T.grid(8, 64):
            with T.sblock("bias_relu"):
                vi, vj = T.axis.remap("SS", [i, j])
                T.reads(x[vi, vj], b[vj])
                T.writes(y[vi, vj])
                y[vi, vj] = T.max(x[vi, vj] + b[vj], T.float32(0.0))

    @T.prim_func(private=True, s_tir=True)
    def matmul(x: T.Buffer((T.int64(8), T.int64(32)), "float32"), w0: T.Buffer((T.int64(32), T.int64(64)), "float32"), matmul: T.Buffer((T.int64(8), T.int64(64)), "float32")):
        T.func_attr({"op_pattern": 4, "tirx.noalias": True})
        # with T.sblock("root"):
        for i0, i1, k in T.grid(T.int64(8), T.int64(64), T.int64(32)):
            with T.sblock("matmul"):
                v_i0, v_i1, v_k = T.axis.remap("SSR", [i0, i1, k])
                T.reads(x[v_i0, v_k], w0[v_k, v_i1])
                T.writes(matmul[v_i0, v_i1])
                with T.init():
                    matmul[v_i0, v_i1] = T.float32(0.0)
                matmul[v_i0, v_i1] = matmul[v_i0, v_i1] + x[v_i0, v_k] * w0[v_k, v_i1]

    @T.prim_func(private=True, s_tir=True)
    def matmul1(lv1: T.Buffer((T.int64(8), T.int64(64)), "float32"), w1: T.Buffer((T.int64(64), T.int64(10)), "float32"), matmul: T.Buffer((T.int64(8), T.int64(10)), "float32")):
        T.func_attr({"op_pattern": 4, "tirx.noalias": True})
        # with T.sblock("root"):
        for i0, i1, k in T.grid(T.int64(8), T.int64(10), T.int64(64)):
            with T.sblock("matmul"):
                v_i0, v_i1, v_k = T.axis.remap("SSR", [i0, i1, k])
                T.reads(lv1[v_i0, v_k], w1[v_k, v_i1])
                T.writes(matmul[v_i0, v_i1])
                with T.init():
                    matmul[v_i0, v_i1] = T.float32(0.0)
                matmul[v_i0, v_i1] = matmul[v_i0, v_i1] + lv1[v_i0, v_k] * w1[v_k, v_i1]

    @R.function(private=True)
    def fused_matmul1_add(lv1: R.Tensor((8, 64), dtype="float32"), w1: R.Tensor((64, 10), dtype="float32"), b1: R.Tensor((10,), dtype="float32")) -> R.Tensor((8, 10), dtype="float32"):
        R.func_attr({"Primitive": True})
        cls = Module
        with R.dataflow():
            lv2 = R.call_tir(cls.matmul1, (lv1, w1), out_ty=R.Tensor((8, 10), dtype="float32"))
            gv = R.call_tir(cls.add, (lv2, b1), out_ty=R.Tensor((8, 10), dtype="float32"))
            R.output(gv)
        return gv

    @R.function(private=True)
    def fused_matmul_bias_relu(x: R.Tensor((8, 32), dtype="float32"), w0: R.Tensor((32, 64), dtype="float32"), b0: R.Tensor((64,), dtype="float32")) -> R.Tensor((8, 64), dtype="float32"):
        R.func_attr({"Primitive": True})
        cls = Module
        with R.dataflow():
            lv = R.call_tir(cls.matmul, (x, w0), out_ty=R.Tensor((8, 64), dtype="float32"))
            lv1 = R.call_tir(cls.bias_relu, (lv, b0), out_ty=R.Tensor((8, 64), dtype="float32"))
            R.output(lv1)
        return lv1

    @R.function
    def main(x: R.Tensor((8, 32), dtype="float32"), w0: R.Tensor((32, 64), dtype="float32"), b0: R.Tensor((64,), dtype="float32"), w1: R.Tensor((64, 10), dtype="float32"), b1: R.Tensor((10,), dtype="float32")) -> R.Tensor((8, 10), dtype="float32"):
        cls = Module
        with R.dataflow():
            lv1: R.Tensor((8, 64), dtype="float32") = cls.fused_matmul_bias_relu(x, w0, b0)
            gv: R.Tensor((8, 10), dtype="float32") = cls.fused_matmul1_add(lv1, w1, b1)
            R.output(gv)
        return gv
