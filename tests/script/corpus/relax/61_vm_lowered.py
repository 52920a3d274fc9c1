# from tvm.script import ir as I
# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis
# from tvm.script import relax as R

@I.ir_module
class Module:
    @T.prim_func
    def add_one(A: T.Buffer((8,), "float32"), B: T.Buffer((8,), "float32")):
        for i in range(8):
            B[i] = A[i] + T.float32(1.0)

    @R.function
    def inner(x: R.Tensor((8,), dtype="float32"), y: R.Tensor((8,), dtype="float32")) -> R.Tensor((8,), dtype="float32"):
        return R.add(x, y)

    @R.function(pure=False)
    def main(x: R.Tensor((8,), dtype="float32")) -> R.Tensor((8,), dtype="float32"):
        cls = Module
        storage: R.Any = R.vm.alloc_storage(R.shape([32]), 0, R.dtype("uint8"), R.str("global"))
        out: R.Tensor((8,), dtype="float32") = R.vm.alloc_tensor(storage, 0, R.shape([8]), R.dtype("float32"), 0)
        R.vm.call_tir_dyn(cls.add_one, (x, out))
        cached: R.Tensor((8,), dtype="float32") = R.call_builtin_with_ctx("vm.builtin.cached_value", (out, 1), ty_args=(R.Tensor((8,), dtype="float32"),))
        R.call_builtin_with_ctx("vm.builtin.note", (cached,))
        closure: R.Any = R.make_closure(cls.inner, (cached,))
        res: R.Tensor((8,), dtype="float32") = R.invoke_closure(closure, (out,), ty_args=(R.Tensor((8,), dtype="float32"),))
        pair: R.Tuple(R.Tensor((8,), dtype="float32"), R.Tensor((8,), dtype="float32")) = R.invoke_pure_closure(closure, (out,), ty_args=(R.Tensor((8,), dtype="float32"), R.Tensor((8,), dtype="float32")))
        nothing: R.Any = R.null_value()
        R.vm.kill_object(storage)
        return res