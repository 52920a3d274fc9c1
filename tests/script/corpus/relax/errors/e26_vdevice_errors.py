# expect: 17:59: error: no vdevice of kind "metal" in the module's global infos (declared: "llvm:0", "cuda:0")
# expect: 21:59: error: vdevice "cuda:1" is out of range: the module declares 1 vdevice of kind "cuda"
# expect: 25:56: error: a vdevice is written "kind" or "kind:index" (e.g. "cuda:0"), got "cuda:x"
# expect: 29:59: error: a vdevice is given by its name, a string such as "cuda:0"
# expect: 34:13: error: add: the first operand is on vdevice I.vdevice("llvm", 0, "global") but the second is on I.vdevice("cuda", 0, "global"); copy one with R.to_vdevice
# expect: 39:29: error: vdevice "cuda:0" has memory scope "global", not "texture"
# expect: 44:42: error: unknown device type "tpu"
# expect: 49:12: error: the annotation R.Tensor((4,), dtype="float32", vdevice=I.vdevice("cuda", 0, "global")) does not fit the value's type R.Tensor((4,), dtype="float32", vdevice=I.vdevice("llvm", 0, "global"))
from tvm.script import ir as I
from tvm.script import relax as R

@I.ir_module
class Module:
    I.module_global_infos({"vdevice": [I.vdevice("llvm"), I.vdevice("cuda", 0)]})

    @R.function
    def unknown_kind(x: R.Tensor((4,), "float32", vdevice="metal:0")) -> R.Tensor((4,), "float32"):
        return x

    @R.function
    def out_of_range(x: R.Tensor((4,), "float32", vdevice="cuda:1")) -> R.Tensor((4,), "float32"):
        return x

    @R.function
    def malformed(x: R.Tensor((4,), "float32", vdevice="cuda:x")) -> R.Tensor((4,), "float32"):
        return x

    @R.function
    def not_a_string(x: R.Tensor((4,), "float32", vdevice=0)) -> R.Tensor((4,), "float32"):
        return x

    @R.function
    def mixed(x: R.Tensor((4,), "float32", vdevice="llvm:0"), y: R.Tensor((4,), "float32", vdevice="cuda:0")):
        z = R.add(x, y)
        return z

    @R.function
    def wrong_scope(x: R.Tensor((4,), "float32")):
        y = R.to_vdevice(x, "cuda:0:texture")
        return y

    @R.function
    def bad_device(x: R.Tensor((4,), "float32")):
        y = R.hint_on_device(x, R.device("tpu", 0))
        return y

    @R.function
    def annotation_on_other_device(x: R.Tensor((4,), "float32", vdevice="llvm")):
        y: R.Tensor((4,), "float32", vdevice="cuda") = R.exp(x)
        return y
