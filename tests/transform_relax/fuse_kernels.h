// TensorIR kernels in the form LegalizeOps gives them (one block a computation, op_pattern set
// as AnnotateTIROpPattern sets it), shared by the FuseOps and FuseTIR tests. Shapes: x (4, 8),
// w (8, 16), b (16,), activations (4, 16).
#pragma once

#include <string>

namespace fuse_test {

inline const char* kModuleHeader = R"(
@I.ir_module
class Module:
)";

inline const char* kMatmul = R"(
    @T.prim_func(private=True)
    def matmul(A: T.Buffer((4, 8), "float32"), B: T.Buffer((8, 16), "float32"), C: T.Buffer((4, 16), "float32")):
        T.func_attr({"op_pattern": 4})
        for i, j, k in T.grid(4, 16, 8):
            with T.sblock("matmul"):
                vi, vj, vk = T.axis.remap("SSR", [i, j, k])
                with T.init():
                    C[vi, vj] = T.float32(0.0)
                C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj]
)";

inline const char* kBiasAdd = R"(
    @T.prim_func(private=True)
    def bias_add(A: T.Buffer((4, 16), "float32"), B: T.Buffer((16,), "float32"), C: T.Buffer((4, 16), "float32")):
        T.func_attr({"op_pattern": 0})
        for i, j in T.grid(4, 16):
            with T.sblock("T_add"):
                vi, vj = T.axis.remap("SS", [i, j])
                C[vi, vj] = A[vi, vj] + B[vj]
)";

inline const char* kAdd = R"(
    @T.prim_func(private=True)
    def add(A: T.Buffer((4, 16), "float32"), B: T.Buffer((4, 16), "float32"), C: T.Buffer((4, 16), "float32")):
        T.func_attr({"op_pattern": 0})
        for i, j in T.grid(4, 16):
            with T.sblock("T_add"):
                vi, vj = T.axis.remap("SS", [i, j])
                C[vi, vj] = A[vi, vj] + B[vi, vj]
)";

inline const char* kRelu = R"(
    @T.prim_func(private=True)
    def relu(A: T.Buffer((4, 16), "float32"), C: T.Buffer((4, 16), "float32")):
        T.func_attr({"op_pattern": 0})
        for i, j in T.grid(4, 16):
            with T.sblock("compute"):
                vi, vj = T.axis.remap("SS", [i, j])
                C[vi, vj] = T.max(A[vi, vj], T.float32(0.0))
)";

inline const char* kNeg = R"(
    @T.prim_func(private=True)
    def negative(A: T.Buffer((4, 16), "float32"), C: T.Buffer((4, 16), "float32")):
        T.func_attr({"op_pattern": 0})
        for i, j in T.grid(4, 16):
            with T.sblock("compute"):
                vi, vj = T.axis.remap("SS", [i, j])
                C[vi, vj] = T.float32(0.0) - A[vi, vj]
)";

inline const char* kExp = R"(
    @T.prim_func(private=True)
    def exp(A: T.Buffer((4, 16), "float32"), C: T.Buffer((4, 16), "float32")):
        T.func_attr({"op_pattern": 0})
        for i, j in T.grid(4, 16):
            with T.sblock("compute"):
                vi, vj = T.axis.remap("SS", [i, j])
                C[vi, vj] = T.exp(A[vi, vj])
)";

inline const char* kOpaqueCopy = R"(
    @T.prim_func(private=True)
    def opaque_copy(A: T.Buffer((4, 16), "float32"), C: T.Buffer((4, 16), "float32")):
        T.func_attr({"op_pattern": 8})
        for i, j in T.grid(4, 16):
            with T.sblock("copy"):
                vi, vj = T.axis.remap("SS", [i, j])
                C[vi, vj] = A[vi, vj]
)";

inline const char* kTranspose = R"(
    @T.prim_func(private=True)
    def transpose(A: T.Buffer((4, 16), "float32"), C: T.Buffer((16, 4), "float32")):
        T.func_attr({"op_pattern": 2})
        for i, j in T.grid(16, 4):
            with T.sblock("T_transpose"):
                vi, vj = T.axis.remap("SS", [i, j])
                C[vi, vj] = A[vj, vi]
)";

inline const char* kExpT = R"(
    @T.prim_func(private=True)
    def exp_t(A: T.Buffer((16, 4), "float32"), C: T.Buffer((16, 4), "float32")):
        T.func_attr({"op_pattern": 0})
        for i, j in T.grid(16, 4):
            with T.sblock("compute"):
                vi, vj = T.axis.remap("SS", [i, j])
                C[vi, vj] = T.exp(A[vi, vj])
)";

inline const char* kSum = R"(
    @T.prim_func(private=True)
    def sum(A: T.Buffer((4, 16), "float32"), B: T.Buffer((4,), "float32")):
        T.func_attr({"op_pattern": 3})
        for i, k in T.grid(4, 16):
            with T.sblock("A_red"):
                vi, vk = T.axis.remap("SR", [i, k])
                with T.init():
                    B[vi] = T.float32(0.0)
                B[vi] = B[vi] + A[vi, vk]
)";

// The MLP after FuseOps: matmul, bias_add and relu in one Primitive function. FuseOps's expected
// output and FuseTIR's input.
inline const std::string kMlpGrouped = R"(
    @R.function(private=True)
    def fused_matmul_bias_add_relu(x: R.Tensor((4, 8), dtype="float32"), w: R.Tensor((8, 16), dtype="float32"), b: R.Tensor((16,), dtype="float32")) -> R.Tensor((4, 16), dtype="float32"):
        R.func_attr({"Primitive": True})
        cls = Module
        with R.dataflow():
            lv = R.call_tir(cls.matmul, (x, w), out_ty=R.Tensor((4, 16), dtype="float32"))
            lv1 = R.call_tir(cls.bias_add, (lv, b), out_ty=R.Tensor((4, 16), dtype="float32"))
            gv = R.call_tir(cls.relu, (lv1,), out_ty=R.Tensor((4, 16), dtype="float32"))
            R.output(gv)
        return gv

    @R.function
    def main(x: R.Tensor((4, 8), dtype="float32"), w: R.Tensor((8, 16), dtype="float32"), b: R.Tensor((16,), dtype="float32")) -> R.Tensor((4, 16), dtype="float32"):
        cls = Module
        with R.dataflow():
            gv = cls.fused_matmul_bias_add_relu(x, w, b)
            R.output(gv)
        return gv
)";

// A module of `kernels` followed by `functions` (Relax functions, indented as class members).
inline std::string ModuleOf(std::initializer_list<const char*> kernels,
                            const std::string& functions) {
  std::string text = kModuleHeader;
  for (const char* k : kernels) text += k;
  return text + functions;
}

}  // namespace fuse_test
