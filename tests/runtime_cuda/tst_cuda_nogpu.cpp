// The CUDA runtime where there is no GPU (as on the development and CI machines): availability
// is reported with its reason, a CUDA module is made and inspected without a device (its image
// loads lazily), and every attempt to use the device fails with "no CUDA device: <reason>"
// instead of crashing. On a machine with a GPU, the no-GPU expectations are skipped and the
// device's arch is checked instead.

#include <QTest>

#include "cuda_test_util.h"
#include "runtime/cuda/cuda_device_api.h"
#include "runtime/cuda/cuda_time_evaluator.h"
#include "runtime/ndarray.h"
#include "runtime/ndarray_device.h"

using namespace wb;
using namespace wb::testing;

namespace {

bool HasGpu() { return runtime::cuda::CudaAvailable(); }

template <typename Fn>
std::string ErrorOf(Fn&& fn) {
  try {
    fn();
  } catch (const runtime::Error& e) {
    return e.what();
  }
  return "(no error)";
}

}  // namespace

class TstCudaNoGpu : public QObject {
  Q_OBJECT
 private Q_SLOTS:
  void availabilityHasAReason() {
    std::string why;
    bool ok = runtime::cuda::CudaAvailable(&why);
    // Asked twice: the answer is cached and the same.
    std::string again;
    QCOMPARE(runtime::cuda::CudaAvailable(&again), ok);
    if (ok) {
      std::string arch = runtime::cuda::DetectArch(0);
      QVERIFY2(arch.rfind("sm_", 0) == 0, arch.c_str());
      QSKIP("a CUDA device is present: the no-GPU path is not taken here");
    }
    QVERIFY(!why.empty());
    QCOMPARE(again, why);
    if (why.rfind("no NVIDIA driver", 0) == 0) {
      QVERIFY2(why.find("libcuda.so.1") != std::string::npos, why.c_str());
    }
    std::string arch_why;
    QCOMPARE(runtime::cuda::DetectArch(0, &arch_why), std::string());
    QCOMPARE(arch_why, "no CUDA device: " + why);
  }

  void deviceArraysNeedADevice() {
    if (HasGpu()) QSKIP("a CUDA device is present");
    std::string why;
    runtime::cuda::CudaAvailable(&why);
    std::string e = ErrorOf([] { runtime::NDArray::Empty({4}, runtime::Float(32), runtime::CUDA(0)); });
    QCOMPARE(e, "no CUDA device: " + why);
    e = ErrorOf([] { runtime::cuda::StreamSync(0); });
    QCOMPARE(e, "no CUDA device: " + why);
    e = ErrorOf([] { runtime::cuda::CudaEventTimer timer(0); });
    QCOMPARE(e, "no CUDA device: " + why);
    // The CPU is unaffected.
    runtime::NDArray host = runtime::NDArray::Empty({4}, runtime::Float(32), runtime::CPU());
    QVERIFY(host.is_cpu());
    QCOMPARE(runtime::DeviceName(runtime::CUDA(1)), std::string("cuda(1)"));
  }

  void aModuleIsMadeAndInspectedWithoutADevice() {
    runtime::Module m = AddOneModule();
    QCOMPARE(m->type_key(), std::string("cuda"));
    QCOMPARE(m->FunctionNames(), std::vector<std::string>{"add_one"});
    QVERIFY(m->GetSource("ptx").find(".visible .entry add_one") != std::string::npos);
    QCOMPARE(m->GetSource("cuda"), std::string("// hand-written PTX\n"));
    QCOMPARE(m->GetSource("asm"), std::string());
    QVERIFY(m.get_function("add_one").defined());
    QVERIFY(!m.get_function("add_two").defined());
  }

  void launchesCheckTheirArgumentsThenNeedADevice() {
    runtime::Module m = AddOneModule();
    runtime::PackedFunc f = m.get_function("add_one");
    std::string e = ErrorOf([&] { f(nullptr, 4); });
    QCOMPARE(e, std::string("CUDA kernel add_one takes 2 parameter(s) and 2 launch parameter(s), got 2 argument(s)"));
    if (HasGpu()) QSKIP("a CUDA device is present");
    std::string why;
    runtime::cuda::CudaAvailable(&why);
    e = ErrorOf([&] { f(nullptr, 4, 1, 4); });
    QCOMPARE(e, "no CUDA device: " + why + " (cannot run kernel add_one)");
    runtime::TimeEvaluatorOptions options;
    e = ErrorOf([&] { runtime::cuda::TimeEvaluateCuda(f, {nullptr, 4, 1, 4}, options); });
    QCOMPARE(e, "no CUDA device: " + why);
  }

  void badModulesAreRejectedWhenMade() {
    using runtime::cuda::CudaFunctionInfo;
    using runtime::cuda::CudaModuleCreate;
    QCOMPARE(ErrorOf([] { CudaModuleCreate("x", "fatbin", {}); }),
             std::string("CUDA module: unknown binary format 'fatbin' (ptx or cubin)"));
    QCOMPARE(ErrorOf([] { CudaModuleCreate("x", "ptx", {CudaFunctionInfo{"k", {"float8"}, {}}}); }),
             std::string("CUDA kernel k: unsupported parameter dtype float8"));
    QCOMPARE(ErrorOf([] { CudaModuleCreate("x", "ptx", {CudaFunctionInfo{"k", {}, {"vthread"}}}); }),
             std::string("CUDA kernel k: unknown launch parameter vthread"));
  }
};

QTEST_APPLESS_MAIN(TstCudaNoGpu)
#include "tst_cuda_nogpu.moc"
