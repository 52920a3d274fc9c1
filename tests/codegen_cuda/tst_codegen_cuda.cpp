// CodegenCUDA on device PrimFuncs written in TVMScript (calling_conv 2, T.launch_thread, flat
// buffers): each construct's essential line is checked in the generated CUDA C, and the code is
// compiled by NVRTC to PTX for sm_90. Also: the dtype matrix, shared/local/dynamic shared
// memory, warp-shuffle reductions, symbolic extents, the errors for TIR the codegen refuses, and
// NVRTC's errors mapped to the generated line.

#include <QTest>

#include "cuda_test_util.h"
#include "tir/builtin.h"
#include "tir/functor.h"
#include "tir/op.h"

using namespace wb;
using namespace wb::testing;

namespace {

const char* kAdd = R"(
@I.ir_module
class Module:
    @T.prim_func
    def add_kernel(A: T.Buffer((100000,), "float32"), B: T.Buffer((100000,), "float32"), C: T.Buffer((100000,), "float32")):
        T.func_attr({"calling_conv": 2, "tir.kernel_launch_params": ["blockIdx.x", "threadIdx.x"], "tir.noalias": True})
        bx = T.launch_thread("blockIdx.x", 391)
        tx = T.launch_thread("threadIdx.x", 256)
        if bx * 256 + tx < 100000:
            C[bx * 256 + tx] = A[bx * 256 + tx] + B[bx * 256 + tx]
)";

// Rewrites T.call_extern("<dtype>", "wb_op:<name>", args...) into a call of the builtin op
// `tirx.<name>`: ops that the lowering passes emit but TVMScript cannot spell before they are
// registered (tvm_warp_shuffle_down, tvm_warp_activemask, atomic_add).
class RenameOps : public tir::StmtExprMutator {
 public:
  using tir::StmtExprMutator::VisitExpr_;
  ir::PrimExpr VisitExpr_(const tir::CallNode* op) override {
    ir::PrimExpr e = tir::StmtExprMutator::VisitExpr_(op);
    auto* call = e.as<tir::CallNode>();
    auto* name = call && !call->args.empty() ? call->args[0].as<tir::StringImmNode>() : nullptr;
    if (!name || name->value.rfind("wb_op:", 0) != 0) return e;
    ir::Op target;
    if (const tir::OpInfo* info = tir::FindOp("tirx." + name->value.substr(6))) {
      target = info->op;
    } else {
      ir::NodeBuilder<ir::OpNode> node;
      node->name = "tirx." + name->value.substr(6);
      target = node.Finish();
    }
    std::vector<ir::PrimExpr> args(call->args.begin() + 1, call->args.end());
    return tir::MakeCall(call->dtype, target, args);
  }
};

ir::IRModule WithRenamedOps(const ir::IRModule& mod) {
  std::vector<ir::BaseFunc> funcs;
  for (const auto& f : mod->functions) {
    auto* prim = f.as<tir::PrimFuncNode>();
    RenameOps renamer;
    funcs.push_back(tir::MakePrimFunc(prim->params, prim->buffer_map, renamer(prim->body), prim->ret_type, prim->attrs));
  }
  return ir::MakeIRModule(mod->global_vars, funcs, mod->attrs);
}

}  // namespace

class TestCodegenCuda : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  void elementwiseKernel() {
    codegen::CudaSource src = GenerateOk(ParseDevice(kAdd));
    const std::string& c = src.code;
    CUDA_EXPECT(c, "extern \"C\" __global__ void __launch_bounds__(256) add_kernel(float* __restrict__ A, "
                   "float* __restrict__ B, float* __restrict__ C) {");
    CUDA_EXPECT(c, "int bx = ((int)blockIdx.x);");
    CUDA_EXPECT(c, "int tx = ((int)threadIdx.x);");
    CUDA_EXPECT(c, "if (((bx * 256) + tx) < 100000) {");
    CUDA_EXPECT(c, "C[((bx * 256) + tx)] = (A[((bx * 256) + tx)] + B[((bx * 256) + tx)]);");
    QCOMPARE(src.kernels.size(), size_t{1});
    QCOMPARE(src.kernels[0].name, std::string("add_kernel"));
    QCOMPARE(src.kernels[0].arg_dtypes, (std::vector<std::string>{"handle", "handle", "handle"}));
    QCOMPARE(src.kernels[0].launch_param_tags, (std::vector<std::string>{"blockIdx.x", "threadIdx.x"}));
    CUDA_EXPECT_COMPILES(c);
  }

  void pointerParamsAndScalars() {
    // The form SplitHostDevice produces: data pointers (typed handles) then scalars; the kernel
    // name is the global symbol.
    auto mod = ParseDevice(R"(
@T.prim_func
def main(A: T.handle("float32", "global"), B: T.handle("float16", "global"), n: T.int32, alpha: T.float32):
    T.func_attr({"calling_conv": 2, "global_symbol": "main_kernel", "tir.kernel_launch_params": ["blockIdx.x", "threadIdx.x"]})
    A_1 = T.decl_buffer((n,), data=A)
    B_1 = T.decl_buffer((n,), "float16", data=B)
    bx = T.launch_thread("blockIdx.x", (n + 127) // 128)
    tx = T.launch_thread("threadIdx.x", 128)
    if bx * 128 + tx < n:
        B_1[bx * 128 + tx] = T.Cast("float16", A_1[bx * 128 + tx] * alpha)
)");
    codegen::CudaSource src = GenerateOk(mod);
    const std::string& c = src.code;
    CUDA_EXPECT(c, "#include <cuda_fp16.h>");
    CUDA_EXPECT(c, "__launch_bounds__(128) main_kernel(float* A, half* B, int n, float alpha) {");
    CUDA_EXPECT(c, "B[((bx * 128) + tx)] = __float2half_rn((A[((bx * 128) + tx)] * alpha));");
    QCOMPARE(src.kernels[0].name, std::string("main_kernel"));
    QCOMPARE(src.kernels[0].arg_dtypes, (std::vector<std::string>{"handle", "handle", "int32", "float32"}));
    CUDA_EXPECT_COMPILES(c);
  }

  void launchParamsOrderAndMultipleKernels() {
    auto mod = ParseDevice(R"(
@I.ir_module
class Module:
    @T.prim_func
    def host(A: T.Buffer((16,), "float32")):
        for i in range(16):
            A[i] = 0.0

    @T.prim_func
    def scale_2d_kernel(A: T.Buffer((4096,), "float32"), alpha: T.float32):
        T.func_attr({"calling_conv": 2, "tir.kernel_launch_params": ["blockIdx.y", "blockIdx.x", "threadIdx.y", "threadIdx.x"]})
        by = T.launch_thread("blockIdx.y", 4)
        bx = T.launch_thread("blockIdx.x", 4)
        ty = T.launch_thread("threadIdx.y", 16)
        tx = T.launch_thread("threadIdx.x", 16)
        A[by * 1024 + ty * 64 + bx * 16 + tx] = A[by * 1024 + ty * 64 + bx * 16 + tx] * alpha

    @T.prim_func
    def zero_kernel(A: T.Buffer((4096,), "float32")):
        T.func_attr({"calling_conv": 2, "tir.kernel_launch_params": ["blockIdx.x", "threadIdx.x"]})
        bx = T.launch_thread("blockIdx.x", 16)
        tx = T.launch_thread("threadIdx.x", 256)
        A[bx * 256 + tx] = T.float32(0)
)");
    codegen::CudaSource src = GenerateOk(mod);
    const std::string& c = src.code;
    QCOMPARE(src.kernels.size(), size_t{2});  // the host function is not a kernel
    QVERIFY(!Contains(c, " host("));
    CUDA_EXPECT(c, "__launch_bounds__(256) scale_2d_kernel(");  // 16 x 16 threads
    CUDA_EXPECT(c, "int ty = ((int)threadIdx.y);");
    CUDA_EXPECT(c, "__launch_bounds__(256) zero_kernel(");
    CUDA_EXPECT(c, "A[((bx * 256) + tx)] = 0.0f;");
    QCOMPARE(src.kernels[0].launch_param_tags,
             (std::vector<std::string>{"blockIdx.y", "blockIdx.x", "threadIdx.y", "threadIdx.x"}));
    QCOMPARE(src.kernels[0].arg_dtypes, (std::vector<std::string>{"handle", "float32"}));
    CUDA_EXPECT_COMPILES(c);
  }

  void dtypeMatrix() {
    // Every scalar dtype through a kernel: arithmetic, a comparison, a cast to float32 and back.
    const std::vector<std::pair<std::string, std::string>> dtypes = {
        {"int8", "signed char"},     {"int16", "short"},          {"int32", "int"},
        {"int64", "long long"},      {"uint8", "unsigned char"},  {"uint16", "unsigned short"},
        {"uint32", "unsigned int"},  {"uint64", "unsigned long long"}, {"float16", "half"},
        {"bfloat16", "nv_bfloat16"}, {"float32", "float"},        {"float64", "double"}};
    std::string script = "@I.ir_module\nclass Module:\n";
    for (const auto& [dtype, ctype] : dtypes) {
      script += "    @T.prim_func\n"
                "    def k_" + dtype + "(A: T.Buffer((256,), \"" + dtype + "\"), B: T.Buffer((256,), \"" + dtype +
                "\"), F: T.Buffer((256,), \"float32\")):\n"
                "        T.func_attr({\"calling_conv\": 2, \"tir.kernel_launch_params\": [\"threadIdx.x\"]})\n"
                "        tx = T.launch_thread(\"threadIdx.x\", 256)\n"
                "        B[tx] = T.max(A[tx] * A[tx] + A[(tx + 1) % 256], A[tx] - A[0])\n"
                "        if A[tx] < B[tx]:\n"
                "            F[tx] = T.Cast(\"float32\", A[tx] // B[tx] + A[tx] % B[tx])\n"
                "        A[tx] = T.Cast(\"" + dtype + "\", F[tx])\n";
    }
    script += "    @T.prim_func\n"
              "    def k_bool(A: T.Buffer((256,), \"bool\"), F: T.Buffer((256,), \"float32\")):\n"
              "        T.func_attr({\"calling_conv\": 2, \"tir.kernel_launch_params\": [\"threadIdx.x\"]})\n"
              "        tx = T.launch_thread(\"threadIdx.x\", 256)\n"
              "        A[tx] = A[tx] and not A[(tx + 1) % 256] or F[tx] > T.float32(0)\n"
              "        F[tx] = T.Cast(\"float32\", A[tx])\n";
    codegen::CudaSource src = GenerateOk(ParseDevice(script));
    const std::string& c = src.code;
    QCOMPARE(src.kernels.size(), dtypes.size() + 1);
    for (const auto& [dtype, ctype] : dtypes) {
      CUDA_EXPECT(c, "k_" + dtype + "(" + ctype + "* A, " + ctype + "* B, float* F)");
    }
    CUDA_EXPECT(c, "#include <cuda_fp16.h>");
    CUDA_EXPECT(c, "#include <cuda_bf16.h>");
    CUDA_EXPECT(c, "k_bool(bool* A, float* F)");
    // 8/16-bit arithmetic wraps as TIR's does; floats print their own conversions.
    CUDA_EXPECT(c, "B[tx] = ((signed char)max((int)((signed char)(((signed char)(A[tx] * A[tx]))");
    CUDA_EXPECT(c, "A[tx] = __float2half_rn(F[tx]);");
    CUDA_EXPECT(c, "A[tx] = __float2bfloat16_rn(F[tx]);");
    CUDA_EXPECT(c, "F[tx] = ((float)(A[tx]));");
    CUDA_EXPECT(c, "A[tx] = ((A[tx] && (!A[((tx + 1) % 256)])) || (F[tx] > 0.0f));");
    // Half max goes through float32 (exact), floor division through the helper.
    CUDA_EXPECT(c, "__float2half_rn(fmaxf(__half2float(");
    CUDA_EXPECT(c, "wb_floordiv<int>(");
    CUDA_EXPECT(c, "wb_floordiv<long long>(");
    CUDA_EXPECT(c, "__float2half_rn(floorf(__half2float(A[tx]) / __half2float(B[tx])))");
    CUDA_EXPECT_COMPILES(c);
  }

  void literals() {
    auto mod = ParseDevice(R"(
@T.prim_func
def lit_kernel(A: T.Buffer((8,), "float32"), D: T.Buffer((8,), "float64"), I: T.Buffer((8,), "int64"), U: T.Buffer((8,), "uint32"), H: T.Buffer((8,), "float16")):
    T.func_attr({"calling_conv": 2, "tir.kernel_launch_params": ["threadIdx.x"]})
    tx = T.launch_thread("threadIdx.x", 8)
    A[tx] = T.float32("inf")
    A[tx + 1] = T.float32(-0.1) * A[0]
    A[tx + 2] = T.float32(1e30) * A[0]
    D[tx] = T.float64(0.1) * D[0]
    D[tx + 1] = T.float64("-inf")
    I[tx] = T.int64(-9223372036854775807) - T.int64(1) + I[0]
    U[tx] = T.uint32(4294967295)
    H[tx] = T.float16(1.5)
)");
    codegen::CudaSource src = GenerateOk(mod);
    const std::string& c = src.code;
    CUDA_EXPECT(c, "__int_as_float(0x7f800000)");
    CUDA_EXPECT(c, "(-0.100000001f)");
    CUDA_EXPECT(c, "1.00000002e+30f");
    CUDA_EXPECT(c, "0.10000000000000001");
    CUDA_EXPECT(c, "__longlong_as_double(0xfff0000000000000ULL)");
    CUDA_EXPECT(c, "(-9223372036854775807LL - 1LL)");
    CUDA_EXPECT(c, "4294967295U");
    CUDA_EXPECT(c, "H[tx] = __float2half_rn(1.5f);");
    CUDA_EXPECT_COMPILES(c);
  }

  void mathFunctions() {
    auto mod = ParseDevice(R"(
@I.ir_module
class Module:
    @T.prim_func
    def math_kernel(A: T.Buffer((256,), "float32"), D: T.Buffer((256,), "float64"), H: T.Buffer((256,), "float16"), G: T.Buffer((256,), "bfloat16")):
        T.func_attr({"calling_conv": 2, "tir.kernel_launch_params": ["threadIdx.x"]})
        tx = T.launch_thread("threadIdx.x", 256)
        A[tx] = T.exp(A[tx]) + T.sqrt(A[tx]) + T.tanh(A[tx]) + T.pow(A[tx], T.float32(2)) + T.sigmoid(A[tx]) + T.rsqrt(A[tx]) + T.fabs(A[tx]) + T.floor(A[tx]) + T.erf(A[tx]) + T.log1p(A[tx]) + T.atan2(A[tx], A[0]) + T.nearbyint(A[tx])
        D[tx] = T.exp(D[tx]) + T.log(D[tx]) + T.sin(D[tx])
        H[tx] = T.exp(H[tx]) + T.cos(H[tx])
        G[tx] = T.tanh(G[tx])
        if T.isnan(A[tx]) or T.isinf(H[tx]):
            A[tx] = T.float32(0)

    @T.prim_func
    def fast_kernel(A: T.Buffer((256,), "float32"), D: T.Buffer((256,), "float64")):
        T.func_attr({"calling_conv": 2, "tir.kernel_launch_params": ["threadIdx.x"], "fast_math": True})
        tx = T.launch_thread("threadIdx.x", 256)
        A[tx] = T.exp(A[tx]) + T.log(A[tx]) + T.sqrt(A[tx])
        D[tx] = T.exp(D[tx])
)");
    codegen::CudaSource src = GenerateOk(mod);
    const std::string& c = src.code;
    for (const char* f : {"expf(A[tx])", "sqrtf(A[tx])", "tanhf(A[tx])", "powf(A[tx], 2.0f)", "rsqrtf(A[tx])",
                          "fabsf(A[tx])", "floorf(A[tx])", "erff(A[tx])", "log1pf(A[tx])", "atan2f(A[tx], A[0])",
                          "rintf(A[tx])", "(1.0f / (1.0f + expf(-A[tx])))", "exp(D[tx])", "log(D[tx])", "sin(D[tx])",
                          "__float2half_rn(expf(__half2float(H[tx])))", "__float2bfloat16_rn(tanhf(__bfloat162float(G[tx])))",
                          "isnan(A[tx])", "isinf(__half2float(H[tx]))"}) {
      CUDA_EXPECT(c, f);
    }
    // __expf only where the function asks for fast math, and never for float64.
    QVERIFY(!Contains(c.substr(0, c.find("fast_kernel")), "__expf"));
    std::string fast = c.substr(c.find("fast_kernel"));
    CUDA_EXPECT(fast, "__expf(A[tx])");
    CUDA_EXPECT(fast, "__logf(A[tx])");
    CUDA_EXPECT(fast, "sqrtf(A[tx])");
    CUDA_EXPECT(fast, "D[tx] = exp(D[tx]);");
    CUDA_EXPECT_COMPILES(c);
  }

  void controlFlow() {
    auto mod = ParseDevice(R"(
@T.prim_func
def control_kernel(A: T.Buffer((1024,), "float32"), B: T.Buffer((1024,), "int32"), n: T.int32):
    T.func_attr({"calling_conv": 2, "tir.kernel_launch_params": ["blockIdx.x", "threadIdx.x"]})
    bx = T.launch_thread("blockIdx.x", 4)
    tx = T.launch_thread("threadIdx.x", 256)
    acc = T.alloc_local((1,), "float32")
    acc[0] = T.float32(0)
    for k in range(n):
        acc[0] = acc[0] + T.Select(k % 2 == 0, A[k], T.float32(0) - A[k])
    for j in T.unroll(4):
        acc[0] = acc[0] + T.float32(1)
    x: T.let[T.int32] = bx * 256 + tx
    if x < n:
        A[x] = acc[0]
    else:
        B[x] = T.if_then_else(x > 0, B[x - 1], 0)
    i = T.alloc_local((1,), "int32")
    i[0] = 0
    while i[0] < 10:
        y: T.let[T.int32] = i[0] * 2
        i[0] = i[0] + y + 1
    B[x] = i[0]
)");
    codegen::CudaSource src = GenerateOk(mod);
    const std::string& c = src.code;
    CUDA_EXPECT(c, "__align__(16) float acc[1];");
    CUDA_EXPECT(c, "for (int k = 0; k < n; ++k) {");
    CUDA_EXPECT(c, "(((k % 2) == 0) ? A[k] : (0.0f - A[k]))");
    CUDA_EXPECT(c, "#pragma unroll\n  for (int j = 0; j < 4; ++j) {");
    CUDA_EXPECT(c, "int x = ((bx * 256) + tx);");
    CUDA_EXPECT(c, "} else {");
    CUDA_EXPECT(c, "B[x] = ((x > 0) ? B[(x - 1)] : 0);");
    CUDA_EXPECT(c, "while (true) {");
    CUDA_EXPECT(c, "if (!(i[0] < 10)) break;");
    CUDA_EXPECT(c, "int y = (i[0] * 2);");
    CUDA_EXPECT_COMPILES(c);
  }

  void sharedMemoryAndBarrier() {
    // The transposition through a padded shared tile: two launches of the same threads around a
    // barrier.
    auto mod = ParseDevice(R"(
@T.prim_func
def transpose_kernel(A: T.Buffer((1048576,), "float32"), B: T.Buffer((1048576,), "float32")):
    T.func_attr({"calling_conv": 2, "tir.kernel_launch_params": ["blockIdx.y", "blockIdx.x", "threadIdx.y", "threadIdx.x"]})
    by = T.launch_thread("blockIdx.y", 32)
    bx = T.launch_thread("blockIdx.x", 32)
    tile = T.alloc_shared((1056,))
    ty = T.env_thread("threadIdx.y")
    tx = T.env_thread("threadIdx.x")
    with T.launch_thread(ty, 8):
        T.launch_thread(tx, 32)
        for k in range(4):
            tile[(ty * 4 + k) * 33 + tx] = A[by * 32768 + (ty * 4 + k) * 1024 + bx * 32 + tx]
    T.tvm_storage_sync("shared")
    T.launch_thread(ty, 8)
    T.launch_thread(tx, 32)
    for k in range(4):
        B[bx * 32768 + (ty * 4 + k) * 1024 + by * 32 + tx] = tile[tx * 33 + ty * 4 + k]
)");
    codegen::CudaSource src = GenerateOk(mod);
    const std::string& c = src.code;
    CUDA_EXPECT(c, "__launch_bounds__(256) transpose_kernel(");
    CUDA_EXPECT(c, "__shared__ __align__(16) float tile[1056];");
    CUDA_EXPECT(c, "__syncthreads();");
    CUDA_EXPECT(c, "int ty_1 = ((int)threadIdx.y);");  // the second launch of the same thread
    CUDA_EXPECT_COMPILES(c);
  }

  void localArrays() {
    auto mod = ParseDevice(R"(
@T.prim_func
def local_kernel(A: T.Buffer((256,), "float32"), C: T.Buffer((256,), "float32")):
    T.func_attr({"calling_conv": 2, "tir.kernel_launch_params": ["blockIdx.x", "threadIdx.x"]})
    bx = T.env_thread("blockIdx.x")
    tx = T.env_thread("threadIdx.x")
    T.launch_thread(bx, 4)
    T.launch_thread(tx, 4)
    B = T.decl_buffer([16], "float32", scope="local")
    for j in range(0, 16):
        B[j] = A[(bx * 4 + tx) * 16 + j] + T.float32(1)
    for j in range(0, 16):
        C[(bx * 4 + tx) * 16 + j] = B[j] * T.float32(2)
)");
    codegen::CudaSource src = GenerateOk(mod);
    const std::string& c = src.code;
    CUDA_EXPECT(c, "__align__(16) float B[16];");
    CUDA_EXPECT(c, "B[j] = (A[((((bx * 4) + tx) * 16) + j)] + 1.0f);");
    CUDA_EXPECT_COMPILES(c);
  }

  void dynamicSharedMemory() {
    auto mod = ParseDevice(R"(
@T.prim_func
def dyn_kernel(A: T.Buffer((4096,), "float32"), n: T.int32):
    T.func_attr({"calling_conv": 2, "tir.kernel_launch_params": ["blockIdx.x", "threadIdx.x", "tir.use_dyn_shared_memory"]})
    bx = T.launch_thread("blockIdx.x", 16)
    tx = T.launch_thread("threadIdx.x", 256)
    buf = T.alloc_buffer((n,), scope="shared.dyn")
    buf[tx] = A[bx * 256 + tx]
    T.tvm_storage_sync("shared.dyn")
    A[bx * 256 + tx] = buf[255 - tx]
)");
    codegen::CudaSource src = GenerateOk(mod);
    const std::string& c = src.code;
    CUDA_EXPECT(c, "extern __shared__ __align__(16) unsigned char wb_dyn_shared[];");
    CUDA_EXPECT(c, "float* buf = (float*)wb_dyn_shared;");
    QCOMPARE(src.kernels[0].launch_param_tags,
             (std::vector<std::string>{"blockIdx.x", "threadIdx.x", "tir.use_dyn_shared_memory"}));
    CUDA_EXPECT_COMPILES(c);
  }

  void warpShuffleReduction() {
    // What LowerThreadAllreduce makes of a row sum over one warp: shuffles down with the mask of
    // the active lanes, then lane 0 writes.
    auto mod = WithRenamedOps(ParseDevice(R"(
@T.prim_func
def row_sum_kernel(A: T.Buffer((4096,), "float32"), B: T.Buffer((128,), "float32")):
    T.func_attr({"calling_conv": 2, "tir.kernel_launch_params": ["blockIdx.x", "threadIdx.x"]})
    bx = T.launch_thread("blockIdx.x", 128)
    tx = T.launch_thread("threadIdx.x", 32)
    red = T.alloc_local((1,), "float32")
    mask = T.alloc_local((1,), "uint32")
    red[0] = A[bx * 32 + tx]
    mask[0] = T.call_extern("uint32", "wb_op:tvm_warp_activemask")
    for k in T.unroll(5):
        red[0] = red[0] + T.call_extern("float32", "wb_op:tvm_warp_shuffle_down", mask[0], red[0], T.shift_right(16, k), 32, 32)
    red[0] = T.tvm_warp_shuffle(mask[0], red[0], 0, 32, 32)
    if tx == 0:
        B[bx] = red[0]
)"));
    codegen::CudaSource src = GenerateOk(mod);
    const std::string& c = src.code;
    CUDA_EXPECT(c, "mask[0] = __activemask();");
    CUDA_EXPECT(c, "red[0] = (red[0] + __shfl_down_sync(mask[0], red[0], (16 >> k), 32U));");
    CUDA_EXPECT(c, "__shfl_sync(mask[0], red[0], 0U, 32U)");
    CUDA_EXPECT_COMPILES(c);
  }

  void atomics() {
    auto mod = WithRenamedOps(ParseDevice(R"(
@T.prim_func
def hist_kernel(A: T.Buffer((4096,), "int32"), H: T.Buffer((64,), "int32"), S: T.Buffer((1,), "float32")):
    T.func_attr({"calling_conv": 2, "tir.kernel_launch_params": ["blockIdx.x", "threadIdx.x"]})
    bx = T.launch_thread("blockIdx.x", 16)
    tx = T.launch_thread("threadIdx.x", 256)
    T.evaluate(T.call_extern("int32", "wb_op:atomic_add", T.address_of(H[A[bx * 256 + tx] % 64]), 1))
    T.evaluate(T.call_extern("float32", "wb_op:atomic_add", T.address_of(S[0]), T.float32(0.5)))
)"));
    codegen::CudaSource src = GenerateOk(mod);
    const std::string& c = src.code;
    CUDA_EXPECT(c, "atomicAdd((&H[wb_floormod<int>(A[((bx * 256) + tx)], 64)]), 1);");
    CUDA_EXPECT(c, "atomicAdd((&S[0]), 0.5f);");
    CUDA_EXPECT_COMPILES(c);
  }

  void symbolicExtents() {
    auto mod = ParseDevice(R"(
@T.prim_func
def sym_kernel(A: T.handle("float32", "global"), B: T.handle("float32", "global"), n: T.int32, m: T.int32):
    T.func_attr({"calling_conv": 2, "tir.kernel_launch_params": ["blockIdx.x", "threadIdx.x"]})
    A_1 = T.decl_buffer((n, m), data=A)
    B_1 = T.decl_buffer((n,), data=B)
    bx = T.launch_thread("blockIdx.x", n)
    tx = T.launch_thread("threadIdx.x", m)
    B_1[bx] = T.float32(0)
    for j in range(m - tx):
        B_1[bx] = B_1[bx] + A_1[bx, j] * T.float32(T.floordiv(j, 2))
)");
    codegen::CudaSource src = GenerateOk(mod);
    const std::string& c = src.code;
    // No __launch_bounds__ when the block size is symbolic.
    CUDA_EXPECT(c, "extern \"C\" __global__ void sym_kernel(float* A, float* B, int n, int m) {");
    CUDA_EXPECT(c, "for (int j = 0; j < (m - tx); ++j) {");
    CUDA_EXPECT(c, "A[(j + (bx * m))]");
    CUDA_EXPECT(c, "((float)((j / 2)))");  // j >= 0: floordiv is plain division
    CUDA_EXPECT_COMPILES(c);
  }

  void unsupportedConstructsAreErrors() {
    auto expect_error = [](const char* script, const char* fragment) {
      std::string e = GenerateError(ParseDevice(script));
      QVERIFY2(Contains(e, fragment), (std::string("expected '") + fragment + "', got: '" + e + "'").c_str());
      QVERIFY2(Contains(e, "function 'bad_kernel'"), e.c_str());
    };
    expect_error(R"(
@T.prim_func
def bad_kernel(A: T.Buffer((16,), "float32")):
    T.func_attr({"calling_conv": 2, "tir.kernel_launch_params": ["threadIdx.x"]})
    for i in T.parallel(16):
        A[i] = T.float32(0)
)", "parallel loop 'i'");
    expect_error(R"(
@T.prim_func
def bad_kernel(A: T.Buffer((16,), "float32")):
    T.func_attr({"calling_conv": 2, "tir.kernel_launch_params": ["threadIdx.x"]})
    for i in T.thread_binding(16, thread="threadIdx.x"):
        A[i] = T.float32(0)
)", "bound to a thread");
    expect_error(R"(
@T.prim_func
def bad_kernel(A: T.Buffer((128, 32), "float32"), B: T.Buffer((128,), "float32")):
    T.func_attr({"calling_conv": 2, "tir.kernel_launch_params": ["blockIdx.x", "threadIdx.x"]})
    bx = T.launch_thread("blockIdx.x", 128)
    red_buf = T.alloc_local((1,))
    tx = T.launch_thread("threadIdx.x", 32)
    with T.attr(T.comm_reducer(lambda x, y: x + y, [T.float32(0.0)]), "reduce_scope", T.reinterpret("handle", T.uint64(0))):
        T.tvm_thread_allreduce(T.uint32(1), A[bx, tx], T.bool(True), red_buf.data, tx)
    B[bx] = red_buf[0]
)", "T.tvm_thread_allreduce (lower it first: LowerThreadAllreduce)");
    expect_error(R"(
@T.prim_func
def bad_kernel(A: T.Buffer((16,), "float32"), n: T.int32):
    T.func_attr({"calling_conv": 2, "tir.kernel_launch_params": ["threadIdx.x"]})
    tx = T.launch_thread("threadIdx.x", 16)
    S = T.alloc_shared((n,))
    S[tx] = A[tx]
    A[tx] = S[tx]
)", "allocation 'S' in scope shared of symbolic size");
    expect_error(R"(
@T.prim_func
def bad_kernel(A: T.Buffer((16,), "float32")):
    T.func_attr({"calling_conv": 2, "tir.kernel_launch_params": ["threadIdx.x"]})
    tx = T.launch_thread("threadIdx.x", 16)
    S = T.alloc_buffer((16,), scope="global")
    S[tx] = A[tx]
)", "allocation 'S' in scope 'global' inside a kernel");
    expect_error(R"(
@T.prim_func
def bad_kernel(A: T.Buffer((16,), "float32")):
    T.func_attr({"calling_conv": 2, "tir.kernel_launch_params": ["threadIdx.x"]})
    bx = T.launch_thread("blockIdx.x", 16)
    A[bx] = T.float32(0)
)", "launch of 'blockIdx.x', which tir.kernel_launch_params does not list");
    expect_error(R"(
@T.prim_func(s_tir=True)
def bad_kernel(A: T.Buffer((16,), "float32")):
    T.func_attr({"calling_conv": 2, "tir.kernel_launch_params": []})
    for i in range(16):
        with T.sblock("init"):
            vi = T.axis.spatial(16, i)
            A[vi] = T.float32(0)
)", "block 'root' (lower the function first)");
    expect_error(R"(
@T.prim_func
def bad_kernel(A: T.Buffer((16,), "float32")):
    T.func_attr({"calling_conv": 2, "tir.kernel_launch_params": ["threadIdx.x"]})
    tx = T.launch_thread("threadIdx.x", 16)
    T.evaluate(T.call_packed("f", A.data))
)", "T.tvm_call_packed (a host-side builtin) inside a kernel");
  }

  void nvrtcErrorsNameTheGeneratedLine() {
    if (!codegen::NvrtcAvailable()) {
      codegen::NvrtcResult r = codegen::NvrtcCompile("", "sm_90", "ptx");
      QVERIFY(!r.ok());
      QVERIFY2(Contains(r.log, "NVRTC is not available"), r.log.c_str());
      QSKIP("no NVRTC in this build (CUDA toolkit not found)");
    }
    std::string code =
        "extern \"C\" __global__ void broken(float* A) {\n"
        "  int tx = threadIdx.x;\n"
        "  A[tx] = undefined_name + 1.0f;\n"
        "}\n";
    codegen::NvrtcResult r = codegen::NvrtcCompile(code, "sm_90", "ptx");
    QVERIFY(!r.ok());
    QVERIFY2(Contains(r.log, "workbench_kernels.cu(3): error"), r.log.c_str());
    QVERIFY2(Contains(r.log, "undefined_name"), r.log.c_str());
    QVERIFY2(Contains(r.log, "generated source line 3:   A[tx] = undefined_name + 1.0f;"), r.log.c_str());

    codegen::NvrtcResult bad_arch = codegen::NvrtcCompile(code, "gfx90a", "ptx");
    QVERIFY(!bad_arch.ok());
    QVERIFY2(Contains(bad_arch.log, "'gfx90a' is not a CUDA architecture"), bad_arch.log.c_str());
    codegen::NvrtcResult bad_format = codegen::NvrtcCompile(code, "sm_90", "sass");
    QVERIFY2(Contains(bad_format.log, "unknown output format 'sass'"), bad_format.log.c_str());
  }

  void ptxAndCubin() {
    if (!codegen::NvrtcAvailable()) QSKIP("no NVRTC in this build (CUDA toolkit not found)");
    codegen::CudaSource src = GenerateOk(ParseDevice(kAdd));
    codegen::NvrtcResult ptx = codegen::NvrtcCompile(src.code, "sm_90", "ptx");
    QVERIFY2(ptx.ok(), ptx.log.c_str());
    std::string text(ptx.binary.data());
    QCOMPARE(ptx.binary.back(), '\0');
    QVERIFY2(Contains(text, ".target sm_90"), text.c_str());
    QVERIFY2(Contains(text, ".entry add_kernel("), text.c_str());
    QVERIFY2(Contains(text, ".maxntid 256, 1, 1"), text.c_str());
    codegen::NvrtcResult cubin = codegen::NvrtcCompile(src.code, "sm_90", "cubin");
    QVERIFY2(cubin.ok(), cubin.log.c_str());
    // An ELF image.
    QVERIFY(cubin.binary.size() > 4 && cubin.binary[0] == 0x7f && cubin.binary[1] == 'E' && cubin.binary[2] == 'L');
    codegen::NvrtcResult sm80 = codegen::NvrtcCompile(src.code, "sm_80", "ptx");
    QVERIFY2(sm80.ok() && Contains(sm80.binary.data(), ".target sm_80"), sm80.log.c_str());
  }
};

QTEST_APPLESS_MAIN(TestCodegenCuda)
#include "tst_codegen_cuda.moc"
