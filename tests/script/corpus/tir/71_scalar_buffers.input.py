# from tvm.script import tirx as T

@T.prim_func
def running_stats(A: T.Buffer((128,), "float32"), out: T.Buffer((4,), "float32")):
    total = T.float32(0)
    count: T.int32
    count = 0
    decay = T.local_scalar("float32")
    decay = T.float32(1)
    window: T.float32[4]
    for i in range(128):
        total = total + A[i]
        decay = decay * 0.5 + A[i]
        window[i % 4] = A[i]
        count = count + 1
    out[0] = total
    out[1] = decay
    out[2] = T.Cast("float32", count)
    out[3] = window[0] + window[1] + window[2] + window[3]
