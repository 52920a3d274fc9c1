#include "runtime/cuda/cuda_device_api.h"

#include <mutex>
#include <vector>

#include "runtime/ndarray_device.h"
#include "runtime/packed_func.h"

namespace wb::runtime::cuda {

namespace {

const CudaDriver& Driver() {
  std::string why;
  const CudaDriver* d = GetCudaDriver(&why);
  if (!d) throw Error("no CUDA device: " + why);
  return *d;
}

CUdeviceptr Ptr(const void* p) { return static_cast<CUdeviceptr>(reinterpret_cast<uintptr_t>(p)); }

class CudaDeviceAPI final : public DeviceAPI {
 public:
  void* AllocDataSpace(int device_id, size_t bytes) override {
    SetDevice(device_id);
    const CudaDriver& d = Driver();
    CUdeviceptr ptr = 0;
    CUresult r = d.cuMemAlloc(&ptr, bytes == 0 ? 64 : bytes);
    if (r != kCudaSuccess) {
      throw Error("cuda(" + std::to_string(device_id) + "): cannot allocate " + std::to_string(bytes) +
                  " bytes: " + CudaErrorText(r));
    }
    // Zero-filled, as host arrays are: a kernel that reads before writing sees the same values.
    CheckCuda(d.cuMemsetD8Async(ptr, 0, bytes == 0 ? 64 : bytes, CurrentStream(device_id)), "cuMemsetD8Async");
    StreamSync(device_id);
    return reinterpret_cast<void*>(static_cast<uintptr_t>(ptr));
  }

  void FreeDataSpace(int device_id, void* ptr) override {
    // Never throws: called from destructors. The driver may already be shutting down at exit.
    const CudaDriver* d = GetCudaDriver();
    if (!d || !ptr) return;
    try {
      SetDevice(device_id);
    } catch (const Error&) {
      return;
    }
    d->cuMemFree(Ptr(ptr));
  }

  void CopyHostToDevice(int device_id, void* dst, const void* src, size_t bytes) override {
    SetDevice(device_id);
    CheckCuda(Driver().cuMemcpyHtoDAsync(Ptr(dst), src, bytes, CurrentStream(device_id)), "cuMemcpyHtoDAsync");
    StreamSync(device_id);
  }

  void CopyDeviceToHost(int device_id, void* dst, const void* src, size_t bytes) override {
    SetDevice(device_id);
    CheckCuda(Driver().cuMemcpyDtoHAsync(dst, Ptr(src), bytes, CurrentStream(device_id)), "cuMemcpyDtoHAsync");
    StreamSync(device_id);
  }

  void CopyDeviceToDevice(int device_id, void* dst, const void* src, size_t bytes) override {
    SetDevice(device_id);
    CheckCuda(Driver().cuMemcpyDtoDAsync(Ptr(dst), Ptr(src), bytes, CurrentStream(device_id)), "cuMemcpyDtoDAsync");
    StreamSync(device_id);
  }

  void StreamSync(int device_id) override { cuda::StreamSync(device_id); }
};

[[maybe_unused]] const bool kRegistered = [] {
  static CudaDeviceAPI api;
  DeviceAPI::Register(kDLCUDA, &api);
  return true;
}();

}  // namespace

void SetDevice(int device_id) {
  const CudaDriver& d = Driver();
  // Primary contexts, retained on first use and kept for the process's life.
  static std::mutex mutex;
  static std::vector<CUcontext> contexts;
  CUcontext ctx = nullptr;
  {
    std::lock_guard<std::mutex> lock(mutex);
    if (device_id < 0) throw Error("cuda(" + std::to_string(device_id) + "): invalid device id");
    if (static_cast<size_t>(device_id) >= contexts.size()) contexts.resize(device_id + 1, nullptr);
    if (!contexts[device_id]) {
      int count = 0;
      CheckCuda(d.cuDeviceGetCount(&count), "cuDeviceGetCount");
      if (device_id >= count) {
        throw Error("cuda(" + std::to_string(device_id) + "): there are " + std::to_string(count) +
                    " CUDA device(s)");
      }
      CUdevice dev = 0;
      CheckCuda(d.cuDeviceGet(&dev, device_id), "cuDeviceGet");
      CheckCuda(d.cuDevicePrimaryCtxRetain(&contexts[device_id], dev), "cuDevicePrimaryCtxRetain");
    }
    ctx = contexts[device_id];
  }
  CheckCuda(d.cuCtxSetCurrent(ctx), "cuCtxSetCurrent");
}

CUstream CurrentStream(int) { return nullptr; }

void StreamSync(int device_id) {
  SetDevice(device_id);
  CheckCuda(Driver().cuStreamSynchronize(CurrentStream(device_id)), "cuStreamSynchronize");
}

CudaDeviceInfo GetDeviceInfo(int device_id) {
  const CudaDriver& d = Driver();
  SetDevice(device_id);
  CUdevice dev = 0;
  CheckCuda(d.cuDeviceGet(&dev, device_id), "cuDeviceGet");
  CudaDeviceInfo info;
  char name[256] = {};
  CheckCuda(d.cuDeviceGetName(name, sizeof(name) - 1, dev), "cuDeviceGetName");
  info.name = name;
  auto attr = [&](int a) {
    int v = 0;
    CheckCuda(d.cuDeviceGetAttribute(&v, a, dev), "cuDeviceGetAttribute");
    return v;
  };
  info.cc_major = attr(kAttrComputeCapabilityMajor);
  info.cc_minor = attr(kAttrComputeCapabilityMinor);
  info.sm_count = attr(kAttrMultiprocessorCount);
  info.max_shared_memory_optin = attr(kAttrMaxSharedMemoryPerBlockOptin);
  CheckCuda(d.cuDeviceTotalMem(&info.total_memory, dev), "cuDeviceTotalMem");
  // Newer drivers may report 0 for the clock; the bandwidth then stays unknown (0).
  double clock_khz = attr(kAttrMemoryClockRateKHz);
  double bus_bits = attr(kAttrGlobalMemoryBusWidth);
  info.peak_bandwidth_gbps = 2.0 * clock_khz * 1e3 * (bus_bits / 8) / 1e9;
  return info;
}

std::string DetectArch(int device_id, std::string* why) {
  try {
    return GetDeviceInfo(device_id).arch();
  } catch (const Error& e) {
    if (why) *why = e.what();
    return {};
  }
}

CudaEventTimer::CudaEventTimer(int device_id) : device_id_(device_id) {
  SetDevice(device_id);
  CheckCuda(Driver().cuEventCreate(&start_, 0), "cuEventCreate");
  CheckCuda(Driver().cuEventCreate(&stop_, 0), "cuEventCreate");
}

CudaEventTimer::~CudaEventTimer() {
  if (const CudaDriver* d = GetCudaDriver()) {
    if (start_) d->cuEventDestroy(start_);
    if (stop_) d->cuEventDestroy(stop_);
  }
}

void CudaEventTimer::Start() {
  SetDevice(device_id_);
  CheckCuda(Driver().cuEventRecord(start_, CurrentStream(device_id_)), "cuEventRecord");
}

void CudaEventTimer::Stop() {
  SetDevice(device_id_);
  CheckCuda(Driver().cuEventRecord(stop_, CurrentStream(device_id_)), "cuEventRecord");
}

double CudaEventTimer::ElapsedMs() {
  CheckCuda(Driver().cuEventSynchronize(stop_), "cuEventSynchronize");
  float ms = 0;
  CheckCuda(Driver().cuEventElapsedTime(&ms, start_, stop_), "cuEventElapsedTime");
  return ms;
}

}  // namespace wb::runtime::cuda
