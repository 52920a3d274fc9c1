# expect: 8:58: error: I.vdevice has no parameter 'scope' (expected target, vdevice_id, memory_scope)
# expect: 9:58: error: vdevice_id must be non-negative, got -1
from tvm.script import ir as I
from tvm.script import relax as R

@I.ir_module
class Module:
    I.module_global_infos({"vdevice": [I.vdevice("cuda", scope="global")]})
    I.module_global_infos({"vdevice": [I.vdevice("cuda", -1)]})

    @R.function
    def main(x: R.Tensor((4,), "float32")) -> R.Tensor((4,), "float32"):
        return x
