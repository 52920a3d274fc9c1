# from tvm.script import tirx as T

@T.prim_func(s_tir=True)
def tiles(A: T.Buffer((64, 64), "float32"), B: T.Buffer((64,), "float32"), C: T.Buffer((64, 64), "float32")):
    with T.sblock("root"):
        for i, j in T.grid(64, 64):
            with T.sblock("copy"):
                vi = T.axis.S(64, i)
                vj = T.axis.S((0, 64), j)
                T.where(True)
                T.reads([A[vi, vj]])
                T.writes((C[vi, vj],))
                C[vi, vj] = A[vi, vj]
        for t in range(8):
            with T.sblock("tile_sum"):
                vt = T.axis.spatial(8, t)
                T.reads(C[vt * 8:vt * 8 + 8, 0:64])
                T.writes(B[vt * 8:vt * 8 + 8])
                tile = T.match_buffer(C[vt * 8:vt * 8 + 8, 0:64])
                for r, k in T.grid(8, 64):
                    with T.sblock("row_sum"):
                        vr = T.axis.S(8, r)
                        vk = T.axis.R([0, 64], k)
                        T.reads(tile[vr, vk])
                        T.writes(B[vt * 8 + vr])
                        with T.init():
                            B[vt * 8 + vr] = 0.0
                        B[vt * 8 + vr] = B[vt * 8 + vr] + tile[vr, vk]
