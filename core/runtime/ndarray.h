// The runtime: what compiled artifacts need at run time, with no IR headers, so a kernel built
// by the compiler links only this. This file holds the tensor: NDArray, laid out as DLPack's
// DLTensor (data, device, ndim, dtype, shape, strides, byte_offset) so that it can be handed to
// generated code and to other frameworks without copying.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace wb::runtime {

// DLPack's DLDataTypeCode values; the narrow floats continue with TVM's codes, so these match
// ir::DataType::Code one for one.
enum DLDataTypeCode : uint8_t {
  kDLInt = 0,
  kDLUInt = 1,
  kDLFloat = 2,
  kDLOpaqueHandle = 3,
  kDLBfloat = 4,
  kDLBool = 6,
  kDLFloat8_e4m3fn = 10,
  kDLFloat8_e5m2 = 12,
};

// DLPack's DLDataType: {code, bits, lanes}.
struct DLDataType {
  uint8_t code = kDLFloat;
  uint8_t bits = 32;
  uint16_t lanes = 1;

  bool operator==(const DLDataType& o) const {
    return code == o.code && bits == o.bits && lanes == o.lanes;
  }
  bool operator!=(const DLDataType& o) const { return !(*this == o); }
  // Bytes one element occupies in memory (bool takes a byte, as in NumPy and TVM).
  int64_t ElementBytes() const { return int64_t{(bits + 7) / 8} * lanes; }
  bool is_float() const {
    return code == kDLFloat || code == kDLBfloat || code == kDLFloat8_e4m3fn || code == kDLFloat8_e5m2;
  }
};

DLDataType Float(int bits);
DLDataType Int(int bits);
DLDataType UInt(int bits);
DLDataType BFloat16();
DLDataType Bool();
// "float32", "int8", "bfloat16", "bool", "float16x4", "float8_e4m3fn".
std::string DTypeToString(DLDataType dtype);
std::optional<DLDataType> DTypeFromString(std::string_view text);

enum DLDeviceType : int32_t { kDLCPU = 1, kDLCUDA = 2 };
struct DLDevice {
  DLDeviceType device_type = kDLCPU;
  int32_t device_id = 0;
};

// DLPack's DLTensor, field for field.
struct DLTensor {
  void* data = nullptr;
  DLDevice device;
  int32_t ndim = 0;
  DLDataType dtype;
  int64_t* shape = nullptr;
  int64_t* strides = nullptr;  // null: compact row-major
  uint64_t byte_offset = 0;
};

// A reference-counted tensor on the CPU or a device (cuda(0): memory from the device API of
// runtime/ndarray_device.h). Copies share the data; Copy() duplicates it. Element access
// (GetDouble, ...) needs a CPU array: bring a device array over with CopyTo(CPU) first.
// A default-constructed NDArray is null (defined() is false).
class NDArray {
 public:
  NDArray() = default;

  // Allocates a compact tensor, 64-byte aligned, zero-filled, on `device` (throws
  // runtime::Error when the device cannot be used, e.g. "no CUDA device: ...").
  static NDArray Empty(std::vector<int64_t> shape, DLDataType dtype, DLDevice device = {});
  // A view of `base`'s memory with its own shape/strides/byte_offset (strides in elements;
  // empty: compact). The view keeps the base's memory alive.
  static NDArray View(const NDArray& base, std::vector<int64_t> shape,
                      std::vector<int64_t> strides, uint64_t byte_offset);

  bool defined() const { return container_ != nullptr; }
  const DLTensor* operator->() const { return &container_->tensor; }
  const DLTensor& tensor() const { return container_->tensor; }
  // The DLTensor, mutable, for code that writes through it (generated kernels).
  DLTensor* mutable_tensor() const { return &container_->tensor; }

  const std::vector<int64_t>& shape() const { return container_->shape; }
  // Strides in elements; empty when compact.
  const std::vector<int64_t>& strides() const { return container_->strides; }
  DLDataType dtype() const { return container_->tensor.dtype; }
  DLDevice device() const { return container_->tensor.device; }
  bool is_cpu() const { return device().device_type == kDLCPU; }
  int ndim() const { return container_->tensor.ndim; }
  int64_t NumElements() const;
  bool IsCompact() const;
  // The first element's address (data + byte_offset).
  uint8_t* ElementData() const;
  // Number of references to the shared tensor (for tests of the sharing).
  long use_count() const { return container_.use_count(); }

  // A compact deep copy on the same device.
  NDArray Copy() const;
  // A compact copy on `device` (host <-> device, or within one); the array must be compact
  // unless both sides are on the CPU.
  NDArray CopyTo(DLDevice device) const;
  // Copies `other`'s elements into this array (same shape and dtype; any devices).
  void CopyFrom(const NDArray& other) const;
  // Copies `bytes` bytes of compact row-major data in or out. Fails (returns false, with the
  // reason in *error) when the byte count does not match.
  bool CopyFromBytes(const void* data, size_t bytes, std::string* error = nullptr);
  bool CopyToBytes(void* data, size_t bytes, std::string* error = nullptr) const;
  size_t CompactBytes() const { return static_cast<size_t>(NumElements() * dtype().ElementBytes()); }

  // Element access by flat row-major index (strides respected), converting through double or
  // int64 (lanes must be 1). float16/bfloat16 round to nearest even; integers wrap.
  double GetDouble(int64_t flat_index) const;
  int64_t GetInt(int64_t flat_index) const;
  void SetDouble(int64_t flat_index, double value) const;
  void SetInt(int64_t flat_index, int64_t value) const;
  // The byte address of the element at a flat row-major index.
  uint8_t* ElementAddress(int64_t flat_index) const;

 private:
  struct Container {
    DLTensor tensor;
    std::vector<int64_t> shape;
    std::vector<int64_t> strides;
    std::shared_ptr<uint8_t> memory;  // aligned allocation, shared by views
    size_t memory_bytes = 0;
  };
  std::shared_ptr<Container> container_;
};

// Fills every element with seeded uniform random values: floats in [low, high), integers in
// [low, high] (bool: 0 or 1). Defaults per dtype: floats [-1, 1), signed ints [-8, 8],
// unsigned ints [0, 15].
struct RandomFillOptions {
  uint64_t seed = 0;
  std::optional<double> low;
  std::optional<double> high;
};
void FillRandom(const NDArray& array, const RandomFillOptions& options = {});
void FillRandom(const NDArray& array, uint64_t seed);
// The fill seed of argument `index` of a run seeded with `seed`: every input maker (the
// workbench's runs and checks, relax::RandomArguments) uses it, so one seed gives the same
// tensors everywhere.
inline uint64_t InputSeed(uint64_t seed, size_t index) { return seed * 1000 + index; }

// Element-wise comparison: |actual - expected| <= atol + rtol * |expected| for every element.
// NaNs compare equal to NaNs; infinities must match exactly.
struct CompareResult {
  bool ok = true;
  double max_abs_error = 0;
  double max_rel_error = 0;
  int64_t mismatches = 0;
  int64_t first_mismatch = -1;  // flat index
  int64_t worst = -1;           // flat index of the largest absolute error (-1: none differs)
  std::string message;          // empty when ok; otherwise what differs, where and by how much
};
struct Tolerance {
  double rtol = 0;
  double atol = 0;
};
// Tolerances that suit one rounding difference per dtype: exact for integers and bool.
Tolerance DefaultTolerance(DLDataType dtype);
CompareResult Compare(const NDArray& actual, const NDArray& expected, Tolerance tolerance);
CompareResult Compare(const NDArray& actual, const NDArray& expected);

// NumPy .npy files (format versions 1.0, 2.0 and 3.0 read; 1.0 written, or 2.0 when the header
// needs it). Little-endian, C-order, the dtypes above (float16 as '<f2'; bfloat16 is written as
// '<u2' holding the bits, since NumPy has no bfloat16). Failures return a null NDArray / false
// with the reason in *error.
NDArray LoadNpy(const std::string& path, std::string* error);
NDArray ParseNpy(std::string_view bytes, std::string* error);
bool SaveNpy(const std::string& path, const NDArray& array, std::string* error);
std::string SerializeNpy(const NDArray& array);

}  // namespace wb::runtime
