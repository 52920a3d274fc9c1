# on: softmax
b0 = sch.get_sblock(name="normalize")
b1 = sch.get_producers(block=b0)
b2 = sch.get_sblock(name="root")
b3 = sch.get_child_blocks(b2)
