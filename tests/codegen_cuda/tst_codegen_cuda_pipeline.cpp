// The CUDA codegen behind the GPU lowering pipeline ("tir_lowering_cuda": SplitHostDevice and
// LowerDeviceKernelLaunch): GPU PrimFuncs as a user writes them are lowered, the device kernels
// they split off are printed as CUDA C, checked against the host's launch calls, and compiled by
// NVRTC for sm_90.

#include <QTest>

#include "cuda_test_util.h"
#include "transform/registry.h"

using namespace wb;
using namespace wb::testing;

namespace {

ir::IRModule Lower(const ir::IRModule& mod) {
  DiagnosticList diags;
  auto pass = transform::BuildPipeline("tir_lowering_cuda", diags);
  if (!pass) qFatal("pipeline: %s", RenderDiagnostics(diags).c_str());
  try {
    return (*pass)(mod);
  } catch (const DiagnosticError& e) {
    qFatal("lowering failed: %s", e.what());
  }
}

}  // namespace

class TestCodegenCudaPipeline : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  void twoLaunchRegions() {
    // Two launch regions: a symbolic grid, then a single block with a scalar parameter.
    ir::IRModule lowered = Lower(ParseDevice(R"(
@I.ir_module
class Module:
    @T.prim_func
    def main(n: T.int32, a: T.handle, b: T.handle, c: T.float32):
        A = T.match_buffer(a, (n,))
        B = T.match_buffer(b, (n,))
        with T.launch_thread("blockIdx.x", (n + 63) // 64) as bx:
            tx = T.launch_thread("threadIdx.x", 64)
            if bx * 64 + tx < n:
                B[bx * 64 + tx] = A[bx * 64 + tx] * T.float32(2.0)
        with T.launch_thread("threadIdx.x", n) as tx:
            A[tx] = B[tx] + c
)"));
    codegen::CudaSource src = GenerateOk(lowered);
    const std::string& c = src.code;
    QCOMPARE(src.kernels.size(), size_t{2});
    QCOMPARE(src.kernels[0].name, std::string("main_kernel"));
    QCOMPARE(src.kernels[1].name, std::string("main_kernel_1"));
    // The kernels' parameters in the order the host passes them, then the launch values.
    QCOMPARE(src.kernels[0].arg_dtypes, (std::vector<std::string>{"handle", "handle", "int32"}));
    QCOMPARE(src.kernels[0].launch_param_tags,
             (std::vector<std::string>{"blockIdx.x", "threadIdx.x"}));
    QCOMPARE(src.kernels[1].arg_dtypes,
             (std::vector<std::string>{"handle", "handle", "float32", "int32"}));
    QCOMPARE(src.kernels[1].launch_param_tags, (std::vector<std::string>{"threadIdx.x"}));
    CUDA_EXPECT(
        c,
        "__launch_bounds__(64) main_kernel(float* __restrict__ A, float* __restrict__ B, int n)");
    CUDA_EXPECT(c, "B[((bx * 64) + tx)] = (A[((bx * 64) + tx)] * 2.0f);");
    // A symbolic block size: no launch bounds.
    CUDA_EXPECT(
        c,
        "extern \"C\" __global__ void main_kernel_1(float* __restrict__ A, float* __restrict__ "
        "B, float c, int n)");
    QVERIFY(!Contains(c, " main("));  // the host function stays on the host
    CUDA_EXPECT_COMPILES(c);
  }

  void scheduledBlocksWithThreadBindings() {
    // A scheduled elementwise function: blocks under loops bound to blockIdx/threadIdx.
    ir::IRModule lowered = Lower(ParseDevice(R"(
@T.prim_func(s_tir=True)
def scale(A: T.Buffer((1024,), "float32"), B: T.Buffer((1024,), "float32")):
    for i_0 in T.thread_binding(8, thread="blockIdx.x"):
        for i_1 in T.thread_binding(128, thread="threadIdx.x"):
            with T.sblock("B"):
                vi = T.axis.spatial(1024, i_0 * 128 + i_1)
                B[vi] = A[vi] * T.float32(3)
)"));
    codegen::CudaSource src = GenerateOk(lowered);
    const std::string& c = src.code;
    QCOMPARE(src.kernels.size(), size_t{1});
    QCOMPARE(src.kernels[0].name, std::string("scale_kernel"));
    CUDA_EXPECT(c, "__launch_bounds__(128) scale_kernel(");
    CUDA_EXPECT(c, "= ((int)blockIdx.x);");
    CUDA_EXPECT(c, "* 3.0f);");
    CUDA_EXPECT_COMPILES(c);
  }

  void sharedMemoryInAHostLoop() {
    ir::IRModule lowered = Lower(ParseDevice(R"(
@I.ir_module
class Module:
    @T.prim_func
    def main(A: T.Buffer((4, 32), "float32"), B: T.Buffer((4, 32), "float32")):
        for i in range(4):
            tx = T.launch_thread("threadIdx.x", 32)
            S = T.alloc_buffer((32,), scope="shared")
            S[tx] = A[i, tx]
            T.tvm_storage_sync("shared")
            B[i, tx] = S[31 - tx]
)"));
    codegen::CudaSource src = GenerateOk(lowered);
    const std::string& c = src.code;
    QCOMPARE(src.kernels.size(), size_t{1});
    CUDA_EXPECT(c, "__shared__ __align__(16) float S[32];");
    CUDA_EXPECT(c, "__syncthreads();");
    // The host loop variable is a kernel parameter.
    QCOMPARE(src.kernels[0].arg_dtypes.back(), std::string("int32"));
    CUDA_EXPECT_COMPILES(c);
  }
};

QTEST_APPLESS_MAIN(TestCodegenCudaPipeline)
#include "tst_codegen_cuda_pipeline.moc"
