b0 = sch.get_sblock(name="C")
sch.pad_einsum(block=b0, padding=[8, 8, 8])
b1 = sch.add_unit_loop(block_or_loop=b0)
sch.unannotate(block_or_loop=b0, ann_key="x")
