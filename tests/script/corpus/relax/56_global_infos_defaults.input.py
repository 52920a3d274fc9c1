from tvm.script import ir as I
from tvm.script import relax as R

@I.ir_module
class Module:
    I.module_global_infos(
        {
            "vdevice": [
                I.vdevice("llvm"),
                I.vdevice("cuda", vdevice_id=1),
                I.vdevice(target="metal", memory_scope="global"),
            ]
        }
    )

    @R.function
    def main(x: R.Tensor((4,), "float32")) -> R.Tensor((4,), "float32"):
        return x
