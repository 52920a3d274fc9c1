// Internal to the reference interpreter (interpreter*.cpp): run-time values, memory, and the
// arithmetic on them. Not part of the core's interface.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "runtime/half.h"
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
inline Kind KindOf(DataType t) {
  if (t.is_bool()) return Kind::kBool;
  if (t.is_int()) return Kind::kInt;
  if (t.is_uint()) return Kind::kUInt;
  if (t.is_floating_point()) return Kind::kFloat;
  if (t.is_handle()) return Kind::kHandle;
  return Kind::kUndefined;
}

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
  // Lane 0 of a scalar, without the lane-count check of operator[].
  Scalar scalar() const { return small_[0]; }
  // Makes this the scalar `s` (already normalized) of `dtype`, whose kind is `kind`: how the
  // fast path sets a variable without building a Value.
  void SetScalar(DataType dtype, Kind kind, Scalar s) {
    dtype_ = dtype;
    kind_ = kind;
    lanes_ = 1;
    storage_ = nullptr;
    small_[0] = s;
  }

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
[[gnu::always_inline]] inline Scalar Normalize(DataType t, Scalar s) {
  switch (KindOf(t)) {
    case Kind::kInt: {
      const int bits = t.bits();
      if (bits < 64) {
        auto u = static_cast<uint64_t>(s.i) << (64 - bits);
        s.i = static_cast<int64_t>(u) >> (64 - bits);
      }
      return s;
    }
    case Kind::kUInt:
      if (t.bits() < 64) s.i = static_cast<int64_t>(static_cast<uint64_t>(s.i) & ((uint64_t{1} << t.bits()) - 1));
      return s;
    case Kind::kBool: s.i = s.i != 0; return s;
    case Kind::kFloat:
      if (t.code() == DataType::kFloat8_e4m3fn) {
        s.f = runtime::Float8E4M3FNBitsToDouble(runtime::DoubleToFloat8E4M3FNBits(s.f));
      } else if (t.code() == DataType::kFloat8_e5m2) {
        s.f = runtime::Float8E5M2BitsToDouble(runtime::DoubleToFloat8E5M2Bits(s.f));
      } else if (t.is_bfloat16()) {
        s.f = runtime::BFloat16BitsToFloat(runtime::DoubleToBFloat16Bits(s.f));
      } else if (t.bits() == 16) {
        s.f = runtime::HalfBitsToFloat(runtime::DoubleToHalfBits(s.f));
      } else if (t.bits() == 32) {
        s.f = static_cast<float>(s.f);
      }
      return s;
    default: return s;
  }
}

// A binary operation of `kind` on two integer (or bool) lanes of type `t` (signedness from `k`),
// before normalization. Integer division by zero fails.
[[gnu::always_inline]] inline int64_t IntBinary(ir::TypeIndex kind, Kind k, DataType t, int64_t a, int64_t b, const Span& span) {
  using ir::TypeIndex;
  const bool is_unsigned = k == Kind::kUInt || k == Kind::kBool;
  auto ua = static_cast<uint64_t>(a);
  auto ub = static_cast<uint64_t>(b);
  switch (kind) {
    case TypeIndex::kAdd: return static_cast<int64_t>(ua + ub);
    case TypeIndex::kSub: return static_cast<int64_t>(ua - ub);
    case TypeIndex::kMul: return static_cast<int64_t>(ua * ub);
    case TypeIndex::kDiv:
    case TypeIndex::kMod:
    case TypeIndex::kFloorDiv:
    case TypeIndex::kFloorMod: {
      if (b == 0) Fail("integer division by zero (" + t.ToString() + ")", span);
      const bool div = kind == TypeIndex::kDiv || kind == TypeIndex::kFloorDiv;
      if (is_unsigned) return static_cast<int64_t>(div ? ua / ub : ua % ub);
      // INT64_MIN / -1 overflows in C; the wrapped result is INT64_MIN (remainder 0).
      if (b == -1) return div ? static_cast<int64_t>(0 - ua) : 0;
      int64_t q = a / b;
      int64_t r = a % b;
      if (kind == TypeIndex::kDiv) return q;
      if (kind == TypeIndex::kMod) return r;
      const bool adjust = r != 0 && ((r < 0) != (b < 0));
      if (kind == TypeIndex::kFloorDiv) return adjust ? q - 1 : q;
      return adjust ? r + b : r;
    }
    case TypeIndex::kMin:
      if (is_unsigned) return static_cast<int64_t>(std::min(ua, ub));
      return std::min(a, b);
    case TypeIndex::kMax:
      if (is_unsigned) return static_cast<int64_t>(std::max(ua, ub));
      return std::max(a, b);
    case TypeIndex::kEQ: return a == b;
    case TypeIndex::kNE: return a != b;
    case TypeIndex::kLT: return is_unsigned ? ua < ub : a < b;
    case TypeIndex::kLE: return is_unsigned ? ua <= ub : a <= b;
    case TypeIndex::kGT: return is_unsigned ? ua > ub : a > b;
    case TypeIndex::kGE: return is_unsigned ? ua >= ub : a >= b;
    case TypeIndex::kAnd: return a != 0 && b != 0;
    case TypeIndex::kOr: return a != 0 || b != 0;
    default: Fail("unknown binary operation", span);
  }
}

// A binary operation of `kind` on two floating-point lanes, in double, before rounding to the
// operands' type.
[[gnu::always_inline]] inline double FloatBinary(ir::TypeIndex kind, double a, double b, const Span& span) {
  using ir::TypeIndex;
  switch (kind) {
    case TypeIndex::kAdd: return a + b;
    case TypeIndex::kSub: return a - b;
    case TypeIndex::kMul: return a * b;
    case TypeIndex::kDiv: return a / b;
    case TypeIndex::kMod: return std::fmod(a, b);
    case TypeIndex::kFloorDiv: return std::floor(a / b);
    case TypeIndex::kFloorMod: return a - std::floor(a / b) * b;
    case TypeIndex::kMin: return std::fmin(a, b);
    case TypeIndex::kMax: return std::fmax(a, b);
    case TypeIndex::kEQ: return a == b;
    case TypeIndex::kNE: return a != b;
    case TypeIndex::kLT: return a < b;
    case TypeIndex::kLE: return a <= b;
    case TypeIndex::kGT: return a > b;
    case TypeIndex::kGE: return a >= b;
    case TypeIndex::kAnd: return a != 0 && b != 0;
    case TypeIndex::kOr: return a != 0 || b != 0;
    default: Fail("unknown binary operation", span);
  }
}

// One lane of a binary node of `kind` whose operands are both of the scalar type `t`: the
// result normalized to the node's type (bool for comparisons and And/Or). Binary and the scalar
// fast path both compute through here, so they cannot disagree. Always inlined: the fast path
// instantiates it with `kind` and `t` constant, and the switches fold away.
[[gnu::always_inline]] inline Scalar BinaryLane(ir::TypeIndex kind, DataType t, Scalar a, Scalar b, const Span& span) {
  // IsComparison(kind), spelled here so that it folds too.
  const bool compare = (kind >= ir::TypeIndex::kEQ && kind <= ir::TypeIndex::kGE) ||
                       kind == ir::TypeIndex::kAnd || kind == ir::TypeIndex::kOr;
  const Kind k = KindOf(t);
  if (k == Kind::kFloat) {
    const double v = FloatBinary(kind, a.f, b.f, span);
    return compare ? Scalar{.i = v != 0} : Normalize(t, Scalar{.f = v});
  }
  return Normalize(compare ? DataType::Bool() : t, Scalar{.i = IntBinary(kind, k, t, a.i, b.i, span)});
}

// One lane converted from type `from` to `to` (neither a handle), as Cast does.
Scalar CastLane(DataType to, DataType from, Scalar s);
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

// Memory: reads/writes one element of dtype `t` (scalar) at `p`. Inline, so that a caller that
// knows `t` when compiling gets a plain load or store.
[[gnu::always_inline]] inline Scalar LoadScalar(DataType t, const uint8_t* p) {
  Scalar s{0};
  auto load = [&](auto v) {
    std::memcpy(&v, p, sizeof(v));
    return v;
  };
  switch (KindOf(t)) {
    case Kind::kBool: s.i = load(uint8_t{}) != 0; break;
    case Kind::kInt:
      switch (t.bits()) {
        case 8: s.i = load(int8_t{}); break;
        case 16: s.i = load(int16_t{}); break;
        case 32: s.i = load(int32_t{}); break;
        default: s.i = load(int64_t{}); break;
      }
      break;
    case Kind::kUInt:
      switch (t.bits()) {
        case 8: s.i = load(uint8_t{}); break;
        case 16: s.i = load(uint16_t{}); break;
        case 32: s.i = load(uint32_t{}); break;
        default: s.i = static_cast<int64_t>(load(uint64_t{})); break;
      }
      break;
    case Kind::kFloat:
      if (t.code() == DataType::kFloat8_e4m3fn) s.f = runtime::Float8E4M3FNBitsToDouble(*p);
      else if (t.code() == DataType::kFloat8_e5m2) s.f = runtime::Float8E5M2BitsToDouble(*p);
      else if (t.is_bfloat16()) s.f = runtime::BFloat16BitsToFloat(load(uint16_t{}));
      else if (t.bits() == 16) s.f = runtime::HalfBitsToFloat(load(uint16_t{}));
      else if (t.bits() == 32) s.f = load(float{});
      else s.f = load(double{});
      break;
    default: s.i = load(int64_t{}); break;
  }
  return s;
}

[[gnu::always_inline]] inline void StoreScalar(DataType t, uint8_t* p, Scalar s) {
  auto store = [&](auto v) { std::memcpy(p, &v, sizeof(v)); };
  switch (KindOf(t)) {
    case Kind::kBool: store(static_cast<uint8_t>(s.i != 0)); break;
    case Kind::kInt:
    case Kind::kUInt:
      switch (t.bits()) {
        case 8: store(static_cast<uint8_t>(s.i)); break;
        case 16: store(static_cast<uint16_t>(s.i)); break;
        case 32: store(static_cast<uint32_t>(s.i)); break;
        default: store(static_cast<uint64_t>(s.i)); break;
      }
      break;
    case Kind::kFloat:
      if (t.code() == DataType::kFloat8_e4m3fn) store(runtime::DoubleToFloat8E4M3FNBits(s.f));
      else if (t.code() == DataType::kFloat8_e5m2) store(runtime::DoubleToFloat8E5M2Bits(s.f));
      else if (t.is_bfloat16()) store(runtime::DoubleToBFloat16Bits(s.f));
      else if (t.bits() == 16) store(runtime::DoubleToHalfBits(s.f));
      else if (t.bits() == 32) store(static_cast<float>(s.f));
      else store(s.f);
      break;
    default: store(s.i); break;
  }
}
// Bytes one element of `t` occupies (bool: 1; lanes included).
int64_t ElementBytes(DataType t);

std::string ValueToString(const Value& v);

}  // namespace wb::tir::interp
