// Build for the `cuda` target: the GPU lowering pipeline, CUDA C through NVRTC to PTX, the
// host code through MakePackedAPI and LLVM, the host module importing the CUDA module. Where
// there is no GPU (here and in CI) the build still works and running says clearly why it cannot;
// `workbench --batch --target cuda` builds, then exits with status 3. On a GPU (label `gpu`
// for tst_cuda_run) the kernels run and equal the TIR interpreter.

#include <QTest>

#include <sstream>

#include "codegen/build_cuda.h"
#include "codegen/cuda/codegen_cuda.h"
#include "cuda_test_util.h"
#include "runtime/ndarray_device.h"
#include "script/tvmscript.h"
#include "tir/interpreter.h"
#include "transform/registry.h"
#include "driver/driver.h"
#include "workbench/run_check.h"

using namespace wb;
using namespace wb::testing;

namespace {

ir::IRModule VectorAdd() {
  script::ParseResult parsed = script::Parse(ReadTestFile("vector_add.py"), "vector_add.py");
  if (!parsed.ok()) qFatal("parse: %s", RenderDiagnostics(parsed.diagnostics).c_str());
  return parsed.module;
}

ir::IRModule SplitAdd() {
  script::ParseResult parsed = script::Parse(ReadTestFile("split_add.py"), "split_add.py");
  if (!parsed.ok()) qFatal("parse: %s", RenderDiagnostics(parsed.diagnostics).c_str());
  return parsed.module;
}

codegen::Target Cuda() {
  std::string error;
  auto t = codegen::ParseTarget("cuda -arch=sm_90", &error);
  if (!t) qFatal("target: %s", error.c_str());
  return *t;
}

std::string DataPath(const std::string& name) {
  const char* dir = std::getenv("WB_TEST_DATA_DIR");
  return std::string(dir ? dir : ".") + "/" + name;
}

}  // namespace

// Skips where a cuda build cannot be made: a build without NVRTC, or without the GPU lowering
// pipeline (theLoweringPipelineIsNamed checks that message).
#define WB_REQUIRE_CUDA_BUILD()                                                                    \
  do {                                                                                             \
    if (!codegen::NvrtcAvailable()) QSKIP("no NVRTC in this build (CUDA toolkit not found)");      \
    if (!transform::PassRegistry::Global().FindPipeline(codegen::kCudaLoweringPipeline)) {         \
      QSKIP("the GPU lowering pipeline tir_lowering_cuda is not registered in this build");        \
    }                                                                                              \
  } while (0)

class TstCudaBuild : public QObject {
  Q_OBJECT
 private Q_SLOTS:
  void theLoweringPipelineIsNamed() {
    if (transform::PassRegistry::Global().FindPipeline(codegen::kCudaLoweringPipeline)) {
      // Registered: an unknown pipeline given instead is reported, not ignored.
      codegen::BuildOptions options;
      options.pipeline = "NoSuchPass";
      codegen::BuildResult r = codegen::Build(VectorAdd(), Cuda(), options);
      QVERIFY(!r.ok());
      QVERIFY(!r.diagnostics.empty());
      return;
    }
    codegen::BuildResult r = codegen::Build(VectorAdd(), Cuda());
    QVERIFY(!r.ok());
    std::string text = RenderDiagnostics(r.diagnostics);
    QVERIFY2(text.find("pipeline not registered") != std::string::npos, text.c_str());
  }

  void buildsWithoutAGpu() {
    WB_REQUIRE_CUDA_BUILD();
    codegen::BuildResult r = codegen::Build(VectorAdd(), Cuda());
    QVERIFY2(r.ok(), RenderDiagnostics(r.diagnostics).c_str());
    QCOMPARE(r.module->type_key(), std::string("llvm"));
    QCOMPARE(codegen::CountCudaKernels(r.module), size_t{1});
    std::string cuda = r.module->GetSource("cuda");
    std::string ptx = r.module->GetSource("ptx");
    QVERIFY2(cuda.find("__global__") != std::string::npos, cuda.c_str());
    QVERIFY2(cuda.find("vector_add_kernel") != std::string::npos, cuda.c_str());
    QVERIFY2(ptx.find(".entry vector_add_kernel") != std::string::npos, ptx.c_str());
    QVERIFY2(ptx.find(".target sm_90") != std::string::npos, ptx.substr(0, 400).c_str());
    // The lowered module: the host entry (packed) and the kernel (calling_conv 2).
    int kernels = 0;
    for (const auto& f : r.lowered->functions) {
      const ir::Object* cc = f->GetAttr("calling_conv");
      if (cc && static_cast<const ir::IntObj*>(cc)->value == 2) ++kernels;
    }
    QCOMPARE(kernels, 1);
  }

  void buildsAModuleAlreadySplitIntoHostAndKernel() {
    // No GPU lowering needed: the host code's call_packed, MakePackedAPI for cuda tensors, the
    // kernel through CodegenCUDA and NVRTC, the host module importing the CUDA module.
    if (!codegen::NvrtcAvailable()) QSKIP("no NVRTC in this build (CUDA toolkit not found)");
    codegen::BuildOptions options;
    options.pipeline = codegen::kNoLowering;
    codegen::BuildResult r = codegen::Build(SplitAdd(), Cuda(), options);
    QVERIFY2(r.ok(), RenderDiagnostics(r.diagnostics).c_str());
    QCOMPARE(codegen::CountCudaKernels(r.module), size_t{1});
    QCOMPARE(r.module->FunctionNames(), std::vector<std::string>{"add"});
    QVERIFY(r.module->GetSource("cuda").find("__global__ void __launch_bounds__(256) add_kernel(") != std::string::npos);
    QVERIFY(r.module->GetSource("ptx").find(".entry add_kernel(") != std::string::npos);
    QVERIFY(r.module->GetSource("ll").find("__WBFuncCall") != std::string::npos);
    runtime::NDArray a = runtime::NDArray::Empty({1000}, runtime::Float(32));
    try {
      r.module.get_function("add")(a, a, a);
      QFAIL("CPU tensors must be refused");
    } catch (const runtime::Error& e) {
      QCOMPARE(std::string(e.what()), std::string("add: argument 0 (A) must be on a CUDA device"));
    }
    // The reference a GPU run is checked against: the interpreter runs the host function and
    // its kernel launch.
    runtime::NDArray b = runtime::NDArray::Empty({1000}, runtime::Float(32));
    runtime::NDArray c = runtime::NDArray::Empty({1000}, runtime::Float(32));
    runtime::FillRandom(a, 1);
    runtime::FillRandom(b, 2);
    tir::InterpretResult ir = tir::InterpretModule(SplitAdd(), "add", {a, b, c});
    QVERIFY2(ir.ok(), RenderDiagnostics(ir.diagnostics).c_str());
    for (int i = 0; i < 1000; ++i) QCOMPARE(c.GetDouble(i), double(float(a.GetDouble(i) + b.GetDouble(i))));
  }

  void runningWithoutAGpuSaysWhy() {
    std::string why;
    if (runtime::cuda::CudaAvailable(&why)) QSKIP("a CUDA device is present");
    if (!codegen::NvrtcAvailable()) QSKIP("no NVRTC in this build (CUDA toolkit not found)");
    // Already split: Build takes it as lowered (no pipeline needed).
    workbench::CompiledModule compiled = workbench::Compile(SplitAdd(), Cuda());
    QVERIFY2(compiled.ok(), RenderDiagnostics(compiled.diagnostics).c_str());
    workbench::RunCheckRequest request;
    request.module = SplitAdd();
    workbench::RunCheckResult result = workbench::RunCompiled(compiled, request);
    QVERIFY(result.functions.empty());
    QCOMPARE(result.message, "no CUDA device: " + why);
  }

  void batchBuildsThenSaysThereIsNoGpu() {
    std::string why;
    if (runtime::cuda::CudaAvailable(&why)) QSKIP("a CUDA device is present");
    if (!codegen::NvrtcAvailable()) QSKIP("no NVRTC in this build (CUDA toolkit not found)");
    std::ostringstream out, err;
    int rc = driver::RunBatch({DataPath("split_add.py"), "--target", "cuda", "--run", "--profile"}, out, err);
    QVERIFY2(rc == 3, err.str().c_str());
    QCOMPARE(err.str(), "workbench: built for " + Cuda().str() +
                            " (1 kernel(s)), but there is no GPU to run on: no CUDA device: " + why + "\n");
  }

  void batchEmitsCudaAndPtx() {
    if (!codegen::NvrtcAvailable()) QSKIP("no NVRTC in this build (CUDA toolkit not found)");
    std::ostringstream out, err;
    QCOMPARE(driver::RunBatch({DataPath("split_add.py"), "--emit", "cuda"}, out, err), 0);
    QVERIFY2(out.str().find("__global__ void __launch_bounds__(256) add_kernel(") != std::string::npos, out.str().c_str());
    std::ostringstream ptx, err2;
    QCOMPARE(driver::RunBatch({DataPath("split_add.py"), "--target", "cuda -arch=sm_80", "--emit", "ptx"}, ptx, err2), 0);
    QVERIFY2(ptx.str().find(".target sm_80") != std::string::npos, ptx.str().substr(0, 400).c_str());
    QVERIFY(ptx.str().find(".entry add_kernel(") != std::string::npos);
    // A CPU target has no device code to show.
    std::ostringstream none, err3;
    QCOMPARE(driver::RunBatch({DataPath("split_add.py"), "--target", "llvm", "--emit", "ptx"}, none, err3), 1);
  }
};

QTEST_APPLESS_MAIN(TstCudaBuild)
#include "tst_cuda_build.moc"
