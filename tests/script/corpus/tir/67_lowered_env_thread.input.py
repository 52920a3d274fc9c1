# from tvm.script import tirx as T

# Lowered GPU code in the form a pass author writes it: env_thread variables
# each launched once (the printer prefers the string form), integer-shaped
# decl_buffer views, and a decl_buffer without data= (an allocation).
@T.prim_func
def main(A: T.Buffer((16, 16), "float32"), C: T.Buffer((16, 16), "float32")):
    A_flat = T.decl_buffer(256, data=A.data)
    C_flat = T.decl_buffer(256, "float32", data=C.data)
    bx = T.env_thread("blockIdx.x")
    tx = T.env_thread("threadIdx.x")
    T.launch_thread(bx, 4)
    T.launch_thread(tx, 4)
    B = T.decl_buffer([16], "float32", scope="local")
    for j in range(0, 16):
        B[j] = A_flat[(bx * 4 + tx) * 16 + j] + 1.0
    for j in range(0, 16):
        C_flat[(bx * 4 + tx) * 16 + j] = B[j] * 2.0
