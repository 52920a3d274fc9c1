from __future__ import annotations

# from tvm.script import ir as I
# from tvm.script import tirx as T

# PEP 695 type parameters for int64 shape variables (Python >= 3.12 syntax).
@I.ir_module
class Module:
    @T.prim_func(private=True, s_tir=True)
    def pad_rows[n](A: T.Buffer((n, T.int64(32)), "float32"), B: T.Buffer((n + T.int64(1), T.int64(32)), "float32")):
        for i, j in T.grid(n + T.int64(1), T.int64(32)):
            with T.sblock("pad"):
                vi, vj = T.axis.remap("SS", [i, j])
                T.reads(A[vi, vj])
                T.writes(B[vi, vj])
                B[vi, vj] = T.if_then_else(vi < n, A[vi, vj], T.float32(0.0))
