#include "runtime/ndarray.h"

#include <cstdlib>
#include <cstring>
#include <stdexcept>

#include "runtime/half.h"
#include "runtime/ndarray_device.h"
#include "runtime/packed_func.h"

namespace wb::runtime {

DLDataType Float(int bits) { return {kDLFloat, static_cast<uint8_t>(bits), 1}; }
DLDataType Int(int bits) { return {kDLInt, static_cast<uint8_t>(bits), 1}; }
DLDataType UInt(int bits) { return {kDLUInt, static_cast<uint8_t>(bits), 1}; }
DLDataType BFloat16() { return {kDLBfloat, 16, 1}; }
DLDataType Bool() { return {kDLBool, 8, 1}; }

std::string DTypeToString(DLDataType dtype) {
  std::string s;
  switch (dtype.code) {
    case kDLInt: s = "int" + std::to_string(dtype.bits); break;
    case kDLUInt: s = "uint" + std::to_string(dtype.bits); break;
    case kDLFloat: s = "float" + std::to_string(dtype.bits); break;
    case kDLBfloat: s = "bfloat" + std::to_string(dtype.bits); break;
    case kDLBool: s = "bool"; break;
    case kDLOpaqueHandle: s = "handle"; break;
    case kDLFloat8_e4m3fn: s = "float8_e4m3fn"; break;
    case kDLFloat8_e5m2: s = "float8_e5m2"; break;
    default: s = "code" + std::to_string(dtype.code) + "_" + std::to_string(dtype.bits); break;
  }
  if (dtype.lanes != 1) s += "x" + std::to_string(dtype.lanes);
  return s;
}

std::optional<DLDataType> DTypeFromString(std::string_view text) {
  uint16_t lanes = 1;
  if (auto x = text.rfind('x'); x != std::string_view::npos && x + 1 < text.size()) {
    lanes = static_cast<uint16_t>(std::atoi(std::string(text.substr(x + 1)).c_str()));
    if (lanes == 0) return std::nullopt;
    text = text.substr(0, x);
  }
  auto with_bits = [&](std::string_view prefix, uint8_t code) -> std::optional<DLDataType> {
    if (text.substr(0, prefix.size()) != prefix) return std::nullopt;
    std::string digits(text.substr(prefix.size()));
    if (digits.empty() || digits.find_first_not_of("0123456789") != std::string::npos) {
      return std::nullopt;
    }
    int bits = std::atoi(digits.c_str());
    if (bits != 8 && bits != 16 && bits != 32 && bits != 64) return std::nullopt;
    return DLDataType{code, static_cast<uint8_t>(bits), lanes};
  };
  if (text == "bool") return DLDataType{kDLBool, 8, lanes};
  if (text == "bfloat16") return DLDataType{kDLBfloat, 16, lanes};
  if (text == "float8_e4m3fn") return DLDataType{kDLFloat8_e4m3fn, 8, lanes};
  if (text == "float8_e5m2") return DLDataType{kDLFloat8_e5m2, 8, lanes};
  if (auto t = with_bits("uint", kDLUInt)) return t;
  if (auto t = with_bits("int", kDLInt)) return t;
  if (auto t = with_bits("float", kDLFloat)) {
    if (t->bits == 8) return std::nullopt;
    return t;
  }
  return std::nullopt;
}

NDArray NDArray::Empty(std::vector<int64_t> shape, DLDataType dtype, DLDevice device) {
  int64_t count = 1;
  for (int64_t d : shape) {
    if (d < 0) throw std::invalid_argument("NDArray::Empty: negative dimension");
    count *= d;
  }
  size_t bytes = static_cast<size_t>(count * dtype.ElementBytes());
  // Round up so that aligned_alloc's size contract holds and a zero-sized array still owns a
  // distinct, valid pointer.
  size_t alloc = (bytes + 63) / 64 * 64;
  if (alloc == 0) alloc = 64;
  NDArray a;
  a.container_ = std::make_shared<Container>();
  Container& c = *a.container_;
  uint8_t* raw = nullptr;
  if (device.device_type == kDLCPU) {
    raw = static_cast<uint8_t*>(std::aligned_alloc(64, alloc));
    if (!raw) throw std::bad_alloc();
    std::memset(raw, 0, alloc);
    c.memory = std::shared_ptr<uint8_t>(raw, [](uint8_t* p) { std::free(p); });
  } else {
    DeviceAPI* api = DeviceAPI::Get(device);
    raw = static_cast<uint8_t*>(api->AllocDataSpace(device.device_id, alloc));
    int id = device.device_id;
    c.memory = std::shared_ptr<uint8_t>(raw, [api, id](uint8_t* p) { api->FreeDataSpace(id, p); });
  }
  c.memory_bytes = alloc;
  c.shape = std::move(shape);
  c.tensor.data = raw;
  c.tensor.device = device;
  c.tensor.ndim = static_cast<int32_t>(c.shape.size());
  c.tensor.dtype = dtype;
  c.tensor.shape = c.shape.data();
  c.tensor.strides = nullptr;
  c.tensor.byte_offset = 0;
  return a;
}

NDArray NDArray::View(const NDArray& base, std::vector<int64_t> shape,
                      std::vector<int64_t> strides, uint64_t byte_offset) {
  if (!strides.empty() && strides.size() != shape.size()) {
    throw std::invalid_argument("NDArray::View: strides and shape differ in rank");
  }
  NDArray a;
  a.container_ = std::make_shared<Container>();
  Container& c = *a.container_;
  c.memory = base.container_->memory;
  c.memory_bytes = base.container_->memory_bytes;
  c.shape = std::move(shape);
  c.strides = std::move(strides);
  c.tensor = base.container_->tensor;
  c.tensor.ndim = static_cast<int32_t>(c.shape.size());
  c.tensor.shape = c.shape.data();
  c.tensor.strides = c.strides.empty() ? nullptr : c.strides.data();
  c.tensor.byte_offset = byte_offset;
  // The furthest byte the view can reach must lie inside the base allocation.
  int64_t last = 0;
  bool empty = false;
  for (size_t i = 0; i < c.shape.size(); ++i) {
    if (c.shape[i] == 0) empty = true;
    int64_t stride = 1;
    if (!c.strides.empty()) {
      stride = c.strides[i];
    } else {
      for (size_t j = i + 1; j < c.shape.size(); ++j) stride *= c.shape[j];
    }
    if (stride < 0) throw std::invalid_argument("NDArray::View: negative strides");
    last += (c.shape[i] - 1) * stride;
  }
  if (!empty) {
    uint64_t end = byte_offset + static_cast<uint64_t>((last + 1) * c.tensor.dtype.ElementBytes());
    if (end > c.memory_bytes) throw std::invalid_argument("NDArray::View: exceeds the base memory");
  }
  return a;
}

int64_t NDArray::NumElements() const {
  int64_t n = 1;
  for (int64_t d : shape()) n *= d;
  return n;
}

bool NDArray::IsCompact() const {
  if (strides().empty()) return true;
  int64_t expected = 1;
  for (int i = ndim() - 1; i >= 0; --i) {
    if (shape()[i] != 1 && strides()[i] != expected) return false;
    expected *= shape()[i];
  }
  return true;
}

uint8_t* NDArray::ElementData() const {
  return static_cast<uint8_t*>(tensor().data) + tensor().byte_offset;
}

uint8_t* NDArray::ElementAddress(int64_t flat_index) const {
  if (!is_cpu()) {
    throw Error("NDArray element access on " + DeviceName(device()) +
                " memory: copy the array to the CPU first (CopyTo)");
  }
  if (flat_index < 0 || flat_index >= NumElements()) {
    throw std::out_of_range("NDArray: flat index " + std::to_string(flat_index) +
                            " out of range for " + std::to_string(NumElements()) + " elements");
  }
  int64_t offset = 0;
  if (strides().empty()) {
    offset = flat_index;
  } else {
    for (int i = ndim() - 1; i >= 0; --i) {
      offset += (flat_index % shape()[i]) * strides()[i];
      flat_index /= shape()[i];
    }
  }
  return ElementData() + offset * dtype().ElementBytes();
}

NDArray NDArray::Copy() const {
  if (!is_cpu()) return CopyTo(device());
  NDArray out = Empty(shape(), dtype(), tensor().device);
  if (IsCompact()) {
    std::memcpy(out.ElementData(), ElementData(), CompactBytes());
  } else {
    const int64_t n = NumElements();
    const int64_t eb = dtype().ElementBytes();
    for (int64_t i = 0; i < n; ++i) std::memcpy(out.ElementData() + i * eb, ElementAddress(i), eb);
  }
  return out;
}

NDArray NDArray::CopyTo(DLDevice target) const {
  NDArray out = Empty(shape(), dtype(), target);
  out.CopyFrom(*this);
  return out;
}

void NDArray::CopyFrom(const NDArray& other) const {
  if (other.shape() != shape() || other.dtype() != dtype()) {
    throw Error("NDArray::CopyFrom: shape or dtype differs");
  }
  if (is_cpu() && other.is_cpu()) {
    if (other.IsCompact()) {
      std::string error;
      if (!const_cast<NDArray*>(this)->CopyFromBytes(other.ElementData(), other.CompactBytes(), &error)) {
        throw Error(error);
      }
    } else {
      const int64_t eb = dtype().ElementBytes();
      for (int64_t i = 0; i < NumElements(); ++i) std::memcpy(ElementAddress(i), other.ElementAddress(i), eb);
    }
    return;
  }
  if (!IsCompact() || !other.IsCompact()) {
    throw Error("NDArray::CopyFrom between " + DeviceName(other.device()) + " and " + DeviceName(device()) +
                " needs compact arrays");
  }
  size_t bytes = CompactBytes();
  if (bytes == 0) return;
  if (other.is_cpu()) {
    DeviceAPI::Get(device())->CopyHostToDevice(device().device_id, ElementData(), other.ElementData(), bytes);
  } else if (is_cpu()) {
    DeviceAPI::Get(other.device())->CopyDeviceToHost(other.device().device_id, ElementData(), other.ElementData(), bytes);
  } else if (device().device_type == other.device().device_type && device().device_id == other.device().device_id) {
    DeviceAPI::Get(device())->CopyDeviceToDevice(device().device_id, ElementData(), other.ElementData(), bytes);
  } else {
    // Between two devices: through the host (peer copies are not needed yet).
    CopyFrom(other.CopyTo(DLDevice{}));
  }
}

bool NDArray::CopyFromBytes(const void* data, size_t bytes, std::string* error) {
  if (bytes != CompactBytes()) {
    if (error) {
      *error = "CopyFromBytes: " + std::to_string(bytes) + " bytes given, the array holds " +
               std::to_string(CompactBytes());
    }
    return false;
  }
  if (!is_cpu()) {
    if (!IsCompact()) {
      if (error) *error = "CopyFromBytes: a " + DeviceName(device()) + " array must be compact";
      return false;
    }
    try {
      if (bytes) DeviceAPI::Get(device())->CopyHostToDevice(device().device_id, ElementData(), data, bytes);
    } catch (const Error& e) {
      if (error) *error = e.what();
      return false;
    }
    return true;
  }
  if (IsCompact()) {
    std::memcpy(ElementData(), data, bytes);
  } else {
    const int64_t eb = dtype().ElementBytes();
    for (int64_t i = 0; i < NumElements(); ++i) {
      std::memcpy(ElementAddress(i), static_cast<const uint8_t*>(data) + i * eb, eb);
    }
  }
  return true;
}

bool NDArray::CopyToBytes(void* data, size_t bytes, std::string* error) const {
  if (bytes != CompactBytes()) {
    if (error) {
      *error = "CopyToBytes: " + std::to_string(bytes) + " bytes given, the array holds " +
               std::to_string(CompactBytes());
    }
    return false;
  }
  if (!is_cpu()) {
    if (!IsCompact()) {
      if (error) *error = "CopyToBytes: a " + DeviceName(device()) + " array must be compact";
      return false;
    }
    try {
      if (bytes) DeviceAPI::Get(device())->CopyDeviceToHost(device().device_id, data, ElementData(), bytes);
    } catch (const Error& e) {
      if (error) *error = e.what();
      return false;
    }
    return true;
  }
  if (IsCompact()) {
    std::memcpy(data, ElementData(), bytes);
  } else {
    const int64_t eb = dtype().ElementBytes();
    for (int64_t i = 0; i < NumElements(); ++i) {
      std::memcpy(static_cast<uint8_t*>(data) + i * eb, ElementAddress(i), eb);
    }
  }
  return true;
}

namespace {

template <typename T>
T LoadAs(const uint8_t* p) {
  T v;
  std::memcpy(&v, p, sizeof(T));
  return v;
}
template <typename T>
void StoreAs(uint8_t* p, T v) {
  std::memcpy(p, &v, sizeof(T));
}

void CheckScalar(DLDataType t) {
  if (t.lanes != 1) throw std::invalid_argument("NDArray element access: vector dtype " + DTypeToString(t));
}

}  // namespace

double NDArray::GetDouble(int64_t flat_index) const {
  DLDataType t = dtype();
  CheckScalar(t);
  const uint8_t* p = ElementAddress(flat_index);
  if (t.code == kDLFloat) {
    switch (t.bits) {
      case 16: return HalfBitsToFloat(LoadAs<uint16_t>(p));
      case 32: return LoadAs<float>(p);
      case 64: return LoadAs<double>(p);
    }
  }
  if (t.code == kDLBfloat && t.bits == 16) return BFloat16BitsToFloat(LoadAs<uint16_t>(p));
  if (t.code == kDLFloat8_e4m3fn) return Float8E4M3FNBitsToDouble(*p);
  if (t.code == kDLFloat8_e5m2) return Float8E5M2BitsToDouble(*p);
  if (t.code == kDLUInt && t.bits == 64) return static_cast<double>(LoadAs<uint64_t>(p));
  return static_cast<double>(GetInt(flat_index));
}

int64_t NDArray::GetInt(int64_t flat_index) const {
  DLDataType t = dtype();
  CheckScalar(t);
  const uint8_t* p = ElementAddress(flat_index);
  if (t.code == kDLInt) {
    switch (t.bits) {
      case 8: return LoadAs<int8_t>(p);
      case 16: return LoadAs<int16_t>(p);
      case 32: return LoadAs<int32_t>(p);
      case 64: return LoadAs<int64_t>(p);
    }
  } else if (t.code == kDLUInt || t.code == kDLBool) {
    switch (t.bits) {
      case 8: return LoadAs<uint8_t>(p);
      case 16: return LoadAs<uint16_t>(p);
      case 32: return LoadAs<uint32_t>(p);
      case 64: return static_cast<int64_t>(LoadAs<uint64_t>(p));
    }
  } else if (t.is_float()) {
    return static_cast<int64_t>(GetDouble(flat_index));
  }
  throw std::invalid_argument("NDArray element access: unsupported dtype " + DTypeToString(t));
}

void NDArray::SetDouble(int64_t flat_index, double value) const {
  DLDataType t = dtype();
  CheckScalar(t);
  uint8_t* p = ElementAddress(flat_index);
  if (t.code == kDLFloat) {
    switch (t.bits) {
      case 16: return StoreAs<uint16_t>(p, DoubleToHalfBits(value));
      case 32: return StoreAs<float>(p, static_cast<float>(value));
      case 64: return StoreAs<double>(p, value);
    }
  }
  if (t.code == kDLBfloat && t.bits == 16) return StoreAs<uint16_t>(p, DoubleToBFloat16Bits(value));
  if (t.code == kDLFloat8_e4m3fn) return StoreAs<uint8_t>(p, DoubleToFloat8E4M3FNBits(value));
  if (t.code == kDLFloat8_e5m2) return StoreAs<uint8_t>(p, DoubleToFloat8E5M2Bits(value));
  SetInt(flat_index, static_cast<int64_t>(value));
}

void NDArray::SetInt(int64_t flat_index, int64_t value) const {
  DLDataType t = dtype();
  CheckScalar(t);
  uint8_t* p = ElementAddress(flat_index);
  if (t.code == kDLBool) return StoreAs<uint8_t>(p, value != 0);
  if (t.code == kDLInt || t.code == kDLUInt) {
    switch (t.bits) {  // two's complement truncation wraps
      case 8: return StoreAs<uint8_t>(p, static_cast<uint8_t>(value));
      case 16: return StoreAs<uint16_t>(p, static_cast<uint16_t>(value));
      case 32: return StoreAs<uint32_t>(p, static_cast<uint32_t>(value));
      case 64: return StoreAs<uint64_t>(p, static_cast<uint64_t>(value));
    }
  }
  if (t.is_float()) return SetDouble(flat_index, static_cast<double>(value));
  throw std::invalid_argument("NDArray element access: unsupported dtype " + DTypeToString(t));
}

}  // namespace wb::runtime
