from tvm.script import ir as I
from tvm.script import relax as R

@I.ir_module
class Module:
    I.module_global_infos(
        {
            "vdevice": [
                I.vdevice({"device": "adreno", "kind": "opencl", "keys": ["opencl", "gpu"]}, 0, "global.texture-weight"),
                I.vdevice({"device": "adreno", "kind": "opencl"}, 0, "global"),
            ]
        }
    )

    @R.function
    def main(x: R.Tensor((2, 4), "float32", vdevice="opencl:1:global")) -> R.Tensor((2, 4), "float32", vdevice="opencl:0:global.texture-weight"):
        y = R.to_vdevice(x, "opencl:0:global.texture-weight")
        return y
