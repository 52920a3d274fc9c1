// The Relax VM on cuda where there may be no GPU (runs everywhere; the GPU half is the "vm"
// cases of gpu_cases.cpp): a Relax model builds for cuda (its legalized kernels scheduled by the
// default GPU rules, compiled by NVRTC), the GPU-bound kernels keep the model's meaning (the Relax
// interpreter runs them through the TIR interpreter's GPU simulation), and running without a
// GPU says why, in the VM and in `--batch --run`.
#include <QTest>

#include <fstream>
#include <sstream>

#include "codegen/build_cuda.h"
#include "codegen/cuda/codegen_cuda.h"
#include "codegen/vm_codegen.h"
#include "driver/driver.h"
#include "relax/interpreter.h"
#include "runtime/cuda/cuda_driver.h"
#include "runtime/ndarray_device.h"
#include "runtime/vm/vm.h"
#include "script/tvmscript.h"
#include "tir/functor.h"
#include "tir/stmt.h"
#include "transform/registry.h"
#include "transform/relax/legalize_ops.h"
#include "transform/tir/default_gpu_schedule.h"

using namespace wb;

namespace {

std::string MlpPath() {
  const char* root = std::getenv("WB_SOURCE_DIR");
  return std::string(root ? root : ".") + "/resources/examples/mlp.py";
}

ir::IRModule Mlp() {
  std::ifstream in(MlpPath());
  std::stringstream ss;
  ss << in.rdbuf();
  script::ParseResult parsed = script::Parse(ss.str(), "mlp.py");
  if (!parsed.ok()) qFatal("parse: %s", RenderDiagnostics(parsed.diagnostics).c_str());
  return parsed.module;
}

codegen::Target Cuda() {
  std::string error;
  auto t = codegen::ParseTarget("cuda -arch=sm_90", &error);
  if (!t) qFatal("target: %s", error.c_str());
  return *t;
}

std::vector<relax::Value> RandomInputs(uint64_t seed) {
  std::vector<std::vector<int64_t>> shapes = {{8, 32}, {32, 64}, {64}, {64, 10}, {10}};
  std::vector<relax::Value> args;
  for (const auto& shape : shapes) {
    runtime::NDArray a = runtime::NDArray::Empty(shape, runtime::Float(32));
    runtime::FillRandom(a, seed++);
    args.push_back(relax::Value::Tensor(a));
  }
  return args;
}

bool IsBoundToThreads(const tir::PrimFunc& f) {
  bool bound = false;
  tir::PostOrderVisit(f->body, [&](const ir::Object* n) {
    if (auto* loop = dynamic_cast<const tir::ForNode*>(n)) bound |= loop->kind == tir::ForKind::kThreadBinding;
  });
  return bound;
}

}  // namespace

#define WB_REQUIRE_CUDA_BUILD()                                                               \
  do {                                                                                        \
    if (!codegen::NvrtcAvailable()) QSKIP("no NVRTC in this build (CUDA toolkit not found)"); \
  } while (0)

class TstCudaVm : public QObject {
  Q_OBJECT
 private Q_SLOTS:
  void aRelaxModelBuildsForCuda() {
    WB_REQUIRE_CUDA_BUILD();
    codegen::VMBuildResult built = codegen::BuildVM(Mlp(), Cuda());
    QVERIFY2(built.ok(), RenderDiagnostics(built.diagnostics).c_str());
    // matmul, bias_relu, matmul, add: each a kernel of the CUDA module the host code launches.
    QCOMPARE(codegen::CountCudaKernels(built.kernels), size_t{4});
    QVERIFY(built.kernels->GetSource("cuda").find("__global__") != std::string::npos);
    QVERIFY(!built.kernels->GetSource("ptx").empty());
    QVERIFY(built.exec->FindFunction("main") >= 0);
  }

  void theGpuBoundKernelsKeepTheModelsMeaning() {
    // What the cuda build does to the kernels: legalized, the default GPU schedules for the
    // target (core/dlight/gpu), DefaultGPUSchedule for what they leave unbound.
    ir::IRModule module = Mlp();
    DiagnosticList diags;
    auto schedule = transform::BuildPipeline("LegalizeOps, ApplyDefaultSchedule", diags);
    QVERIFY2(schedule, RenderDiagnostics(diags).c_str());
    ir::IRModule scheduled = schedule->Run(module, codegen::VMPassContext(Cuda(), {}));
    ir::IRModule bound = transform::DefaultGPUSchedule()(scheduled);
    int kernels = 0;
    for (const auto& f : bound->functions) {
      auto prim = f.as_ref<tir::PrimFuncNode>();
      if (!prim.defined()) continue;
      ++kernels;
      QVERIFY2(IsBoundToThreads(prim), "a kernel is not bound to GPU threads");
      // Matmul takes both matmuls, Elementwise the bias + ReLU and the add: none is left to
      // the fallback.
      QVERIFY2(prim->GetAttr("tir.is_scheduled"), "a kernel no default GPU rule scheduled");
    }
    QCOMPARE(kernels, 4);
    relax::RelaxInterpretOptions options;
    options.legalize = transform::LegalizeCall;
    for (uint64_t seed : {1, 100}) {
      relax::RelaxInterpretResult want = relax::InterpretRelax(module, "main", RandomInputs(seed), options);
      QVERIFY2(want.ok(), RenderDiagnostics(want.diagnostics).c_str());
      relax::RelaxInterpretResult got = relax::InterpretRelax(bound, "main", RandomInputs(seed), options);
      QVERIFY2(got.ok(), RenderDiagnostics(got.diagnostics).c_str());
      runtime::CompareResult c = runtime::Compare(got.value.tensor, want.value.tensor, {1e-5, 1e-5});
      QVERIFY2(c.ok, c.message.c_str());
    }
  }

  void theVmOnCudaWithoutAGpuSaysWhy() {
    std::string why;
    if (runtime::cuda::CudaAvailable(&why)) QSKIP("a CUDA device is present");
    WB_REQUIRE_CUDA_BUILD();
    codegen::VMBuildResult built = codegen::BuildVM(Mlp(), Cuda());
    QVERIFY2(built.ok(), RenderDiagnostics(built.diagnostics).c_str());
    runtime::vm::VirtualMachine machine(built.exec, built.kernels, runtime::CUDA(0));
    QCOMPARE(machine.device().device_type, runtime::kDLCUDA);
    std::vector<runtime::vm::Value> args;
    for (const auto& a : RandomInputs(1)) args.push_back(runtime::vm::Value::Tensor(a.tensor));
    try {
      machine.Invoke("main", args);
      QFAIL("the VM must not run on a missing GPU");
    } catch (const std::exception& e) {
      QVERIFY2(std::string(e.what()).find("no CUDA device") != std::string::npos, e.what());
    }
  }

  void batchRunOfARelaxModelOnCudaSaysThereIsNoGpu() {
    std::string why;
    if (runtime::cuda::CudaAvailable(&why)) QSKIP("a CUDA device is present");
    WB_REQUIRE_CUDA_BUILD();
    std::ostringstream out, err;
    int rc = driver::RunBatch({MlpPath(), "--target", "cuda -arch=sm_90", "--run"}, out, err);
    QVERIFY2(rc == 3, err.str().c_str());
    QCOMPARE(err.str(), "workbench: built for " + Cuda().str() +
                            " (4 kernel(s)), but there is no GPU to run on: no CUDA device: " + why + "\n");
  }
};

QTEST_APPLESS_MAIN(TstCudaVm)
#include "tst_cuda_vm.moc"
