#include "runtime/half.h"

#include <cmath>
#include <cstring>

namespace wb::runtime {

namespace {

// An IEEE-754 style binary format with `ebits` exponent bits and `mbits` stored mantissa bits
// (the all-ones exponent holds infinities and NaNs). One rounding from double, ties to even.
// With `finite_only` (the "fn" formats) the all-ones exponent holds normal numbers, only the
// all-ones pattern is NaN, and overflow and infinities give NaN.
uint32_t EncodeIEEE(double x, int ebits, int mbits, bool finite_only = false) {
  const uint32_t sign = std::signbit(x) ? (1u << (ebits + mbits)) : 0u;
  const uint32_t max_field = (1u << ebits) - 1;
  const uint32_t nan = finite_only ? ((max_field << mbits) | ((1u << mbits) - 1))
                                   : ((max_field << mbits) | (1u << (mbits - 1)));
  if (std::isnan(x)) return sign | nan;
  double a = std::fabs(x);
  if (std::isinf(a)) return sign | (finite_only ? nan : (max_field << mbits));
  if (a == 0) return sign;
  const int bias = (1 << (ebits - 1)) - 1;
  int e = 0;
  std::frexp(a, &e);  // a = f * 2^e, f in [0.5, 1)
  int exp = e - 1;    // a = 1.xxx * 2^exp
  if (exp < 1 - bias) exp = 1 - bias;  // subnormal: fixed quantum
  // The significand in units of the format's quantum at this exponent; exact in a double
  // because it is below 2^(mbits + 2). nearbyint rounds ties to even (default FP mode).
  double scaled = std::ldexp(a, mbits - exp);
  if (scaled >= 9007199254740992.0) return sign | (finite_only ? nan : (max_field << mbits));
  auto sig = static_cast<uint64_t>(std::nearbyint(scaled));
  if (sig >= (uint64_t{2} << mbits)) {  // rounding carried into the next binade
    sig >>= 1;
    ++exp;
  }
  uint32_t field = 0;
  uint32_t mant = 0;
  if (sig >= (uint64_t{1} << mbits)) {
    field = static_cast<uint32_t>(exp + bias);
    mant = static_cast<uint32_t>(sig - (uint64_t{1} << mbits));
  } else {
    mant = static_cast<uint32_t>(sig);
  }
  if (finite_only) {
    const uint32_t bits = (field << mbits) | mant;
    if (field > max_field || bits >= nan) return sign | nan;  // overflow -> NaN
    return sign | bits;
  }
  if (field >= max_field) return sign | (max_field << mbits);  // overflow -> infinity
  return sign | (field << mbits) | mant;
}

double DecodeIEEE(uint32_t bits, int ebits, int mbits, bool finite_only = false) {
  const bool negative = (bits >> (ebits + mbits)) & 1u;
  const uint32_t max_field = (1u << ebits) - 1;
  const uint32_t field = (bits >> mbits) & max_field;
  const uint32_t mant = bits & ((1u << mbits) - 1);
  const int bias = (1 << (ebits - 1)) - 1;
  double v = 0;
  if (finite_only && field == max_field && mant == (1u << mbits) - 1) {
    v = std::nan("");
  } else if (field == max_field && !finite_only) {
    v = mant ? std::nan("") : INFINITY;
  } else if (field == 0) {
    v = std::ldexp(static_cast<double>(mant), 1 - bias - mbits);
  } else {
    v = std::ldexp(static_cast<double>(mant + (1u << mbits)), static_cast<int>(field) - bias - mbits);
  }
  return negative ? -v : v;
}

}  // namespace

uint16_t DoubleToHalfBits(double value) { return static_cast<uint16_t>(EncodeIEEE(value, 5, 10)); }
uint16_t FloatToHalfBits(float value) { return DoubleToHalfBits(value); }
float HalfBitsToFloat(uint16_t bits) { return static_cast<float>(DecodeIEEE(bits, 5, 10)); }

uint16_t DoubleToBFloat16Bits(double value) {
  return static_cast<uint16_t>(EncodeIEEE(value, 8, 7));
}
// bfloat16 is the upper half of a float32, so a float's NaN keeps its payload's top bits.
uint16_t FloatToBFloat16Bits(float value) {
  if (std::isnan(value)) {
    uint32_t u = 0;
    std::memcpy(&u, &value, 4);
    return static_cast<uint16_t>((u >> 16) | 0x40);  // stays a quiet NaN
  }
  return DoubleToBFloat16Bits(value);
}
float BFloat16BitsToFloat(uint16_t bits) {
  uint32_t u = uint32_t{bits} << 16;
  float f = 0;
  std::memcpy(&f, &u, 4);
  return f;
}

uint8_t DoubleToFloat8E4M3FNBits(double value) {
  return static_cast<uint8_t>(EncodeIEEE(value, 4, 3, /*finite_only=*/true));
}
double Float8E4M3FNBitsToDouble(uint8_t bits) { return DecodeIEEE(bits, 4, 3, /*finite_only=*/true); }
uint8_t DoubleToFloat8E5M2Bits(double value) { return static_cast<uint8_t>(EncodeIEEE(value, 5, 2)); }
double Float8E5M2BitsToDouble(uint8_t bits) { return DecodeIEEE(bits, 5, 2); }

}  // namespace wb::runtime
