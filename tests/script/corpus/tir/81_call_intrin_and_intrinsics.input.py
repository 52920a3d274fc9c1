from tvm.script import tirx as T

@T.prim_func
def f(A: T.Buffer((4,), "int8"), B: T.Buffer((4,), "uint8"), p: T.handle):
    T.evaluate(T.start_profile_intrinsic(3))
    for tx in range(4):
        B[tx] = T.call_intrin("uint8", "tirx.reinterpret", A[tx])
    if T.isnullptr(p):
        T.evaluate(T.call_intrin("int32", "tirx.tvm_storage_sync", "shared"))
    if T.tvm_thread_invariant(A[0] > T.int8(0)):
        B[0] = T.uint8(1)
    T.evaluate(T.end_profile_intrinsic(3))
