// The reference interpreter runs GPU functions as a GPU would: blocks one after another, the
// threads of a block together, meeting at barriers, exchanging values through warp shuffles,
// with shared memory per block and local memory per thread; a missing barrier is reported as a
// race on shared memory.
#include <QTest>

#include <cmath>

#include "gpu_check.h"

using namespace wb;
using namespace wb::testing;

namespace {

// Reverses each block's 64 elements through shared memory: thread t reads what thread 63-t
// wrote, so the barrier is essential.
std::string ReverseProgram(const char* sync) {
  return std::string(R"(@I.ir_module
class Module:
    @T.prim_func
    def main(A: T.Buffer((256,), "float32"), B: T.Buffer((256,), "float32")):
        bx = T.launch_thread("blockIdx.x", 4)
        S = T.alloc_shared((64,))
        tx = T.launch_thread("threadIdx.x", 64)
        S[tx] = A[bx * 64 + tx]
)") + sync + R"(
        B[bx * 64 + tx] = S[63 - tx]
)";
}

// C = A * B with 8x8 tiles staged in shared memory, two barriers per tile step: one before the
// tile is read (RAW), one before it is overwritten (WAR).
std::string TiledMatmul(bool first_sync, bool second_sync) {
  std::string s = R"(@I.ir_module
class Module:
    @T.prim_func
    def main(A: T.Buffer((32, 32), "float32"), B: T.Buffer((32, 32), "float32"), C: T.Buffer((32, 32), "float32")):
        by = T.launch_thread("blockIdx.y", 4)
        bx = T.launch_thread("blockIdx.x", 4)
        As = T.alloc_shared((8, 8))
        Bs = T.alloc_shared((8, 8))
        ty = T.launch_thread("threadIdx.y", 8)
        tx = T.launch_thread("threadIdx.x", 8)
        acc = T.alloc_local((1,))
        acc[0] = T.float32(0.0)
        for k0 in range(4):
            As[ty, tx] = A[by * 8 + ty, k0 * 8 + tx]
            Bs[ty, tx] = B[k0 * 8 + ty, bx * 8 + tx]
)";
  if (first_sync) s += "            T.tvm_storage_sync(\"shared\")\n";
  s += R"(            for k1 in range(8):
                acc[0] = acc[0] + As[ty, k1] * Bs[k1, tx]
)";
  if (second_sync) s += "            T.tvm_storage_sync(\"shared\")\n";
  s += "        C[by * 8 + ty, bx * 8 + tx] = acc[0]\n";
  return s;
}

}  // namespace

class TestInterpreterGpu : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  void sharedMemoryWithBarrier() {
    auto m = ParseGpu(ReverseProgram("        T.tvm_storage_sync(\"shared\")"));
    auto a = Floats({256}, 1), b = Floats({256}, 0);
    QCOMPARE(Run(m, "main", {a, b}), std::string());
    for (int i = 0; i < 256; ++i) QCOMPARE(F(b)[i], F(a)[i / 64 * 64 + 63 - i % 64]);
  }

  void missingBarrierIsARace() {
    auto m = ParseGpu(ReverseProgram(""));
    auto a = Floats({256}, 1), b = Floats({256}, 0);
    std::string err = Run(m, "main", {a, b});
    QVERIFY2(err.find("data race on shared memory 'S'") != std::string::npos, err.c_str());
    QVERIFY2(err.find("tvm_storage_sync") != std::string::npos, err.c_str());
  }

  void tiledMatmul() {
    auto m = ParseGpu(TiledMatmul(true, true));
    auto a = Floats({32, 32}, 2), b = Floats({32, 32}, 3), c = Floats({32, 32}, 0);
    QCOMPARE(Run(m, "main", {a, b, c}), std::string());
    for (int i = 0; i < 32; ++i) {
      for (int j = 0; j < 32; ++j) {
        float want = 0;
        for (int k = 0; k < 32; ++k) want += F(a)[i * 32 + k] * F(b)[k * 32 + j];
        QVERIFY(std::fabs(F(c)[i * 32 + j] - want) < 1e-4f);
      }
    }
  }

  void tiledMatmulMissingBarriers() {
    for (auto [first, second] : {std::pair{false, true}, std::pair{true, false}}) {
      auto m = ParseGpu(TiledMatmul(first, second));
      auto a = Floats({32, 32}, 2), b = Floats({32, 32}, 3), c = Floats({32, 32}, 0);
      std::string err = Run(m, "main", {a, b, c});
      // Without the first barrier thread 1 stores a tile element thread 0 already read (a
      // stale read); without the second, thread 0 overwrites its element with the next tile
      // while others still have to read this one.
      QVERIFY2(err.find("data race on shared memory 'As'") != std::string::npos, err.c_str());
      QVERIFY2(err.find(first ? "thread 1 reads it after thread 0 wrote it"
                              : "thread 1 writes it after thread 0 read it") != std::string::npos,
               err.c_str());
    }
  }

  void warpShuffleSum() {
    auto m = ParseGpu(R"(@I.ir_module
class Module:
    @T.prim_func
    def main(A: T.Buffer((128,), "float32"), B: T.Buffer((2,), "float32")):
        bx = T.launch_thread("blockIdx.x", 2)
        tx = T.launch_thread("threadIdx.x", 64)
        v = T.alloc_local((1,))
        v[0] = A[bx * 64 + tx]
        for i in range(5):
            v[0] = v[0] + T.tvm_warp_shuffle_down(T.tvm_warp_activemask(), v[0], T.shift_right(16, i), 32, 32)
        if tx % 32 == 0:
            B[bx] = B[bx] + v[0]
)");
    auto a = Floats({128}, 4), b = Floats({2}, 0);
    QCOMPARE(Run(m, "main", {a, b}), std::string());
    for (int blk = 0; blk < 2; ++blk) {
      float want = 0;
      for (int t = 0; t < 64; ++t) want += F(a)[blk * 64 + t];
      QVERIFY2(std::fabs(F(b)[blk] - want) < 1e-4f, std::to_string(F(b)[blk]).c_str());
    }
  }

  void warpShuffleIndexAndUp() {
    // Lane l gets lane (l + 1) % 8 of its 8-lane segment, then the value of lane l - 2 (its own
    // below 2): checks segment widths and out-of-range sources.
    auto m = ParseGpu(R"(@I.ir_module
class Module:
    @T.prim_func
    def main(A: T.Buffer((32,), "int32"), B: T.Buffer((32,), "int32")):
        tx = T.launch_thread("threadIdx.x", 32)
        r = T.alloc_local((1,), "int32")
        r[0] = T.tvm_warp_shuffle(T.tvm_warp_activemask(), A[tx], (tx + 1) % 8, 8, 32)
        B[tx] = T.tvm_warp_shuffle_up(T.tvm_warp_activemask(), r[0], 2, 32, 32)
)");
    auto a = runtime::NDArray::Empty({32}, runtime::DLDataType{0, 32, 1});
    auto b = runtime::NDArray::Empty({32}, runtime::DLDataType{0, 32, 1});
    auto* pa = reinterpret_cast<int32_t*>(a.ElementData());
    for (int i = 0; i < 32; ++i) pa[i] = 100 + i;
    QCOMPARE(Run(m, "main", {a, b}), std::string());
    auto* pb = reinterpret_cast<const int32_t*>(b.ElementData());
    auto r = [&](int l) { return pa[l / 8 * 8 + (l % 8 + 1) % 8]; };
    for (int l = 0; l < 32; ++l) QCOMPARE(pb[l], l < 2 ? r(l) : r(l - 2));
  }

  void divergentBarriersAreReported() {
    auto m = ParseGpu(R"(@I.ir_module
class Module:
    @T.prim_func
    def main(A: T.Buffer((64,), "float32")):
        tx = T.launch_thread("threadIdx.x", 64)
        if tx < 16:
            T.tvm_storage_sync("shared")
        else:
            T.tvm_storage_sync("shared")
        A[tx] = T.float32(1.0)
)");
    std::string err = Run(m, "main", {Floats({64}, 0)});
    QVERIFY2(err.find("wait at different barriers") != std::string::npos, err.c_str());
  }

  void finishedThreadsLeaveBarriers() {
    // Threads 32.. return before the barrier; the rest still meet (as on Volta and later).
    auto m = ParseGpu(R"(@I.ir_module
class Module:
    @T.prim_func
    def main(A: T.Buffer((64,), "float32"), B: T.Buffer((64,), "float32")):
        S = T.alloc_shared((64,))
        tx = T.launch_thread("threadIdx.x", 64)
        if tx < 32:
            S[tx] = A[tx]
            T.tvm_storage_sync("shared")
            B[tx] = S[31 - tx]
)");
    auto a = Floats({64}, 5), b = Floats({64}, 0);
    QCOMPARE(Run(m, "main", {a, b}), std::string());
    for (int i = 0; i < 32; ++i) QCOMPARE(F(b)[i], F(a)[31 - i]);
  }

  void threadBoundLoopsAreThreads() {
    // Scheduled form: loops bound to threads; a second loop bound to threadIdx.x inside the
    // first is the same thread (cooperative fetch), not a nested loop.
    auto m = ParseGpu(R"(@I.ir_module
class Module:
    @T.prim_func
    def main(A: T.Buffer((128,), "float32"), B: T.Buffer((128,), "float32")):
        S = T.alloc_shared((32,))
        for bx in T.thread_binding(4, thread="blockIdx.x"):
            for tx in T.thread_binding(32, thread="threadIdx.x"):
                for tx2 in T.thread_binding(32, thread="threadIdx.x"):
                    S[tx2] = A[bx * 32 + tx2]
                T.tvm_storage_sync("shared")
                B[bx * 32 + tx] = S[(tx + 1) % 32]
)");
    auto a = Floats({128}, 6), b = Floats({128}, 0);
    QCOMPARE(Run(m, "main", {a, b}), std::string());
    for (int i = 0; i < 128; ++i) QCOMPARE(F(b)[i], F(a)[i / 32 * 32 + (i % 32 + 1) % 32]);
  }

  void tooManyThreads() {
    auto m = ParseGpu(R"(@I.ir_module
class Module:
    @T.prim_func
    def main(A: T.Buffer((2048,), "float32")):
        tx = T.launch_thread("threadIdx.x", 2048)
        A[tx] = T.float32(1.0)
)");
    std::string err = Run(m, "main", {Floats({2048}, 0)});
    QVERIFY2(err.find("a thread block of 2048 threads") != std::string::npos, err.c_str());
  }
};

QTEST_APPLESS_MAIN(TestInterpreterGpu)
#include "tst_interpreter_gpu.moc"
