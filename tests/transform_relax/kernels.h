// Small PrimFuncs the Relax pass tests call through R.call_tir, so that every case runs in the
// Relax interpreter without op legalization. Spliced into an `@I.ir_module class Module:` body.
#pragma once

namespace relax_pass_test {

constexpr const char* kKernels = R"(
    @T.prim_func(private=True)
    def add(x: T.Buffer((4,), "float32"), y: T.Buffer((4,), "float32"), out: T.Buffer((4,), "float32")):
        for i in range(4):
            out[i] = x[i] + y[i]

    @T.prim_func(private=True)
    def mul(x: T.Buffer((4,), "float32"), y: T.Buffer((4,), "float32"), out: T.Buffer((4,), "float32")):
        for i in range(4):
            out[i] = x[i] * y[i]

    @T.prim_func(private=True)
    def relu(x: T.Buffer((4,), "float32"), out: T.Buffer((4,), "float32")):
        for i in range(4):
            out[i] = T.max(x[i], T.float32(0.0))
)";

// "@I.ir_module\nclass Module:" + the kernels + `functions` (indented as class members).
inline std::string WithKernels(const std::string& functions) {
  return std::string("@I.ir_module\nclass Module:") + kKernels + "\n" + functions;
}

}  // namespace relax_pass_test
