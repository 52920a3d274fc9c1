// Narrow floating-point formats as bit patterns: IEEE binary16 (float16) and bfloat16. The
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

}  // namespace wb::runtime
