from tvm.script import ir as I
from tvm.script import relax as R
from tvm.script import tirx as T

@I.ir_module
class Module:
    @R.function
    def main(a: R.Tensor((64, 8), "float32"), b: R.Tensor(("n",), "uint8")):
        n = T.int64()
        same = R.memory.view(a)
        flat = R.memory.view(a, R.shape([512]))
        halves = R.memory.view(a, shape=R.shape([64, 16]), dtype="float16")
        tail = R.memory.view(a, R.shape([256]), relative_byte_offset=R.prim_value(T.int64(1024)))
        words = R.memory.view(b, R.shape([n // 4]), R.dtype("int32"))
        bytes_only = R.memory.view(a, dtype=R.dtype("int8"))
        copied = R.memory.ensure_zero_offset(tail)
        return (same, flat, halves, copied, words, bytes_only)
