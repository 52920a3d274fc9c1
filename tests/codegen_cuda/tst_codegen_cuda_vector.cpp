// Vectors in the CUDA codegen: contiguous, provably aligned Ramp accesses become one float4 /
// float2 / half2 / nv_bfloat162 / char4 / uchar4 load or store; strided, unaligned, predicated
// and over-wide accesses are scalarized one element a lane; vector arithmetic, math, casts,
// selects, lets and shuffles print lane by lane. Every module is compiled by NVRTC for sm_90.

#include <QTest>

#include "cuda_test_util.h"

using namespace wb;
using namespace wb::testing;

namespace {

// One kernel `vec_kernel(A, B)` over `dtype` buffers with the given body (indented 4 spaces).
std::string Kernel(const std::string& dtype, const std::string& body, const std::string& extra_params = "") {
  return "@T.prim_func\n"
         "def vec_kernel(A: T.Buffer((4096,), \"" + dtype + "\"), B: T.Buffer((4096,), \"" + dtype + "\")" +
         extra_params + "):\n"
         "    T.func_attr({\"calling_conv\": 2, \"tir.kernel_launch_params\": [\"blockIdx.x\", \"threadIdx.x\"]})\n"
         "    bx = T.launch_thread(\"blockIdx.x\", 4)\n"
         "    tx = T.launch_thread(\"threadIdx.x\", 256)\n" + body;
}

}  // namespace

class TestCodegenCudaVector : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  void float4LoadAndStore() {
    std::string c = GenerateOk(ParseDevice(Kernel("float32",
        "    B[T.Ramp(bx * 1024 + tx * 4, 1, 4)] = A[T.Ramp(bx * 1024 + tx * 4, 1, 4)] * T.Broadcast(alpha, 4) + T.Broadcast(T.float32(1), 4)\n",
        ", alpha: T.float32"))).code;
    CUDA_EXPECT(c, "float4 A_vec = *(float4*)(A + ((bx * 1024) + (tx * 4)));");
    CUDA_EXPECT(c, "*(float4*)(B + ((bx * 1024) + (tx * 4))) = make_float4(((A_vec.x * alpha) + 1.0f), "
                   "((A_vec.y * alpha) + 1.0f), ((A_vec.z * alpha) + 1.0f), ((A_vec.w * alpha) + 1.0f));");
    CUDA_EXPECT_COMPILES(c);
  }

  void widthsAndTypes() {
    struct Case {
      const char* dtype;
      int lanes;
      const char* load;   // the vector load's declaration
      const char* store;  // how the stored vector is built
    };
    const Case cases[] = {
        {"float32", 2, "float2 A_vec = *(float2*)(A + (tx * 2));", "*(float2*)(B + (tx * 2)) = make_float2("},
        {"float16", 2, "half2 A_vec = *(half2*)(A + (tx * 2));", "*(half2*)(B + (tx * 2)) = __halves2half2("},
        {"bfloat16", 2, "nv_bfloat162 A_vec = *(nv_bfloat162*)(A + (tx * 2));",
         "*(nv_bfloat162*)(B + (tx * 2)) = __halves2bfloat162("},
        {"int8", 4, "char4 A_vec = *(char4*)(A + (tx * 4));", "*(char4*)(B + (tx * 4)) = make_char4("},
        {"uint8", 4, "uchar4 A_vec = *(uchar4*)(A + (tx * 4));", "*(uchar4*)(B + (tx * 4)) = make_uchar4("},
        {"int16", 4, "short4 A_vec = *(short4*)(A + (tx * 4));", "*(short4*)(B + (tx * 4)) = make_short4("},
        {"int32", 4, "int4 A_vec = *(int4*)(A + (tx * 4));", "*(int4*)(B + (tx * 4)) = make_int4("},
        {"float64", 2, "double2 A_vec = *(double2*)(A + (tx * 2));", "*(double2*)(B + (tx * 2)) = make_double2("},
        {"int64", 2, "longlong2 A_vec = *(longlong2*)(A + (tx * 2));", "*(longlong2*)(B + (tx * 2)) = make_longlong2("},
    };
    for (const Case& k : cases) {
      std::string n = std::to_string(k.lanes);
      std::string ramp = "T.Ramp(tx * " + n + ", 1, " + n + ")";
      std::string c = GenerateOk(ParseDevice(Kernel(k.dtype, "    B[" + ramp + "] = A[" + ramp + "] + A[" + ramp + "]\n"))).code;
      CUDA_EXPECT(c, k.load);
      CUDA_EXPECT(c, k.store);
      CUDA_EXPECT_COMPILES(c);
    }
  }

  void unalignedStridedAndWideAreScalarized() {
    // Base tx * 4 + 1 is not a multiple of 4; a stride of 256 is not contiguous; float32x8 has
    // no CUDA type.
    std::string c = GenerateOk(ParseDevice(Kernel("float32",
        "    B[T.Ramp(tx * 4 + 1, 1, 4)] = A[T.Ramp(tx * 4 + 1, 1, 4)]\n"
        "    B[T.Ramp(tx, 256, 4)] = A[T.Ramp(tx, 256, 4)] + T.Broadcast(T.float32(2), 4)\n"
        "    B[T.Ramp(tx * 8, 1, 8)] = A[T.Ramp(tx * 8, 1, 8)]\n"))).code;
    QVERIFY2(!Contains(c, "float4") && !Contains(c, "float8"), c.c_str());
    CUDA_EXPECT(c, "float v_4 = A[(v + 3)];");
    CUDA_EXPECT(c, "B[(v_1 + 3)] = v_4;");
    CUDA_EXPECT(c, "float v_8 = (A[(tx + 768)] + 2.0f);");
    CUDA_EXPECT(c, "B[(tx + 768)] = v_8;");
    CUDA_EXPECT(c, "float v_17 = A[(v_9 + 7)];");
    CUDA_EXPECT(c, "B[(v_10 + 7)] = v_17;");
    CUDA_EXPECT_COMPILES(c);
  }

  void alignmentFromSymbolicCoefficients() {
    // n * 8 + tx * 4 is a multiple of 4 whatever n is: aligned.
    std::string c = GenerateOk(ParseDevice(Kernel("float32",
        "    B[T.Ramp(n * 8 + tx * 4, 1, 4)] = A[T.Ramp(n * 8 + tx * 4, 1, 4)]\n"
        "    B[T.Ramp(n + tx * 4, 1, 4)] = A[T.Ramp(n + tx * 4, 1, 4)]\n", ", n: T.int32"))).code;
    CUDA_EXPECT(c, "*(float4*)(B + ((n * 8) + (tx * 4))) = make_float4(A_vec.x, A_vec.y, A_vec.z, A_vec.w);");
    // n + tx * 4 may be anything modulo 4: one element a lane.
    CUDA_EXPECT(c, "int v = (n + (tx * 4));");
    CUDA_EXPECT(c, "float v_4 = A[(v + 3)];");
    CUDA_EXPECT(c, "B[(v_1 + 3)] = v_4;");
    CUDA_EXPECT_COMPILES(c);
  }

  void multiDimensionalVectorAccess() {
    std::string c = GenerateOk(ParseDevice(R"(
@T.prim_func
def vec_kernel(A: T.Buffer((64, 256), "float32"), B: T.Buffer((64, 256), "float32")):
    T.func_attr({"calling_conv": 2, "tir.kernel_launch_params": ["blockIdx.x", "threadIdx.x"]})
    bx = T.launch_thread("blockIdx.x", 64)
    tx = T.launch_thread("threadIdx.x", 64)
    B[bx, T.Ramp(tx * 4, 1, 4)] = A[bx, T.Ramp(tx * 4, 1, 4)]
)")).code;
    CUDA_EXPECT(c, "float4 A_vec = *(float4*)(A + ((tx * 4) + (bx * 256)));");
    CUDA_EXPECT_COMPILES(c);
  }

  void predicatedAccessesAreScalarized() {
    std::string c = GenerateOk(ParseDevice(Kernel("float32",
        "    B.vstore([T.Ramp(tx * 4, 1, 4)], A.vload([T.Ramp(tx * 4, 1, 4)], predicate=T.Ramp(tx * 4, 1, 4) < T.Broadcast(n, 4)), "
        "predicate=T.Ramp(tx * 4, 1, 4) < T.Broadcast(n, 4))\n", ", n: T.int32"))).code;
    QVERIFY2(!Contains(c, "float4"), c.c_str());
    CUDA_EXPECT(c, "float v_6 = (((v_1 + 2) < n) ? A[(v + 2)] : 0.0f);");
    CUDA_EXPECT(c, "if (((v_3 + 3) < n)) B[(v_2 + 3)] = v_7;");
    CUDA_EXPECT_COMPILES(c);
  }

  void laneWiseExpressions() {
    // Math, casts, selects, lets and shuffles on vectors.
    std::string c = GenerateOk(ParseDevice(R"(
@T.prim_func
def vec_kernel(A: T.Buffer((4096,), "float32"), H: T.Buffer((4096,), "float16"), B: T.Buffer((4096,), "float32")):
    T.func_attr({"calling_conv": 2, "tir.kernel_launch_params": ["threadIdx.x"]})
    tx = T.launch_thread("threadIdx.x", 256)
    y = T.float32()
    B[T.Ramp(tx * 4, 1, 4)] = T.exp(A[T.Ramp(tx * 4, 1, 4)])
    B[T.Ramp(tx * 2, 1, 2)] = T.Cast("float32x2", H[T.Ramp(tx * 2, 1, 2)])
    B[T.Ramp(tx * 4, 1, 4)] = T.Select(A[T.Ramp(tx * 4, 1, 4)] > T.Broadcast(T.float32(0), 4), A[T.Ramp(tx * 4, 1, 4)], T.Broadcast(T.float32(0), 4))
    B[T.Ramp(tx * 4, 1, 4)] = T.Let(T.Broadcast(y, 4) * A[T.Ramp(tx * 4, 1, 4)], where={y: A[tx] + T.float32(1)})
    B[T.Ramp(tx * 2, 1, 2)] = T.Shuffle([A[T.Ramp(tx * 2, 1, 2)]], [1, 0])
)")).code;
    CUDA_EXPECT(c, "make_float4(expf(A_vec.x), expf(A_vec.y), expf(A_vec.z), expf(A_vec.w))");
    CUDA_EXPECT(c, "half2 H_vec = *(half2*)(H + (tx * 2));");
    CUDA_EXPECT(c, "make_float2(__half2float(H_vec.x), __half2float(H_vec.y))");
    CUDA_EXPECT(c, "((A_vec_1.x > 0.0f) ? A_vec_2.x : 0.0f)");
    CUDA_EXPECT(c, "float y = (A[tx] + 1.0f);");
    CUDA_EXPECT(c, "make_float4((y * A_vec_3.x), (y * A_vec_3.y), (y * A_vec_3.z), (y * A_vec_3.w))");
    CUDA_EXPECT(c, "make_float2(A_vec_4.y, A_vec_4.x)");
    CUDA_EXPECT_COMPILES(c);
  }

  void sharedMemoryVectors() {
    // Shared and local arrays are declared 16-byte aligned, so their aligned Ramps vectorize.
    std::string c = GenerateOk(ParseDevice(R"(
@T.prim_func
def vec_kernel(A: T.Buffer((4096,), "float32"), B: T.Buffer((4096,), "float32")):
    T.func_attr({"calling_conv": 2, "tir.kernel_launch_params": ["blockIdx.x", "threadIdx.x"]})
    bx = T.launch_thread("blockIdx.x", 4)
    tx = T.launch_thread("threadIdx.x", 256)
    S = T.alloc_shared((1024,))
    L = T.alloc_local((4,))
    S[T.Ramp(tx * 4, 1, 4)] = A[T.Ramp(bx * 1024 + tx * 4, 1, 4)]
    T.tvm_storage_sync("shared")
    L[T.Ramp(0, 1, 4)] = S[T.Ramp(1020 - tx * 4, 1, 4)]
    B[T.Ramp(bx * 1024 + tx * 4, 1, 4)] = L[T.Ramp(0, 1, 4)]
)")).code;
    CUDA_EXPECT(c, "*(float4*)(S + (tx * 4)) = make_float4(");
    CUDA_EXPECT(c, "float4 S_vec = *(float4*)(S + (1020 - (tx * 4)));");
    CUDA_EXPECT(c, "float4 L_vec = *(float4*)(L + 0);");
    CUDA_EXPECT_COMPILES(c);
  }
};

QTEST_APPLESS_MAIN(TestCodegenCudaVector)
#include "tst_codegen_cuda_vector.moc"
