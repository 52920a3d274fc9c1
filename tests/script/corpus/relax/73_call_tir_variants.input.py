from tvm.script import ir as I
from tvm.script import relax as R
from tvm.script import tirx as T

@I.ir_module
class Module:
    @T.prim_func(private=True)
    def scale(A: T.Buffer((4, 4), "float32"), B: T.Buffer((4, 4), "float32"), C: T.Buffer((4, 4), "float32")):
        for i, j in T.grid(4, 4):
            C[i, j] = A[i, j] * B[i, j]

    @R.function
    def main(a: R.Tensor((4, 4), "float32"), b: R.Tensor((4, 4), "float32")) -> R.Tensor((4, 4), "float32"):
        cls = Module
        with R.dataflow():
            a_cp = R.grad.start_checkpoint(a)
            plain = R.call_tir_with_grad(cls.scale, (a_cp, b), out_ty=R.Tensor((4, 4), dtype="float32"), te_grad_name="scale_grad")
            kw = R.call_tir_with_grad(cls.scale, (plain, b), R.Tensor((4, 4), dtype="float32"), "scale_k_grad", {"k": T.float32(2)})
            kw_cp = R.grad.end_checkpoint(kw)
            fixed = R.grad.no_grad(kw_cp)
            summed = relax.op.add(fixed, a)
            inplace = R.call_tir_inplace(cls.scale, (summed, b, a), 2, R.Tensor((4, 4), dtype="float32"))
            packed = R.call_pure_packed("my_identity", inplace, ty_args=[inplace.ty])
            R.output(packed)
        return packed
