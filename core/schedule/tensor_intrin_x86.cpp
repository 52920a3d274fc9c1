// Built-in tensor intrinsics for x86 CPUs (TVM's python/tvm/s_tir/tensor_intrin/x86.py).
//
// - fma_f32_1x{8,16}x4_{avx2,avx512}: a float32 micro-kernel C[0:N] += A[k] * B[k, 0:N] over
//   k < 4, one vector of N lanes (8: an AVX2 ymm register, 16: an AVX-512 zmm register) with A
//   broadcast. Plain TIR vector operations, so any LLVM target builds them (a narrower one splits
//   the vectors) and the reference interpreter runs them; each C element sums in k order, as the
//   loop nest it replaces does.
// - dot_16x4_vnni (TVM's name and description): u8 x i8 -> i32, C[i] += sum over k < 4 of
//   A[k] * B[i, k] for 16 lanes in one vpdpbusd (AVX512-VNNI); B is laid out [16, 4] so its 64
//   bytes load as one vector. dot_8x4_avx_vnni: the same on 8 lanes (the 256-bit vpdpbusd of
//   AVX-VNNI or AVX512-VNNI with VL). These call the LLVM intrinsic: they build for any x86
//   target with the feature and run only on a CPU that has it.
#include "schedule/tensor_intrin.h"

#include <string>

namespace wb::schedule {
namespace {

// `text` with every "@N" replaced by `lanes` and "@B" by `lanes * 4` (the bytes of a u8x4 row).
std::string Lanes(std::string text, int lanes) {
  for (auto [key, value] : {std::pair{"@B", lanes * 4}, std::pair{"@N", lanes}}) {
    for (size_t at = text.find(key); at != std::string::npos; at = text.find(key, at)) {
      text.replace(at, 2, std::to_string(value));
    }
  }
  return text;
}

// The buffers and regions both functions of an intrinsic declare.
std::string Header(const std::string& name, const char* types, bool lanes_first) {
  std::string b = lanes_first ? "(@N, 4)" : "(4, @N)";
  std::string b_region = lanes_first ? "B[0:@N, 0:4]" : "B[0:4, 0:@N]";
  std::string t_a = types[0] == 'f' ? "float32" : "uint8";
  std::string t_b = types[0] == 'f' ? "float32" : "int8";
  std::string t_c = types[0] == 'f' ? "float32" : "int32";
  return "@T.prim_func\ndef " + name + "(a: T.handle, b: T.handle, c: T.handle):\n"
         "    A = T.match_buffer(a, (4,), \"" + t_a + "\", offset_factor=1)\n"
         "    B = T.match_buffer(b, " + b + ", \"" + t_b + "\", offset_factor=1)\n"
         "    C = T.match_buffer(c, (@N,), \"" + t_c + "\", offset_factor=1)\n"
         "    with T.sblock(\"root\"):\n"
         "        T.reads(C[0:@N], A[0:4], " + b_region + ")\n"
         "        T.writes(C[0:@N])\n";
}

// C[0:N] += A[k] * B[k, 0:N] over k < 4, on N float32 lanes.
TensorIntrinRegistrar Fma(const char* name, int lanes) {
  std::string desc = Header(std::string(name) + "_desc", "f", false) +
                     "        for j, k in T.grid(@N, 4):\n"
                     "            with T.sblock(\"update\"):\n"
                     "                vj, vk = T.axis.remap(\"SR\", [j, k])\n"
                     "                C[vj] = C[vj] + A[vk] * B[vk, vj]\n";
  std::string impl = Header(std::string(name) + "_impl", "f", false) +
                     "        for k in T.unroll(4):\n"
                     "            C[T.Ramp(0, 1, @N)] = C[T.Ramp(0, 1, @N)] + T.Broadcast(A[k], @N) * "
                     "B[k, T.Ramp(0, 1, @N)]\n";
  return TensorIntrinRegistrar(name, Lanes(desc, lanes), Lanes(impl, lanes));
}

// C[i] += sum over k < 4 of A[k] * B[i, k] (u8 x i8 -> i32) on N lanes, one vpdpbusd of `llvm`.
TensorIntrinRegistrar Vnni(const char* name, int lanes, const char* llvm) {
  std::string desc = Header("dot_product_@Nx4_u8i8i32_desc", "i", true) +
                     "        for i, k in T.grid(@N, 4):\n"
                     "            with T.sblock(\"update\"):\n"
                     "                vi, vk = T.axis.remap(\"SR\", [i, k])\n"
                     "                C[vi] = C[vi] + T.Cast(\"int32\", A[vk]) * T.Cast(\"int32\", B[vi, vk])\n";
  std::string impl = Header("dot_product_@Nx4_u8i8i32_vnni", "i", true) +
                     "        C[T.Ramp(0, 1, @N)] = T.call_llvm_pure_intrin(\"int32x@N\", \"" + std::string(llvm) +
                     "\", C[T.Ramp(0, 1, @N)], T.Broadcast(T.reinterpret(\"int32\", A[T.Ramp(0, 1, 4)]), @N), "
                     "T.reinterpret(\"int32x@N\", B[0, T.Ramp(0, 1, @B)]))\n";
  return TensorIntrinRegistrar(name, Lanes(desc, lanes), Lanes(impl, lanes));
}

TensorIntrinRegistrar fma16 = Fma("fma_f32_1x16x4_avx512", 16);
TensorIntrinRegistrar fma8 = Fma("fma_f32_1x8x4_avx2", 8);
TensorIntrinRegistrar vnni16 = Vnni("dot_16x4_vnni", 16, "llvm.x86.avx512.vpdpbusd.512");
TensorIntrinRegistrar vnni8 = Vnni("dot_8x4_avx_vnni", 8, "llvm.x86.avx512.vpdpbusd.256");

}  // namespace
}  // namespace wb::schedule
