# on: softmax
b0 = sch.get_sblock(name="exp")
sch.compute_inline(block=b0)
b1 = sch.get_sblock(name="row_max")
b2, b3 = sch.get_consumers(block=b1)
l4, l5 = sch.get_loops(block=b1)
sch.parallel(loop=l4)
