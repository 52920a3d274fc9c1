#include "softmax_reference.h"

#include <cmath>
#include <cstring>

namespace {

// The native vector width (GCC vector extensions; -march=native picks AVX-512 or AVX2).
#if defined(__AVX512F__)
constexpr int kLanes = 16;
#else
constexpr int kLanes = 8;
#endif
typedef float VF __attribute__((vector_size(kLanes * 4)));
typedef int VI __attribute__((vector_size(kLanes * 4)));

VF Splat(float v) {
  VF r;
  for (int i = 0; i < kLanes; ++i) r[i] = v;
  return r;
}

// Cephes' expf on a vector (inputs <= 0 here: x - max).
VF Exp(VF x) {
  x = x < Splat(-87.33654f) ? Splat(-87.33654f) : x;
  VF t = x * 1.44269504f + 0.5f;
  VI ti = __builtin_convertvector(t, VI);
  VI ni =
      ti + (__builtin_convertvector(ti, VF) > t);  // floor: one less where truncation rounded up
  VF n = __builtin_convertvector(ni, VF);
  VF r = x - n * 0.693359375f - n * -2.12194440e-4f;
  VF p = Splat(1.9875691500e-4f);
  p = p * r + 1.3981999507e-3f;
  p = p * r + 8.3334519073e-3f;
  p = p * r + 4.1665795894e-2f;
  p = p * r + 1.6666665459e-1f;
  p = p * r + 5.0000001201e-1f;
  p = p * (r * r) + r + 1.0f;
  VI e = (ni + 127) << 23;
  VF scale;
  std::memcpy(&scale, &e, sizeof(scale));
  return p * scale;
}

}  // namespace

void SoftmaxRowsReference(const float* x, float* y, int64_t begin, int64_t end, int64_t n) {
  for (int64_t row = begin; row < end; ++row) {
    const float* in = x + row * n;
    float* out = y + row * n;
    VF mx = Splat(-INFINITY);
    int64_t j = 0;
    for (; j + kLanes <= n; j += kLanes) {
      VF v;
      std::memcpy(&v, in + j, sizeof(v));
      mx = v > mx ? v : mx;
    }
    float m = -INFINITY;
    for (int i = 0; i < kLanes; ++i) m = std::fmax(m, mx[i]);
    for (; j < n; ++j) m = std::fmax(m, in[j]);
    VF sum = Splat(0.0f);
    for (j = 0; j + kLanes <= n; j += kLanes) {
      VF v;
      std::memcpy(&v, in + j, sizeof(v));
      VF e = Exp(v - m);
      std::memcpy(out + j, &e, sizeof(e));
      sum += e;
    }
    float s = 0;
    for (int i = 0; i < kLanes; ++i) s += sum[i];
    for (; j < n; ++j) s += out[j] = std::exp(in[j] - m);
    VF inv = Splat(1.0f / s);
    for (j = 0; j + kLanes <= n; j += kLanes) {
      VF v;
      std::memcpy(&v, out + j, sizeof(v));
      v *= inv;
      std::memcpy(out + j, &v, sizeof(v));
    }
    for (; j < n; ++j) out[j] *= 1.0f / s;
  }
}
