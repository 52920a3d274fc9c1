from tvm.script import tirx as T

@T.prim_func
def func(A_ptr: T.handle):
    A = T.match_buffer(A_ptr, (128,), "float32")
    for i in T.serial(128, dtype="uint32"):
        A[i] = T.float32(1)
