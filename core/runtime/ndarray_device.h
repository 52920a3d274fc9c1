// Device memory behind NDArray (TVM's DeviceAPI): each non-CPU device type registers one
// implementation (core/runtime/cuda registers cuda), and NDArray::Empty / CopyTo / CopyFrom
// reach it through DLDevice. A program linked without a device's runtime gets a clear error
// when it asks for that device, not a link failure.
#pragma once

#include <cstddef>
#include <string>

#include "runtime/ndarray.h"

namespace wb::runtime {

class DeviceAPI {
 public:
  virtual ~DeviceAPI() = default;
  // Zero-filled memory of at least `bytes` bytes (a distinct pointer for 0). Throws Error.
  virtual void* AllocDataSpace(int device_id, size_t bytes) = 0;
  virtual void FreeDataSpace(int device_id, void* ptr) = 0;
  // Synchronous copies (they return when the data has arrived); throw Error.
  virtual void CopyHostToDevice(int device_id, void* dst, const void* src, size_t bytes) = 0;
  virtual void CopyDeviceToHost(int device_id, void* dst, const void* src, size_t bytes) = 0;
  virtual void CopyDeviceToDevice(int device_id, void* dst, const void* src, size_t bytes) = 0;
  // Waits until the work queued on the device's stream has finished.
  virtual void StreamSync(int device_id) = 0;

  // Registered once per device type, from a static initializer; never unregistered.
  static void Register(DLDeviceType type, DeviceAPI* api);
  // The device type's API; throws Error naming the device when none is linked in.
  static DeviceAPI* Get(DLDevice device);
};

// "cpu(0)", "cuda(1)".
std::string DeviceName(DLDevice device);
inline DLDevice CPU(int id = 0) { return {kDLCPU, id}; }
inline DLDevice CUDA(int id = 0) { return {kDLCUDA, id}; }

}  // namespace wb::runtime
