from tvm.script import tirx as T

@T.prim_func
def pack(A: T.Buffer((4, 8), "float32"), out: T.handle):
    shape = T.tvm_stack_make_shape(4, 8)
    T.tvm_struct_set(out, 0, 1, T.tvm_stack_make_array(A.data, shape, T.reinterpret("handle", T.uint64(0)), 2, T.float32(0), 0))
