# A kernel bound to GPU threads: the smallest input of a cuda build (tests and scripts/gpu-check).
from tvm.script import ir as I
from tvm.script import tirx as T


@I.ir_module
class Module:
    @T.prim_func
    def vector_add(A: T.Buffer((1000,), "float32"), B: T.Buffer((1000,), "float32"), C: T.Buffer((1000,), "float32")):
        for i0 in T.thread_binding(8, thread="blockIdx.x"):
            for i1 in T.thread_binding(128, thread="threadIdx.x"):
                with T.sblock("C"):
                    vi = T.axis.spatial(1000, i0 * 128 + i1)
                    T.where(i0 * 128 + i1 < 1000)
                    C[vi] = A[vi] + B[vi]
