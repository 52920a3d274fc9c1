// The CUDA device: its properties (the arch NVRTC compiles for, the SM count, the memory
// bandwidth a benchmark compares with), its primary context made current on the calling
// thread, the stream work is queued on, and timing with CUDA events. NDArray reaches device
// memory and copies through the DeviceAPI that cuda_device_api.cpp registers for kDLCUDA.
#pragma once

#include <cstdint>
#include <string>

#include "runtime/cuda/cuda_driver.h"

namespace wb::runtime::cuda {

struct CudaDeviceInfo {
  std::string name;          // "NVIDIA H200"
  int cc_major = 0;
  int cc_minor = 0;
  int sm_count = 0;
  size_t total_memory = 0;   // bytes
  int max_shared_memory_optin = 0;  // bytes per block, with the opt-in
  double peak_bandwidth_gbps = 0;   // 2 x memory clock x bus width (DDR), GB/s
  // "sm_90" (NVRTC's -arch spelling; Hopper's "a" features are not assumed).
  std::string arch() const { return "sm_" + std::to_string(cc_major) + std::to_string(cc_minor); }
};

// Throws runtime::Error "no CUDA device: <why>" when CUDA is unavailable, or the driver's error.
CudaDeviceInfo GetDeviceInfo(int device_id = 0);
// The present GPU's arch ("sm_90"); empty with the reason in *why when there is no GPU.
std::string DetectArch(int device_id = 0, std::string* why = nullptr);

// Makes the device's primary context current on this thread (retained once per process).
// Throws runtime::Error.
void SetDevice(int device_id);
// The stream kernels and copies are queued on: the legacy default stream, so that work from
// different threads is ordered as the program issued it.
CUstream CurrentStream(int device_id);
// Waits for the work queued on the device.
void StreamSync(int device_id);

// Elapsed GPU time between two points of the stream (CUDA events). Throws runtime::Error.
class CudaEventTimer {
 public:
  explicit CudaEventTimer(int device_id = 0);
  ~CudaEventTimer();
  CudaEventTimer(const CudaEventTimer&) = delete;
  CudaEventTimer& operator=(const CudaEventTimer&) = delete;
  void Start();
  void Stop();
  // Waits for the stop event; milliseconds between Start and Stop.
  double ElapsedMs();

 private:
  int device_id_;
  CUevent start_ = nullptr;
  CUevent stop_ = nullptr;
};

}  // namespace wb::runtime::cuda
