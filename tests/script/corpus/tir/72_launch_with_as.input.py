# from tvm.script import ir as I
# from tvm.script import tirx as T

@I.ir_module
class Module:
    @T.prim_func
    def scale(A: T.Buffer((1024,), "float32"), B: T.Buffer((1024,), "float32")):
        with T.launch_thread("blockIdx.x", 8) as bx:
            with T.launch_thread("threadIdx.x", 128) as tx:
                B[bx * 128 + tx] = A[bx * 128 + tx] * 2.0

    @T.prim_func
    def clipped_sum(A: T.Buffer((64,), "float32"), out: T.Buffer((4,), "float32")):
        for r in range(4):
            s: T.float32 = 0.0
            for i in range(16):
                if A[r * 16 + i] < 0.0:
                    continue
                if A[r * 16 + i] > 100.0:
                    break
                s = s + A[r * 16 + i]
            out[r] = s
        for i in T.serial(4, unroll=True):
            out[i] = out[i] * 0.25

    @T.prim_func(s_tir=True)
    def gpu_copy(A: T.Buffer((4096,), "float32"), B: T.Buffer((4096,), "float32")):
        for bx in T.thread_binding(0, 64, thread="blockIdx.x"):
            for tx in T.thread_binding(64, "threadIdx.x"):
                with T.sblock("copy"):
                    vi = T.axis.spatial(4096, bx * 64 + tx)
                    B[vi] = A[vi]

    @T.prim_func
    def device_body(A: T.Buffer((256,), "float32")):
        T.device_entry()
        bx = T.launch_thread("blockIdx.x", 2)
        tx = T.launch_thread("threadIdx.x", 128)
        A[bx * 128 + tx] = A[bx * 128 + tx] + 1.0
