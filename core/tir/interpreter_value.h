// Internal to the reference interpreter (interpreter*.cpp): run-time values, memory, and the
// arithmetic on them. Not part of the core's interface.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "support/diagnostic.h"
#include "tir/expr.h"

namespace wb::tir::interp {

// Who last touched each byte of a shared-scope allocation, and in which barrier phase of which
// thread block (team): the race check of interpreter_gpu.h.
struct RaceShadow {
  struct Entry {
    uint64_t team = 0;  // 0: never touched by a team
    uint32_t write_phase = 0;
    uint32_t read_phase = 0;
    int32_t writer = -1;
    int32_t reader = -1;  // -2: more than one thread read it in read_phase
  };
  std::vector<Entry> bytes;
};

// A block of memory a buffer or handle points into: an NDArray's data or an allocation.
struct Storage {
  uint8_t* data = nullptr;
  int64_t bytes = 0;
  std::string name;  // the buffer that created it, for messages
  std::unique_ptr<uint8_t[]> owned;
  std::shared_ptr<RaceShadow> shadow;  // shared-scope memory only
};

// One lane: integers (wrapped to their width, sign- or zero-extended), bool (0/1) and handle
// byte offsets live in `i`; every floating-point type lives in `f`, already rounded to its
// dtype, so the next operation sees exactly what the hardware would.
union Scalar {
  int64_t i;
  double f;
};

enum class Kind : uint8_t { kInt, kUInt, kBool, kFloat, kHandle, kUndefined };
Kind KindOf(DataType t);

class Value {
 public:
  Value() = default;
  explicit Value(DataType dtype);
  static Value Int(DataType dtype, int64_t v);
  static Value Float(DataType dtype, double v);
  static Value Handle(Storage* storage, int64_t byte_offset);

  bool defined() const { return kind_ != Kind::kUndefined; }
  DataType dtype() const { return dtype_; }
  Kind kind() const { return kind_; }
  int lanes() const { return lanes_; }
  Scalar& operator[](int i) { return lanes_ <= kInline ? small_[i] : big_[i]; }
  const Scalar& operator[](int i) const { return lanes_ <= kInline ? small_[i] : big_[i]; }
  Storage* storage() const { return storage_; }
  void set_storage(Storage* s) { storage_ = s; }

  // The scalar as an index/condition (lane 0); callers check lanes() first where it matters.
  int64_t AsInt() const { return kind_ == Kind::kFloat ? static_cast<int64_t>(small_[0].f) : (*this)[0].i; }
  bool AsBool() const { return kind_ == Kind::kFloat ? (*this)[0].f != 0 : (*this)[0].i != 0; }
  double AsDouble(int lane = 0) const;

 private:
  static constexpr int kInline = 4;
  DataType dtype_ = DataType::Void();
  Kind kind_ = Kind::kUndefined;
  int lanes_ = 0;
  Storage* storage_ = nullptr;
  Scalar small_[kInline] = {};
  std::vector<Scalar> big_;
};

// Raised while running; caught at the interpreter's entry points and reported.
using InterpError = DiagnosticError;
[[noreturn]] void Fail(const std::string& message, const Span& span);

// Rounds/wraps one lane to the element type of `t`.
Scalar Normalize(DataType t, Scalar s);
// Unsupported element types (narrow floats, sub-byte ints) fail here with a clear message.
void CheckSupported(DataType t, const Span& span);

Value Cast(DataType to, const Value& v, const Span& span);
Value Reinterpret(DataType to, const Value& v, const Span& span);
// A binary node of `kind` (kAdd ... kOr).
Value Binary(ir::TypeIndex kind, const Value& a, const Value& b, const Span& span);
Value LogicalNot(const Value& a);
// A pure builtin of tir/builtin.h on evaluated arguments (math, bit ops, ...). Returns an
// undefined Value when `name` is not one of them.
Value PureIntrinsic(const std::string& name, DataType result, const std::vector<Value>& args,
                    const Span& span);

// Memory: reads/writes one element of dtype `t` (scalar) at `p`.
Scalar LoadScalar(DataType t, const uint8_t* p);
void StoreScalar(DataType t, uint8_t* p, Scalar s);
// Bytes one element of `t` occupies (bool: 1; lanes included).
int64_t ElementBytes(DataType t);

std::string ValueToString(const Value& v);

}  // namespace wb::tir::interp
