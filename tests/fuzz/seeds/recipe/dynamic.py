# on: dynamic_shape
b0 = sch.get_sblock(name="weighted_row_sum")
l1, l2 = sch.get_loops(block=b0)
l3, l4 = sch.split(loop=l2, factors=[None, 4])
