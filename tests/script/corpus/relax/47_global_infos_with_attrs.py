# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    I.module_attrs({"system_lib_prefix": "model_"})
    I.module_global_infos({"vdevice": [I.vdevice("cuda", 0, "global"), I.vdevice("cuda", 1, "global"), I.vdevice("opencl", 0, "global.texture")]})
    @R.function
    def main(x: R.Tensor((2, 3), dtype="float32"), y: R.Tensor((2, 3), dtype="float32")) -> R.Tensor((2, 3), dtype="float32"):
        z: R.Tensor((2, 3), dtype="float32") = R.add(x, y)
        return z