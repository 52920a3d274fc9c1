# from tvm.script import tirx as T

# A standalone private function prints as "def main"; aliases T.boolean,
# T.i32, T.f32 and T.handle("float32") print in their long forms; Python
# numbers adopt the other operand's dtype; T.float32(0.1) keeps its double.
@T.prim_func(private=True)
def helper(x: T.Buffer((16,), "float32"), flag: T.boolean, k: T.i32, f: T.f32, p: T.handle("float32")):
    y = T.decl_buffer((16,), data=p)
    for i in range(16):
        if flag:
            x[i] = x[i] * f + T.float32(0.1) + T.float32(1) + 2
        else:
            x[i] = T.min(y[i], T.max_value("float32")) + T.Cast("float32", k)
