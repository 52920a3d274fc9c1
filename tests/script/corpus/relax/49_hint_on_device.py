# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    I.module_global_infos({"vdevice": [I.vdevice("llvm", 0, "global"), I.vdevice("cuda", 0, "global")]})
    @R.function
    def main(x: R.Tensor((2, 3), dtype="float32"), y: R.Tensor((2, 3), dtype="float32")) -> R.Tensor((2, 3), dtype="float32"):
        with R.dataflow():
            lv: R.Tensor((2, 3), dtype="float32") = R.hint_on_device(x, R.device(dev_type=1, dev_id=0))
            lv1: R.Tensor((2, 3), dtype="float32") = R.add(lv, y)
            lv2: R.Tensor((2, 3), dtype="float32") = R.hint_on_device(lv1, R.device(dev_type=2, dev_id=0))
            gv: R.Tensor((2, 3), dtype="float32") = R.multiply(lv2, lv2)
            R.output(gv)
        return gv