# 32x32 tiles of C, the reduction inside each tile row, the tile rows in parallel and the
# innermost 32 columns vectorized.
b0 = sch.get_sblock(name="C", func_name="main")
l1, l2, l3 = sch.get_loops(block=b0)
l4, l5 = sch.split(loop=l1, factors=[None, 32])
l6, l7 = sch.split(loop=l2, factors=[None, 32])
sch.reorder(l4, l6, l5, l3, l7)
sch.parallel(loop=l4)
sch.vectorize(loop=l7)
