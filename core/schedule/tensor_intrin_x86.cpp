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

namespace wb::schedule {
namespace {

const char* kFmaDesc16 = R"(@T.prim_func
def fma_f32_1x16x4_desc(a: T.handle, b: T.handle, c: T.handle):
    A = T.match_buffer(a, (4,), "float32", offset_factor=1)
    B = T.match_buffer(b, (4, 16), "float32", offset_factor=1)
    C = T.match_buffer(c, (16,), "float32", offset_factor=1)
    with T.sblock("root"):
        T.reads(C[0:16], A[0:4], B[0:4, 0:16])
        T.writes(C[0:16])
        for j, k in T.grid(16, 4):
            with T.sblock("update"):
                vj, vk = T.axis.remap("SR", [j, k])
                C[vj] = C[vj] + A[vk] * B[vk, vj]
)";

const char* kFmaImpl16 = R"(@T.prim_func
def fma_f32_1x16x4_impl(a: T.handle, b: T.handle, c: T.handle):
    A = T.match_buffer(a, (4,), "float32", offset_factor=1)
    B = T.match_buffer(b, (4, 16), "float32", offset_factor=1)
    C = T.match_buffer(c, (16,), "float32", offset_factor=1)
    with T.sblock("root"):
        T.reads(C[0:16], A[0:4], B[0:4, 0:16])
        T.writes(C[0:16])
        for k in T.unroll(4):
            C[T.Ramp(0, 1, 16)] = C[T.Ramp(0, 1, 16)] + T.Broadcast(A[k], 16) * B[k, T.Ramp(0, 1, 16)]
)";

const char* kFmaDesc8 = R"(@T.prim_func
def fma_f32_1x8x4_desc(a: T.handle, b: T.handle, c: T.handle):
    A = T.match_buffer(a, (4,), "float32", offset_factor=1)
    B = T.match_buffer(b, (4, 8), "float32", offset_factor=1)
    C = T.match_buffer(c, (8,), "float32", offset_factor=1)
    with T.sblock("root"):
        T.reads(C[0:8], A[0:4], B[0:4, 0:8])
        T.writes(C[0:8])
        for j, k in T.grid(8, 4):
            with T.sblock("update"):
                vj, vk = T.axis.remap("SR", [j, k])
                C[vj] = C[vj] + A[vk] * B[vk, vj]
)";

const char* kFmaImpl8 = R"(@T.prim_func
def fma_f32_1x8x4_impl(a: T.handle, b: T.handle, c: T.handle):
    A = T.match_buffer(a, (4,), "float32", offset_factor=1)
    B = T.match_buffer(b, (4, 8), "float32", offset_factor=1)
    C = T.match_buffer(c, (8,), "float32", offset_factor=1)
    with T.sblock("root"):
        T.reads(C[0:8], A[0:4], B[0:4, 0:8])
        T.writes(C[0:8])
        for k in T.unroll(4):
            C[T.Ramp(0, 1, 8)] = C[T.Ramp(0, 1, 8)] + T.Broadcast(A[k], 8) * B[k, T.Ramp(0, 1, 8)]
)";

const char* kVnniDesc16 = R"(@T.prim_func
def dot_product_16x4_u8i8i32_desc(a: T.handle, b: T.handle, c: T.handle):
    A = T.match_buffer(a, (4,), "uint8", offset_factor=1)
    B = T.match_buffer(b, (16, 4), "int8", offset_factor=1)
    C = T.match_buffer(c, (16,), "int32", offset_factor=1)
    with T.sblock("root"):
        T.reads(C[0:16], A[0:4], B[0:16, 0:4])
        T.writes(C[0:16])
        for i, k in T.grid(16, 4):
            with T.sblock("update"):
                vi, vk = T.axis.remap("SR", [i, k])
                C[vi] = C[vi] + T.Cast("int32", A[vk]) * T.Cast("int32", B[vi, vk])
)";

const char* kVnniImpl16 = R"(@T.prim_func
def dot_product_16x4_u8i8i32_vnni(a: T.handle, b: T.handle, c: T.handle):
    A = T.match_buffer(a, (4,), "uint8", offset_factor=1)
    B = T.match_buffer(b, (16, 4), "int8", offset_factor=1)
    C = T.match_buffer(c, (16,), "int32", offset_factor=1)
    with T.sblock("root"):
        T.reads(C[0:16], A[0:4], B[0:16, 0:4])
        T.writes(C[0:16])
        C[T.Ramp(0, 1, 16)] = T.call_llvm_pure_intrin("int32x16", "llvm.x86.avx512.vpdpbusd.512", C[T.Ramp(0, 1, 16)], T.Broadcast(T.reinterpret("int32", A[T.Ramp(0, 1, 4)]), 16), T.reinterpret("int32x16", B[0, T.Ramp(0, 1, 64)]))
)";

const char* kVnniDesc8 = R"(@T.prim_func
def dot_product_8x4_u8i8i32_desc(a: T.handle, b: T.handle, c: T.handle):
    A = T.match_buffer(a, (4,), "uint8", offset_factor=1)
    B = T.match_buffer(b, (8, 4), "int8", offset_factor=1)
    C = T.match_buffer(c, (8,), "int32", offset_factor=1)
    with T.sblock("root"):
        T.reads(C[0:8], A[0:4], B[0:8, 0:4])
        T.writes(C[0:8])
        for i, k in T.grid(8, 4):
            with T.sblock("update"):
                vi, vk = T.axis.remap("SR", [i, k])
                C[vi] = C[vi] + T.Cast("int32", A[vk]) * T.Cast("int32", B[vi, vk])
)";

const char* kVnniImpl8 = R"(@T.prim_func
def dot_product_8x4_u8i8i32_avx_vnni(a: T.handle, b: T.handle, c: T.handle):
    A = T.match_buffer(a, (4,), "uint8", offset_factor=1)
    B = T.match_buffer(b, (8, 4), "int8", offset_factor=1)
    C = T.match_buffer(c, (8,), "int32", offset_factor=1)
    with T.sblock("root"):
        T.reads(C[0:8], A[0:4], B[0:8, 0:4])
        T.writes(C[0:8])
        C[T.Ramp(0, 1, 8)] = T.call_llvm_pure_intrin("int32x8", "llvm.x86.avx512.vpdpbusd.256", C[T.Ramp(0, 1, 8)], T.Broadcast(T.reinterpret("int32", A[T.Ramp(0, 1, 4)]), 8), T.reinterpret("int32x8", B[0, T.Ramp(0, 1, 32)]))
)";

TensorIntrinRegistrar fma16("fma_f32_1x16x4_avx512", kFmaDesc16, kFmaImpl16);
TensorIntrinRegistrar fma8("fma_f32_1x8x4_avx2", kFmaDesc8, kFmaImpl8);
TensorIntrinRegistrar vnni16("dot_16x4_vnni", kVnniDesc16, kVnniImpl16);
TensorIntrinRegistrar vnni8("dot_8x4_avx_vnni", kVnniDesc8, kVnniImpl8);

}  // namespace
}  // namespace wb::schedule
