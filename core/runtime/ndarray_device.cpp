#include "runtime/ndarray_device.h"

#include <array>
#include <atomic>

#include "runtime/packed_func.h"

namespace wb::runtime {

namespace {

// Indexed by DLDeviceType; kDLCPU stays empty (NDArray handles host memory itself).
std::array<std::atomic<DeviceAPI*>, 16>& Registry() {
  static std::array<std::atomic<DeviceAPI*>, 16> table{};
  return table;
}

}  // namespace

void DeviceAPI::Register(DLDeviceType type, DeviceAPI* api) {
  if (type > 0 && static_cast<size_t>(type) < Registry().size()) Registry()[type].store(api);
}

DeviceAPI* DeviceAPI::Get(DLDevice device) {
  DeviceAPI* api = nullptr;
  if (device.device_type > 0 && static_cast<size_t>(device.device_type) < Registry().size()) {
    api = Registry()[device.device_type].load();
  }
  if (!api) throw Error("no device API for " + DeviceName(device) + " in this program");
  return api;
}

std::string DeviceName(DLDevice device) {
  const char* kind = device.device_type == kDLCPU    ? "cpu"
                     : device.device_type == kDLCUDA ? "cuda"
                                                     : "device";
  return std::string(kind) + "(" + std::to_string(device.device_id) + ")";
}

}  // namespace wb::runtime
