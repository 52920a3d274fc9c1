from tvm.script import ir as I
from tvm.script import relax as R
from tvm.script import tirx as T

@I.ir_module
class Module:
    @T.prim_func
    def add_one(A: T.Buffer((8,), "float32"), B: T.Buffer((8,), "float32")):
        for i in range(8):
            B[i] = A[i] + T.float32(1.0)

    @R.function
    def inner(x: R.Tensor((8,), "float32"), y: R.Tensor((8,), "float32")) -> R.Tensor((8,), "float32"):
        return R.add(x, y)

    @R.function(pure=False)
    def main(x: R.Tensor((8,), "float32")) -> R.Tensor((8,), "float32"):
        cls = Module
        storage = R.vm.alloc_storage(R.shape([32]), R.prim_value(0), R.dtype("uint8"))
        out = R.vm.alloc_tensor(storage, R.prim_value(0), R.shape([8]), R.dtype("float32"))
        _ = R.vm.call_tir_dyn(cls.add_one, (x, out))
        cached = R.call_builtin_with_ctx("vm.builtin.cached_value", (out, R.prim_value(1)), ty_args=(R.Tensor((8,), dtype="float32"),))
        _1 = R.call_builtin_with_ctx("vm.builtin.note", (cached,))
        closure = R.make_closure(cls.inner, (cached,))
        res = R.invoke_closure(closure, (out,), ty_args=(R.Tensor((8,), dtype="float32"),))
        pair = R.invoke_pure_closure(closure, (out,), ty_args=(R.Tensor((8,), dtype="float32"), R.Tensor((8,), dtype="float32")))
        nothing = R.null_value()
        _2 = R.vm.kill_object(storage)
        return res
