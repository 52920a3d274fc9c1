// DataType: the element type of scalars, vectors and buffers (TVM's DLDataType plus lanes).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace wb::ir {

class DataType {
 public:
  // Type codes follow DLPack where DLPack has one; the narrow float formats follow TVM's order.
  enum Code : uint8_t {
    kInt = 0,
    kUInt = 1,
    kFloat = 2,
    kHandle = 3,
    kBFloat = 4,
    kBool = 6,
    kFloat8_e3m4 = 7,
    kFloat8_e4m3,
    kFloat8_e4m3b11fnuz,
    kFloat8_e4m3fn,
    kFloat8_e4m3fnuz,
    kFloat8_e5m2,
    kFloat8_e5m2fnuz,
    kFloat8_e8m0fnu,
    kFloat6_e2m3fn,
    kFloat6_e3m2fn,
    kFloat4_e2m1fn,
    kVoid = 127,
  };

  constexpr DataType() = default;
  constexpr DataType(Code code, int bits, int lanes = 1, bool scalable = false)
      : code_(code), bits_(static_cast<uint8_t>(bits)), lanes_(static_cast<uint16_t>(lanes)),
        scalable_(scalable) {}

  static constexpr DataType Int(int bits, int lanes = 1) { return {kInt, bits, lanes}; }
  static constexpr DataType UInt(int bits, int lanes = 1) { return {kUInt, bits, lanes}; }
  static constexpr DataType Float(int bits, int lanes = 1) { return {kFloat, bits, lanes}; }
  static constexpr DataType BFloat(int bits = 16, int lanes = 1) { return {kBFloat, bits, lanes}; }
  static constexpr DataType Bool(int lanes = 1) { return {kBool, 1, lanes}; }
  static constexpr DataType Handle() { return {kHandle, 64, 1}; }
  static constexpr DataType Void() { return {kVoid, 0, 0}; }

  Code code() const { return code_; }
  int bits() const { return bits_; }
  int lanes() const { return lanes_; }
  bool is_scalable_vector() const { return scalable_; }
  int bytes() const { return (bits_ + 7) / 8; }

  bool is_int() const { return code_ == kInt; }
  bool is_uint() const { return code_ == kUInt; }
  bool is_bool() const { return code_ == kBool; }
  bool is_handle() const { return code_ == kHandle; }
  bool is_void() const { return code_ == kVoid; }
  // Any integer-like type that index arithmetic accepts (int, uint; bool excluded).
  bool is_integer() const { return code_ == kInt || code_ == kUInt; }
  bool is_float() const { return code_ == kFloat; }
  bool is_bfloat16() const { return code_ == kBFloat && bits_ == 16; }
  bool is_narrow_float() const { return code_ >= kFloat8_e3m4 && code_ <= kFloat4_e2m1fn; }
  // float, bfloat and the narrow formats.
  bool is_floating_point() const { return is_float() || code_ == kBFloat || is_narrow_float(); }
  bool is_scalar() const { return lanes_ == 1 && !scalable_; }
  bool is_vector() const { return lanes_ > 1 || scalable_; }

  DataType element_of() const { return DataType(code_, bits_, 1); }
  DataType with_lanes(int lanes) const { return DataType(code_, bits_, lanes); }
  DataType with_bits(int bits) const { return DataType(code_, bits, lanes_, scalable_); }

  bool operator==(const DataType& o) const {
    return code_ == o.code_ && bits_ == o.bits_ && lanes_ == o.lanes_ && scalable_ == o.scalable_;
  }
  bool operator!=(const DataType& o) const { return !(*this == o); }

  // Canonical long name: "int32", "float16x4", "bool", "handle", "void", "float8_e4m3fn",
  // "float32xvscalex4".
  std::string ToString() const;
  // Parses every spelling TVM accepts ("float" = float32, "bfloat", "int", "uint8x4", ...).
  static std::optional<DataType> Parse(std::string_view text);
  // Packs into 32 bits for hashing and serialization.
  uint32_t Pack() const {
    return uint32_t(code_) | (uint32_t(bits_) << 8) | (uint32_t(lanes_) << 16) |
           (scalable_ ? 0x80000000u : 0);
  }
  static DataType Unpack(uint32_t v) {
    return DataType(Code(v & 0xff), (v >> 8) & 0xff, (v >> 16) & 0x7fff, (v >> 31) != 0);
  }

 private:
  Code code_ = kVoid;
  uint8_t bits_ = 0;
  uint16_t lanes_ = 0;
  bool scalable_ = false;
};

}  // namespace wb::ir
