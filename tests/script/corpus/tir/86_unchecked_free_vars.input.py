from tvm.script import tirx as T

@T.prim_func(check_well_formed=False, s_tir=True)
def free_vars(A: T.Buffer((16,), "float32")):
    a = T.int32()
    b = T.int32()
    size = T.int32()
    buf = T.decl_buffer(shape=[size], dtype="float32")
    for i in range(16):
        with T.sblock("outer"):
            vi = T.axis.spatial(16, i)
            T.reads(A[vi], buf[0])
            T.writes(A[vi])
            A[vi] = buf[0] + T.Cast("float32", a * b + i)
