// Narrow floating-point formats as bit patterns: IEEE binary16 (float16), bfloat16 and the two
// common 8-bit formats (float8_e4m3fn, float8_e5m2, with ml_dtypes' conventions). The
// runtime stores them as raw 16-bit words; every producer and consumer (NDArray helpers, .npy
// files, the reference interpreter) converts through these functions so that rounding is the
// same everywhere: round to nearest, ties to even, NaN stays NaN, overflow goes to infinity.
#pragma once

#include <cstdint>

namespace wb::runtime {

uint16_t FloatToHalfBits(float value);
float HalfBitsToFloat(uint16_t bits);
// Rounds a double straight to binary16 (one rounding, not double -> float -> half).
uint16_t DoubleToHalfBits(double value);

uint16_t FloatToBFloat16Bits(float value);
float BFloat16BitsToFloat(uint16_t bits);
// Rounds a double straight to bfloat16.
uint16_t DoubleToBFloat16Bits(double value);

// float8_e4m3fn: 4 exponent bits (bias 7), 3 mantissa bits, no infinities; S.1111.111 is NaN,
// the largest finite value is 448. Values that round beyond it, and infinities, become NaN.
uint8_t DoubleToFloat8E4M3FNBits(double value);
double Float8E4M3FNBitsToDouble(uint8_t bits);
// float8_e5m2: IEEE-style, 5 exponent bits (bias 15), 2 mantissa bits, with infinities.
uint8_t DoubleToFloat8E5M2Bits(double value);
double Float8E5M2BitsToDouble(uint8_t bits);

}  // namespace wb::runtime
