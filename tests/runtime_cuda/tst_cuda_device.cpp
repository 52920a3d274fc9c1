// The CUDA runtime on a GPU (label `gpu`; every test skips with "no CUDA device: <reason>"
// elsewhere): device arrays and copies, the lazily loaded module launching a kernel with the
// launch parameters' grid and block, CUDA-event timing, and the device's properties.

#include <QTest>

#include "cuda_test_util.h"
#include "runtime/cuda/cuda_device_api.h"
#include "runtime/cuda/cuda_time_evaluator.h"
#include "runtime/ndarray.h"
#include "runtime/ndarray_device.h"

using namespace wb;
using namespace wb::testing;

class TstCudaDevice : public QObject {
  Q_OBJECT
 private Q_SLOTS:
  void deviceProperties() {
    WB_REQUIRE_CUDA();
    runtime::cuda::CudaDeviceInfo info = runtime::cuda::GetDeviceInfo(0);
    QVERIFY(!info.name.empty());
    QVERIFY(info.cc_major >= 5);
    QVERIFY(info.sm_count > 0);
    QVERIFY(info.total_memory > 0);
    QCOMPARE(runtime::cuda::DetectArch(0), info.arch());
    qInfo("%s: %s, %d SMs, %.1f GiB, peak %.0f GB/s", info.name.c_str(), info.arch().c_str(), info.sm_count,
          info.total_memory / double(1 << 30), info.peak_bandwidth_gbps);
  }

  void arraysRoundTripThroughTheDevice() {
    WB_REQUIRE_CUDA();
    runtime::NDArray host = runtime::NDArray::Empty({3, 5}, runtime::Float(32));
    runtime::FillRandom(host, 7);
    runtime::NDArray dev = host.CopyTo(runtime::CUDA(0));
    QCOMPARE(dev.device().device_type, runtime::kDLCUDA);
    QVERIFY(dev->data != host->data);
    runtime::NDArray dev2 = dev.Copy();  // device to device
    QCOMPARE(dev2.device().device_type, runtime::kDLCUDA);
    runtime::NDArray back = dev2.CopyTo(runtime::CPU());
    QVERIFY2(runtime::Compare(back, host, {}).ok, runtime::Compare(back, host, {}).message.c_str());
    // Fresh device memory is zero-filled, as host memory is.
    runtime::NDArray zeros = runtime::NDArray::Empty({64}, runtime::Int(32), runtime::CUDA(0)).CopyTo(runtime::CPU());
    for (int i = 0; i < 64; ++i) QCOMPARE(zeros.GetInt(i), int64_t{0});
    std::vector<float> bytes(15);
    std::string error;
    QVERIFY2(dev.CopyToBytes(bytes.data(), bytes.size() * 4, &error), error.c_str());
    QCOMPARE(double(bytes[14]), host.GetDouble(14));
    try {
      dev.GetDouble(0);
      QFAIL("element access on device memory must fail");
    } catch (const runtime::Error& e) {
      QVERIFY(std::string(e.what()).find("copy the array to the CPU first") != std::string::npos);
    }
  }

  void aKernelLaunchesWithItsLaunchParameters() {
    WB_REQUIRE_CUDA();
    const int n = 1000;
    runtime::NDArray host = runtime::NDArray::Empty({n}, runtime::Float(32));
    for (int i = 0; i < n; ++i) host.SetDouble(i, i);
    runtime::NDArray dev = host.CopyTo(runtime::CUDA(0));
    runtime::Module m = AddOneModule();
    runtime::PackedFunc add_one = m.get_function("add_one");
    // (params..., blockIdx.x, threadIdx.x): 4 x 256 threads cover the 1000 elements.
    add_one(dev, n, 4, 256);
    // A raw device pointer, as host code's call_packed passes it.
    add_one(runtime::PackedArg(WBValue{.v_handle = dev->data}, kWBOpaqueHandle), n, 4, 256);
    // An empty grid launches nothing.
    add_one(dev, n, 0, 256);
    runtime::NDArray back = dev.CopyTo(runtime::CPU());
    for (int i = 0; i < n; ++i) QCOMPARE(back.GetDouble(i), double(i + 2));
  }

  void aLaunchErrorIsExplained() {
    WB_REQUIRE_CUDA();
    runtime::NDArray dev = runtime::NDArray::Empty({4}, runtime::Float(32), runtime::CUDA(0));
    runtime::PackedFunc add_one = AddOneModule().get_function("add_one");
    try {
      add_one(dev, 4, 1, 4096);  // more threads per block than any GPU has
      QFAIL("the launch must fail");
    } catch (const runtime::Error& e) {
      QVERIFY2(std::string(e.what()).find("launching CUDA kernel add_one (grid (1, 1, 1), block (4096, 1, 1)") == 0,
               e.what());
    }
  }

  void eventTiming() {
    WB_REQUIRE_CUDA();
    const int n = 1 << 20;
    runtime::NDArray dev = runtime::NDArray::Empty({n}, runtime::Float(32), runtime::CUDA(0));
    runtime::PackedFunc add_one = AddOneModule().get_function("add_one");
    runtime::TimeEvaluatorOptions options{.number = 5, .repeat = 3};
    runtime::TimeEvaluatorResult r = runtime::cuda::TimeEvaluateCuda(add_one, {dev, n, n / 256, 256}, options);
    QCOMPARE(r.samples_s.size(), size_t{3});
    QCOMPARE(r.total_calls, int64_t{16});
    for (double s : r.samples_s) QVERIFY(s > 0 && s < 1);
    runtime::NDArray back = dev.CopyTo(runtime::CPU());
    QCOMPARE(back.GetDouble(n - 1), 16.0);
  }
};

QTEST_APPLESS_MAIN(TstCudaDevice)
#include "tst_cuda_device.moc"
