// A GPU build exported as a `.so` keeps its kernels (runs everywhere; the GPU half is the
// "vm" case anExportedCudaVmLibraryRuns of gpu_cases.cpp): the CUDA module travels inside the
// library, LoadModule imports it back, and the host code's call_packed finds the kernel through
// the module context, so that without a GPU a call gets as far as the launch and says why.
#include <QTemporaryDir>
#include <QTest>

#include <fstream>
#include <sstream>

#include "codegen/build_cuda.h"
#include "codegen/cuda/codegen_cuda.h"
#include "codegen/vm_codegen.h"
#include "cuda_test_util.h"
#include "runtime/cuda/cuda_driver.h"
#include "runtime/ndarray_device.h"
#include "runtime/vm/library.h"
#include "runtime/vm/vm.h"
#include "script/tvmscript.h"

using namespace wb;
using namespace wb::testing;

namespace {

ir::IRModule ParseText(const std::string& text, const std::string& name) {
  script::ParseResult parsed = script::Parse(text, name);
  if (!parsed.ok()) qFatal("parse: %s", RenderDiagnostics(parsed.diagnostics).c_str());
  return parsed.module;
}

ir::IRModule Mlp() {
  const char* root = std::getenv("WB_SOURCE_DIR");
  std::ifstream in(std::string(root ? root : ".") + "/resources/examples/mlp.py");
  std::stringstream ss;
  ss << in.rdbuf();
  return ParseText(ss.str(), "mlp.py");
}

codegen::Target Cuda() {
  std::string error;
  auto t = codegen::ParseTarget("cuda -arch=sm_90", &error);
  if (!t) qFatal("target: %s", error.c_str());
  return *t;
}

}  // namespace

class TstCudaExport : public QObject {
  Q_OBJECT
 private Q_SLOTS:
  void initTestCase() {
    if (!codegen::NvrtcAvailable()) QSKIP("no NVRTC in this build (CUDA toolkit not found)");
  }

  void anExportedCudaBuildImportsItsKernelsBack() {
    codegen::BuildOptions options;
    options.pipeline = codegen::kNoLowering;
    codegen::BuildResult built = codegen::Build(ParseText(ReadTestFile("split_add.py"), "split_add.py"), Cuda(), options);
    QVERIFY2(built.ok(), RenderDiagnostics(built.diagnostics).c_str());
    QTemporaryDir tmp;
    std::string path = tmp.filePath("split_add.so").toStdString();
    std::string error;
    QVERIFY2(built.module->ExportLibrary(path, &error), error.c_str());
    runtime::Module loaded = runtime::LoadModule(path, &error);
    QVERIFY2(loaded.defined(), error.c_str());
    QCOMPARE(loaded->imports().size(), size_t{1});
    const auto& cuda = loaded->imports()[0];
    QCOMPARE(cuda->type_key(), std::string("cuda"));
    QCOMPARE(cuda->FunctionNames(), built.module->imports()[0]->FunctionNames());
    QCOMPARE(cuda->GetSource("ptx"), built.module->GetSource("ptx"));
    QCOMPARE(cuda->GetSource("cuda"), built.module->GetSource("cuda"));
    QVERIFY(loaded.get_function("add").defined());
  }

  void theLoadedHostCodeFindsItsKernelThroughTheModuleContext() {
    std::string why;
    if (runtime::cuda::CudaAvailable(&why)) QSKIP("a CUDA device is present (the GPU case runs it)");
    codegen::BuildOptions options;
    options.pipeline = codegen::kNoLowering;
    codegen::BuildResult built = codegen::Build(ParseText(ReadTestFile("split_add.py"), "split_add.py"), Cuda(), options);
    QVERIFY2(built.ok(), RenderDiagnostics(built.diagnostics).c_str());
    QTemporaryDir tmp;
    std::string path = tmp.filePath("split_add.so").toStdString();
    std::string error;
    QVERIFY2(built.module->ExportLibrary(path, &error), error.c_str());
    runtime::Module loaded = runtime::LoadModule(path, &error);
    QVERIFY2(loaded.defined(), error.c_str());
    // Tensors that claim to be on cuda(0) (host memory; nothing reads it): the host code's
    // checks pass, call_packed looks "add_kernel" up through the module context and calls the
    // imported CUDA module, which stops at the launch.
    struct alignas(64) Block {
      float values[1024];
    };
    std::vector<Block> memory(3);
    int64_t shape[1] = {1000};
    runtime::DLTensor t[3];
    for (int i = 0; i < 3; ++i) {
      t[i].data = memory[i].values;
      t[i].device = runtime::CUDA(0);
      t[i].ndim = 1;
      t[i].dtype = runtime::Float(32);
      t[i].shape = shape;
    }
    try {
      loaded.get_function("add")(&t[0], &t[1], &t[2]);
      QFAIL("the call must fail without a GPU");
    } catch (const runtime::Error& e) {
      QVERIFY2(std::string(e.what()).find("no CUDA device") != std::string::npos, e.what());
    }
  }

  void anExportedCudaVmLibraryKeepsItsKernels() {
    codegen::VMBuildResult built = codegen::BuildVM(Mlp(), Cuda());
    QVERIFY2(built.ok(), RenderDiagnostics(built.diagnostics).c_str());
    QTemporaryDir tmp;
    std::string path = tmp.filePath("mlp.so").toStdString();
    std::string error;
    QVERIFY2(codegen::ExportVMLibrary(built, Cuda(), path, &error), error.c_str());
    auto lib = runtime::vm::LoadVMLibrary(path, &error);
    QVERIFY2(lib, error.c_str());
    QVERIFY(lib->kernels.defined());
    QCOMPARE(lib->kernels->imports().size(), size_t{1});
    QCOMPARE(lib->kernels->imports()[0]->FunctionNames().size(), size_t{4});
    QCOMPARE(lib->kernels->imports()[0]->GetSource("ptx"), built.kernels->GetSource("ptx"));
    std::string why;
    if (runtime::cuda::CudaAvailable(&why)) return;
    runtime::vm::VirtualMachine machine(lib->exec, lib->kernels, runtime::CUDA(0));
    std::vector<runtime::vm::Value> args;
    for (std::vector<int64_t> shape : std::vector<std::vector<int64_t>>{{8, 32}, {32, 64}, {64}, {64, 10}, {10}}) {
      args.push_back(runtime::vm::Value::Tensor(runtime::NDArray::Empty(shape, runtime::Float(32))));
    }
    try {
      machine.Invoke("main", args);
      QFAIL("the VM must not run without a GPU");
    } catch (const std::exception& e) {
      QVERIFY2(std::string(e.what()).find("no CUDA device") != std::string::npos, e.what());
    }
  }
};

QTEST_APPLESS_MAIN(TstCudaExport)
#include "tst_cuda_export.moc"
