from tvm.script import ir as I
from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function(pure=False)
    def main(x: R.Tensor((16, 4), "float32")) -> R.Tensor((16, 4), "float32"):
        storage = R.memory.alloc_storage(R.shape([256]), 0, "global", "uint8")
        y = R.memory.alloc_tensor(storage, 0, R.shape([16, 4]), "float32")
        z = R.builtin.alloc_tensor(R.shape([16, 4]), dtype="float32", runtime_device_index=0)
        _ = R.call_packed("copy", x, y, ty_args=(R.Tuple,))
        _1 = R.memory.kill_storage(storage)
        return y
