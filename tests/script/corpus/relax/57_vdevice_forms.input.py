from tvm.script import ir as I
from tvm.script import relax as R


@I.ir_module
class Module:
    @R.function
    def main(
        x: R.Tensor((4, 4), "float32", "llvm"),
        y: R.Tensor((4, 4), "float32", vdevice="cuda:1:global"),
        z: R.Tensor(ndim=2, dtype="float32", vdevice="cuda"),
    ):
        a = R.to_vdevice(x, "cuda:1")
        b = a + y
        c = R.hint_on_device(b, tvm.cuda(1))
        d = R.hint_on_device(c, R.device("cuda", dev_id=1))
        e = R.to_vdevice(z, dst_vdevice="llvm")
        f = R.astype(e, "float16")
        g = R.where(R.greater(x, x), x, x)
        return (d, f, g)

    # Declared after the function that uses them: global infos are read first.
    I.module_global_infos(
        {"vdevice": [I.vdevice("cuda", 0), I.vdevice("llvm"), I.vdevice("cuda -arch=sm_80", 1)]}
    )
