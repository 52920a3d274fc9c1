// SplitHostDevice and LowerDeviceKernelLaunch: golden before/after programs, the meaning kept
// (the interpreter runs the host function, whose calls launch the kernels), and the errors.
#include <QTest>

#include "../transform/golden_case.h"
#include "gpu_check.h"

using namespace wb;
using namespace wb::testing;

namespace {

// Two launch regions: a symbolic grid, then a single block using a scalar parameter.
const char* kTwoKernels = R"(@I.ir_module
class Module:
    @T.prim_func
    def main(n: T.int32, a: T.handle, b: T.handle, c: T.float32):
        A = T.match_buffer(a, (n,))
        B = T.match_buffer(b, (n,))
        with T.launch_thread("blockIdx.x", (n + 63) // 64) as bx:
            tx = T.launch_thread("threadIdx.x", 64)
            if bx * 64 + tx < n:
                B[bx * 64 + tx] = A[bx * 64 + tx] * T.float32(2.0)
        with T.launch_thread("threadIdx.x", n) as tx:
            A[tx] = B[tx] + c
)";

const char* kSplit = R"(@I.ir_module
class Module:
    @T.prim_func
    def main_kernel(A: T.handle("float32", "global"), B: T.handle("float32", "global"), n: T.int32):
        T.func_attr({"tir.is_global_func": True, "tir.noalias": True})
        B_1 = T.decl_buffer((n,), data=B)
        A_1 = T.decl_buffer((n,), data=A)
        bx = T.launch_thread("blockIdx.x", (n + 63) // 64)
        tx = T.launch_thread("threadIdx.x", 64)
        if bx * 64 + tx < n:
            B_1[bx * 64 + tx] = A_1[bx * 64 + tx] * T.float32(2.0)

    @T.prim_func
    def main_kernel_1(A: T.handle("float32", "global"), B: T.handle("float32", "global"), c: T.float32, n: T.int32):
        T.func_attr({"tir.is_global_func": True, "tir.noalias": True})
        A_1 = T.decl_buffer((n,), data=A)
        B_1 = T.decl_buffer((n,), data=B)
        tx = T.launch_thread("threadIdx.x", n)
        A_1[tx] = B_1[tx] + c

    @T.prim_func
    def main(n: T.int32, A: T.Buffer((n,), "float32"), B: T.Buffer((n,), "float32"), c: T.float32):
        Module.main_kernel(A.data, B.data, n)
        Module.main_kernel_1(A.data, B.data, c, n)
)";

const char* kLaunched = R"(@I.ir_module
class Module:
    @T.prim_func
    def main_kernel(A: T.handle("float32", "global"), B: T.handle("float32", "global"), n: T.int32):
        T.func_attr({"calling_conv": 2, "tir.is_global_func": True, "tir.kernel_launch_params": ["blockIdx.x", "threadIdx.x"], "tir.noalias": True})
        B_1 = T.decl_buffer((n,), data=B)
        A_1 = T.decl_buffer((n,), data=A)
        bx = T.launch_thread("blockIdx.x", (n + 63) // 64)
        tx = T.launch_thread("threadIdx.x", 64)
        if bx * 64 + tx < n:
            B_1[bx * 64 + tx] = A_1[bx * 64 + tx] * T.float32(2.0)

    @T.prim_func
    def main_kernel_1(A: T.handle("float32", "global"), B: T.handle("float32", "global"), c: T.float32, n: T.int32):
        T.func_attr({"calling_conv": 2, "tir.is_global_func": True, "tir.kernel_launch_params": ["threadIdx.x"], "tir.noalias": True})
        A_1 = T.decl_buffer((n,), data=A)
        B_1 = T.decl_buffer((n,), data=B)
        tx = T.launch_thread("threadIdx.x", n)
        A_1[tx] = B_1[tx] + c

    @T.prim_func
    def main(n: T.int32, A: T.Buffer((n,), "float32"), B: T.Buffer((n,), "float32"), c: T.float32):
        T.call_packed("main_kernel", A.data, B.data, n, (n + 63) // 64, 64)
        T.call_packed("main_kernel_1", A.data, B.data, c, n, n)
)";

// Shared memory and a host-side loop around the launch: the kernel's parameters include the
// host loop variable, the shared allocation stays in the kernel.
const char* kSharedInLoop = R"(@I.ir_module
class Module:
    @T.prim_func
    def main(A: T.Buffer((4, 32), "float32"), B: T.Buffer((4, 32), "float32")):
        for i in range(4):
            tx = T.launch_thread("threadIdx.x", 32)
            S = T.alloc_buffer((32,), scope="shared")
            S[tx] = A[i, tx]
            T.tvm_storage_sync("shared")
            B[i, tx] = S[31 - tx]
)";

const char* kSharedInLoopSplit = R"(@I.ir_module
class Module:
    @T.prim_func
    def main_kernel(A: T.handle("float32", "global"), B: T.handle("float32", "global"), i: T.int32):
        T.func_attr({"calling_conv": 2, "tir.is_global_func": True, "tir.kernel_launch_params": ["threadIdx.x"], "tir.noalias": True})
        A_1 = T.decl_buffer((4, 32), data=A)
        B_1 = T.decl_buffer((4, 32), data=B)
        tx = T.launch_thread("threadIdx.x", 32)
        S = T.alloc_buffer((32,), scope="shared")
        S[tx] = A_1[i, tx]
        T.tvm_storage_sync("shared")
        B_1[i, tx] = S[31 - tx]

    @T.prim_func
    def main(A: T.Buffer((4, 32), "float32"), B: T.Buffer((4, 32), "float32")):
        for i in range(4):
            T.call_packed("main_kernel", A.data, B.data, i, 32)
)";

const GoldenCase kCases[] = {
    {"SplitHostDevice", kTwoKernels, kSplit},
    {"SplitHostDevice, LowerDeviceKernelLaunch", kTwoKernels, kLaunched},
    {"SplitHostDevice, LowerDeviceKernelLaunch", kSharedInLoop, kSharedInLoopSplit},
};

std::string Lower(const char* program, const std::string& pipeline) {
  std::string error;
  auto m = ParseModule(program, &error);
  if (!error.empty()) return error;
  RunPasses(pipeline, m, &error);
  return error;
}

}  // namespace

class TestSplitHostDevice : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  void golden_data() { AddGoldenRows(kCases); }
  void golden() {
    QFETCH(int, index);
    const GoldenCase& c = kCases[index];
    std::string e = CheckGolden(c.name, c.before, c.after);
    QVERIFY2(e.empty(), e.c_str());
  }

  void hostRunsTheKernels() {
    // n = 100: two blocks, the second partly masked; the launch values are computed on the
    // host from n, and the interpreter checks them against the kernels' own extents.
    std::string error;
    auto m = ParseModule(kTwoKernels, &error);
    QVERIFY2(error.empty(), error.c_str());
    auto lowered = RunPasses("SplitHostDevice, LowerDeviceKernelLaunch", m, &error);
    QVERIFY2(error.empty(), error.c_str());
    auto a = Floats({100}, 1), b = Floats({100}, 0);
    auto a0 = a.Copy();
    QCOMPARE(Run(lowered, "main", {int64_t{100}, a, b, 0.5}), std::string());
    for (int i = 0; i < 100; ++i) {
      QCOMPARE(F(b)[i], 2.0f * F(a0)[i]);
      QCOMPARE(F(a)[i], 2.0f * F(a0)[i] + 0.5f);
    }
  }

  void wrongLaunchValueIsCaught() {
    // A host that launches fewer blocks than the kernel body expects.
    auto m = ParseGpu(R"(@I.ir_module
class Module:
    @T.prim_func
    def main_kernel(A: T.handle("float32", "global")):
        T.func_attr({"calling_conv": 2, "tir.is_global_func": True, "tir.kernel_launch_params": ["blockIdx.x", "threadIdx.x"], "tir.noalias": True})
        A_1 = T.decl_buffer((64,), data=A)
        bx = T.launch_thread("blockIdx.x", 2)
        tx = T.launch_thread("threadIdx.x", 32)
        A_1[bx * 32 + tx] = T.float32(1.0)

    @T.prim_func
    def main(A: T.Buffer((64,), "float32")):
        T.call_packed("main_kernel", A.data, 1, 32)
)");
    std::string err = Run(m, "main", {Floats({64}, 0)});
    QVERIFY2(err.find("launched with blockIdx.x = 1, but its body launches 2") != std::string::npos,
             err.c_str());
  }

  void sharedAllocatedOnTheHostIsAnError() {
    std::string err = Lower(R"(@I.ir_module
class Module:
    @T.prim_func
    def main(A: T.Buffer((32,), "float32")):
        S = T.alloc_buffer((32,), scope="shared")
        tx = T.launch_thread("threadIdx.x", 32)
        S[tx] = A[tx]
        A[tx] = S[tx]
)", "SplitHostDevice");
    QVERIFY2(err.find("buffer 'S' in scope shared is used in a kernel but allocated outside it") !=
                 std::string::npos,
             err.c_str());
  }

  void threadBoundLoopIsAnError() {
    std::string err = Lower(R"(@I.ir_module
class Module:
    @T.prim_func
    def main(A: T.Buffer((32,), "float32")):
        for tx in T.thread_binding(32, thread="threadIdx.x"):
            A[tx] = T.float32(0.0)
)", "SplitHostDevice");
    QVERIFY2(err.find("run LowerOpaqueBlock before SplitHostDevice") != std::string::npos,
             err.c_str());
  }
};

QTEST_APPLESS_MAIN(TestSplitHostDevice)
#include "tst_split_host_device.moc"
