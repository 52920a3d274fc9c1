// Integer helpers shared by the arith analyzers: floor division with TVM's semantics and
// arithmetic on int64 bounds where kPosInf/kNegInf stand for "unbounded" and saturate instead of
// overflowing (so a bound never wraps around into a wrong, finite claim).
#pragma once

#include <cstdint>
#include <limits>

namespace wb::arith {

constexpr int64_t kPosInf = std::numeric_limits<int64_t>::max();
constexpr int64_t kNegInf = -kPosInf;

inline int64_t FloorDiv(int64_t a, int64_t b) {
  int64_t q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0))) --q;
  return q;
}
inline int64_t FloorMod(int64_t a, int64_t b) { return a - FloorDiv(a, b) * b; }

// Integer add, sub and mul that wrap in two's complement as the hardware does, computed
// unsigned since signed overflow is undefined in C++. Folding and the canonical form's scales
// use them: a program whose constants overflow wraps, it does not invoke undefined behaviour.
inline int64_t WrappingAdd(int64_t a, int64_t b) { return static_cast<int64_t>(static_cast<uint64_t>(a) + static_cast<uint64_t>(b)); }
inline int64_t WrappingSub(int64_t a, int64_t b) { return static_cast<int64_t>(static_cast<uint64_t>(a) - static_cast<uint64_t>(b)); }
inline int64_t WrappingMul(int64_t a, int64_t b) { return static_cast<int64_t>(static_cast<uint64_t>(a) * static_cast<uint64_t>(b)); }

inline int64_t Gcd(int64_t a, int64_t b) {
  if (a < 0) a = -a;
  if (b < 0) b = -b;
  while (b != 0) {
    int64_t t = a % b;
    a = b;
    b = t;
  }
  return a;
}

// a + b on bounds: infinities absorb, finite overflow saturates to the matching infinity.
inline int64_t InfAwareAdd(int64_t a, int64_t b) {
  if (a == kPosInf || b == kPosInf) return (a == kNegInf || b == kNegInf) ? 0 : kPosInf;
  if (a == kNegInf || b == kNegInf) return kNegInf;
  int64_t r;
  if (__builtin_add_overflow(a, b, &r)) return a > 0 ? kPosInf : kNegInf;
  if (r >= kPosInf) return kPosInf;
  if (r <= kNegInf) return kNegInf;
  return r;
}

inline int64_t InfAwareNeg(int64_t a) {
  if (a == kPosInf) return kNegInf;
  if (a == kNegInf) return kPosInf;
  return -a;
}

inline int64_t InfAwareMul(int64_t a, int64_t b) {
  if (a == 0 || b == 0) return 0;
  bool neg = (a < 0) != (b < 0);
  if (a == kPosInf || a == kNegInf || b == kPosInf || b == kNegInf) return neg ? kNegInf : kPosInf;
  int64_t r;
  if (__builtin_mul_overflow(a, b, &r) || r >= kPosInf || r <= kNegInf) {
    return neg ? kNegInf : kPosInf;
  }
  return r;
}

// floor(a / b) for b != 0 finite; an infinite a stays infinite with the sign of the quotient.
inline int64_t InfAwareFloorDiv(int64_t a, int64_t b) {
  if (a == kPosInf || a == kNegInf) return ((a < 0) != (b < 0)) ? kNegInf : kPosInf;
  return FloorDiv(a, b);
}

// Truncating division, same conventions.
inline int64_t InfAwareTruncDiv(int64_t a, int64_t b) {
  if (a == kPosInf || a == kNegInf) return ((a < 0) != (b < 0)) ? kNegInf : kPosInf;
  return a / b;
}

}  // namespace wb::arith
