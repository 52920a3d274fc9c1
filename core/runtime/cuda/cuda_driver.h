// The CUDA driver API, opened at run time with dlopen("libcuda.so.1"): the program links no
// CUDA library, starts on machines without an NVIDIA driver and runs its CPU features there.
// The handful of driver types and entry points the runtime uses are declared here (ABI-stable
// since CUDA 4; the `_v2` symbols are the ones cuda.h maps its names to), so the build needs no
// CUDA toolkit either.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace wb::runtime::cuda {

using CUresult = int;
using CUdevice = int;
using CUdeviceptr = unsigned long long;  // NOLINT: the driver's type
using CUcontext = struct CUctx_st*;
using CUmodule = struct CUmod_st*;
using CUfunction = struct CUfunc_st*;
using CUstream = struct CUstream_st*;
using CUevent = struct CUevent_st*;

inline constexpr CUresult kCudaSuccess = 0;
// cuDeviceGetAttribute / cuFuncSetAttribute values (cuda.h's enums).
inline constexpr int kAttrMultiprocessorCount = 16;
inline constexpr int kAttrMemoryClockRateKHz = 36;
inline constexpr int kAttrGlobalMemoryBusWidth = 37;
inline constexpr int kAttrComputeCapabilityMajor = 75;
inline constexpr int kAttrComputeCapabilityMinor = 76;
inline constexpr int kAttrMaxSharedMemoryPerBlockOptin = 97;
inline constexpr int kFuncAttrMaxDynamicSharedSizeBytes = 8;

// The entry points, resolved once per process.
struct CudaDriver {
  CUresult (*cuInit)(unsigned int flags);
  CUresult (*cuDriverGetVersion)(int* version);
  CUresult (*cuGetErrorName)(CUresult error, const char** name);
  CUresult (*cuGetErrorString)(CUresult error, const char** text);
  CUresult (*cuDeviceGetCount)(int* count);
  CUresult (*cuDeviceGet)(CUdevice* device, int ordinal);
  CUresult (*cuDeviceGetName)(char* name, int len, CUdevice device);
  CUresult (*cuDeviceGetAttribute)(int* value, int attribute, CUdevice device);
  CUresult (*cuDeviceTotalMem)(size_t* bytes, CUdevice device);
  CUresult (*cuDevicePrimaryCtxRetain)(CUcontext* context, CUdevice device);
  CUresult (*cuDevicePrimaryCtxRelease)(CUdevice device);
  CUresult (*cuCtxSetCurrent)(CUcontext context);
  CUresult (*cuCtxSynchronize)();
  CUresult (*cuMemAlloc)(CUdeviceptr* ptr, size_t bytes);
  CUresult (*cuMemFree)(CUdeviceptr ptr);
  CUresult (*cuMemGetInfo)(size_t* free_bytes, size_t* total_bytes);
  CUresult (*cuMemsetD8Async)(CUdeviceptr ptr, unsigned char value, size_t count, CUstream stream);
  CUresult (*cuMemcpyHtoDAsync)(CUdeviceptr dst, const void* src, size_t bytes, CUstream stream);
  CUresult (*cuMemcpyDtoHAsync)(void* dst, CUdeviceptr src, size_t bytes, CUstream stream);
  CUresult (*cuMemcpyDtoDAsync)(CUdeviceptr dst, CUdeviceptr src, size_t bytes, CUstream stream);
  CUresult (*cuStreamCreate)(CUstream* stream, unsigned int flags);
  CUresult (*cuStreamDestroy)(CUstream stream);
  CUresult (*cuStreamSynchronize)(CUstream stream);
  CUresult (*cuEventCreate)(CUevent* event, unsigned int flags);
  CUresult (*cuEventDestroy)(CUevent event);
  CUresult (*cuEventRecord)(CUevent event, CUstream stream);
  CUresult (*cuEventSynchronize)(CUevent event);
  CUresult (*cuEventElapsedTime)(float* ms, CUevent start, CUevent end);
  CUresult (*cuModuleLoadData)(CUmodule* module, const void* image);
  CUresult (*cuModuleUnload)(CUmodule module);
  CUresult (*cuModuleGetFunction)(CUfunction* function, CUmodule module, const char* name);
  CUresult (*cuFuncSetAttribute)(CUfunction function, int attribute, int value);
  CUresult (*cuLaunchKernel)(CUfunction f, unsigned grid_x, unsigned grid_y, unsigned grid_z,
                             unsigned block_x, unsigned block_y, unsigned block_z,
                             unsigned shared_bytes, CUstream stream, void** params, void** extra);
};

// The driver, opened and initialised (cuInit) on first use; null with the reason in *why when
// there is none: "no NVIDIA driver: libcuda.so.1: cannot open shared object file: ...", a
// missing entry point, cuInit's error, or no device.
const CudaDriver* GetCudaDriver(std::string* why = nullptr);

// Whether CUDA kernels can run here (a driver and at least one device).
bool CudaAvailable(std::string* why = nullptr);

// "CUDA_ERROR_OUT_OF_MEMORY: out of memory" (or the number when the driver cannot name it).
std::string CudaErrorText(CUresult result);

// Throws runtime::Error "<what>: <CudaErrorText>" when `result` is not success.
void CheckCuda(CUresult result, const char* what);

}  // namespace wb::runtime::cuda
