# on: elementwise
b0 = sch.get_sblock(name="add")
l1, l2 = sch.get_loops(block=b0)
l3 = sch.fuse(l1, l2)
l4, l5 = sch.split(loop=l3, factors=[None, 64], preserve_unit_iters=True)
sch.vectorize(loop=l5)
sch.parallel(loop=l4)
