# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    I.module_global_infos({"vdevice": [I.vdevice("llvm", 0, "global"), I.vdevice("cuda", 0, "global"), I.vdevice("cuda", 1, "global")]})
    @R.function
    def main(x: R.Tensor((16, 32), dtype="float32", vdevice="cuda:0"), w: R.Tensor((32, 8), dtype="float32", vdevice="cuda:0"), b: R.Tensor((8,), dtype="float32", vdevice="cuda:1")) -> R.Tensor((16, 8), dtype="float32", vdevice="llvm:0"):
        with R.dataflow():
            lv: R.Tensor((16, 8), dtype="float32", vdevice="cuda:0") = R.matmul(x, w, out_dtype="void")
            lv1: R.Tensor((8,), dtype="float32", vdevice="cuda:0") = R.to_vdevice(b, dst_vdevice="cuda:0")
            lv2: R.Tensor((16, 8), dtype="float32", vdevice="cuda:0") = R.add(lv, lv1)
            lv3: R.Tensor((16, 8), dtype="float32", vdevice="cuda:0") = R.nn.relu(lv2)
            gv: R.Tensor((16, 8), dtype="float32", vdevice="llvm:0") = R.to_vdevice(lv3, dst_vdevice="llvm:0")
            R.output(gv)
        return gv