#include "runtime/cuda/cuda_driver.h"

#include <dlfcn.h>

#include <mutex>

#include "runtime/packed_func.h"

namespace wb::runtime::cuda {

namespace {

struct DriverState {
  CudaDriver driver{};
  bool ok = false;
  std::string why;  // set when !ok
};

// Resolves `names` in order (the versioned symbol first) into *slot.
template <typename Fn>
bool Resolve(void* handle, Fn* slot, std::initializer_list<const char*> names, std::string* missing) {
  for (const char* name : names) {
    if (void* p = dlsym(handle, name)) {
      *slot = reinterpret_cast<Fn>(p);
      return true;
    }
  }
  *missing = *names.begin();
  return false;
}

DriverState Open() {
  DriverState s;
  // Never dlclose'd: kernels and contexts live until the process ends.
  void* handle = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!handle) {
    const char* e = dlerror();
    s.why = std::string("no NVIDIA driver: ") + (e ? e : "libcuda.so.1 cannot be loaded");
    return s;
  }
  CudaDriver& d = s.driver;
  std::string missing;
  bool all = Resolve(handle, &d.cuInit, {"cuInit"}, &missing) &&
             Resolve(handle, &d.cuDriverGetVersion, {"cuDriverGetVersion"}, &missing) &&
             Resolve(handle, &d.cuGetErrorName, {"cuGetErrorName"}, &missing) &&
             Resolve(handle, &d.cuGetErrorString, {"cuGetErrorString"}, &missing) &&
             Resolve(handle, &d.cuDeviceGetCount, {"cuDeviceGetCount"}, &missing) &&
             Resolve(handle, &d.cuDeviceGet, {"cuDeviceGet"}, &missing) &&
             Resolve(handle, &d.cuDeviceGetName, {"cuDeviceGetName"}, &missing) &&
             Resolve(handle, &d.cuDeviceGetAttribute, {"cuDeviceGetAttribute"}, &missing) &&
             Resolve(handle, &d.cuDeviceTotalMem, {"cuDeviceTotalMem_v2"}, &missing) &&
             Resolve(handle, &d.cuDevicePrimaryCtxRetain, {"cuDevicePrimaryCtxRetain"}, &missing) &&
             Resolve(handle, &d.cuDevicePrimaryCtxRelease,
                     {"cuDevicePrimaryCtxRelease_v2", "cuDevicePrimaryCtxRelease"}, &missing) &&
             Resolve(handle, &d.cuCtxSetCurrent, {"cuCtxSetCurrent"}, &missing) &&
             Resolve(handle, &d.cuCtxSynchronize, {"cuCtxSynchronize"}, &missing) &&
             Resolve(handle, &d.cuMemAlloc, {"cuMemAlloc_v2"}, &missing) &&
             Resolve(handle, &d.cuMemFree, {"cuMemFree_v2"}, &missing) &&
             Resolve(handle, &d.cuMemGetInfo, {"cuMemGetInfo_v2"}, &missing) &&
             Resolve(handle, &d.cuMemsetD8Async, {"cuMemsetD8Async"}, &missing) &&
             Resolve(handle, &d.cuMemcpyHtoDAsync, {"cuMemcpyHtoDAsync_v2"}, &missing) &&
             Resolve(handle, &d.cuMemcpyDtoHAsync, {"cuMemcpyDtoHAsync_v2"}, &missing) &&
             Resolve(handle, &d.cuMemcpyDtoDAsync, {"cuMemcpyDtoDAsync_v2"}, &missing) &&
             Resolve(handle, &d.cuStreamCreate, {"cuStreamCreate"}, &missing) &&
             Resolve(handle, &d.cuStreamDestroy, {"cuStreamDestroy_v2", "cuStreamDestroy"}, &missing) &&
             Resolve(handle, &d.cuStreamSynchronize, {"cuStreamSynchronize"}, &missing) &&
             Resolve(handle, &d.cuEventCreate, {"cuEventCreate"}, &missing) &&
             Resolve(handle, &d.cuEventDestroy, {"cuEventDestroy_v2", "cuEventDestroy"}, &missing) &&
             Resolve(handle, &d.cuEventRecord, {"cuEventRecord"}, &missing) &&
             Resolve(handle, &d.cuEventSynchronize, {"cuEventSynchronize"}, &missing) &&
             // _v2 (CUDA 12.8+) and the original have the same signature.
             Resolve(handle, &d.cuEventElapsedTime, {"cuEventElapsedTime_v2", "cuEventElapsedTime"}, &missing) &&
             Resolve(handle, &d.cuModuleLoadData, {"cuModuleLoadData"}, &missing) &&
             Resolve(handle, &d.cuModuleUnload, {"cuModuleUnload"}, &missing) &&
             Resolve(handle, &d.cuModuleGetFunction, {"cuModuleGetFunction"}, &missing) &&
             Resolve(handle, &d.cuFuncSetAttribute, {"cuFuncSetAttribute"}, &missing) &&
             Resolve(handle, &d.cuLaunchKernel, {"cuLaunchKernel"}, &missing);
  if (!all) {
    s.why = "the NVIDIA driver (libcuda.so.1) lacks " + missing + ": the driver is too old";
    return s;
  }
  if (CUresult r = d.cuInit(0); r != kCudaSuccess) {
    const char* name = nullptr;
    d.cuGetErrorName(r, &name);
    s.why = std::string("the NVIDIA driver failed to initialise (cuInit: ") + (name ? name : std::to_string(r)) + ")";
    return s;
  }
  int count = 0;
  if (d.cuDeviceGetCount(&count) != kCudaSuccess || count == 0) {
    s.why = "the NVIDIA driver reports no CUDA device";
    return s;
  }
  s.ok = true;
  return s;
}

const DriverState& State() {
  static const DriverState state = Open();
  return state;
}

}  // namespace

const CudaDriver* GetCudaDriver(std::string* why) {
  const DriverState& s = State();
  if (!s.ok) {
    if (why) *why = s.why;
    return nullptr;
  }
  return &s.driver;
}

bool CudaAvailable(std::string* why) { return GetCudaDriver(why) != nullptr; }

std::string CudaErrorText(CUresult result) {
  const DriverState& s = State();
  const char* name = nullptr;
  const char* text = nullptr;
  if (s.ok) {
    s.driver.cuGetErrorName(result, &name);
    s.driver.cuGetErrorString(result, &text);
  }
  std::string out = name ? name : "CUDA error " + std::to_string(result);
  if (text) out += std::string(": ") + text;
  return out;
}

void CheckCuda(CUresult result, const char* what) {
  if (result != kCudaSuccess) throw Error(std::string(what) + ": " + CudaErrorText(result));
}

}  // namespace wb::runtime::cuda
