# expect: 7:28: error: unknown global info kind "device" (expected "vdevice")
from tvm.script import ir as I
from tvm.script import relax as R

@I.ir_module
class Module:
    I.module_global_infos({"device": [I.vdevice("llvm")]})

    @R.function
    def main(x: R.Tensor((4,), "float32")) -> R.Tensor((4,), "float32"):
        return x
