# on: conv2d
b0 = sch.get_sblock(name="conv")
l1 = sch.get_loops(block=b0)
