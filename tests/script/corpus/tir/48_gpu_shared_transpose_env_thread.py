# from tvm.script import ir as I
# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis

@I.ir_module
class Module:
    @T.prim_func
    def main(A: T.Buffer((1048576,), "float32"), B: T.Buffer((1048576,), "float32")):
        T.func_attr({"tirx.noalias": True})
        by = T.launch_thread("blockIdx.y", 32)
        bx = T.launch_thread("blockIdx.x", 32)
        tile = T.alloc_shared((1056,))
        ty = T.env_thread("threadIdx.y")
        tx = T.env_thread("threadIdx.x")
        with T.launch_thread(ty, 8):
            T.launch_thread(tx, 32)
            for k in range(4):
                tile[(ty * 4 + k) * 33 + tx] = A[by * 32768 + (ty * 4 + k) * 1024 + bx * 32 + tx]
        T.tvm_storage_sync("shared")
        T.launch_thread(ty, 8)
        T.launch_thread(tx, 32)
        for k in range(4):
            B[bx * 32768 + (ty * 4 + k) * 1024 + by * 32 + tx] = tile[tx * 33 + ty * 4 + k]