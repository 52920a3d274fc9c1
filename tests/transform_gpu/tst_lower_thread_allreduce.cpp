// LowerThreadAllreduce: cross-thread sums and maxima over warp-sized, multi-warp and odd thread
// counts, in groups (threadIdx.y), and a softmax with two reductions, each run by the
// interpreter (team threads, shuffles, barriers, race check) and compared with a direct
// computation; every thread must receive the group's result.
#include <QTest>

#include <algorithm>
#include <cmath>

#include "gpu_check.h"
#include "../transform/lowering_check.h"

using namespace wb;
using namespace wb::testing;

namespace {

// Rows of R values, Y rows per block; every thread writes the row's reduction to C[row, tx].
std::string RowReduce(int64_t rows, int64_t y, int64_t r, const std::string& combine,
                      const std::string& identity) {
  const std::string R = std::to_string(r), Y = std::to_string(y);
  return R"(@I.ir_module
class Module:
    @T.prim_func
    def main(A: T.Buffer(()" + std::to_string(rows) + ", " + R + R"(), "float32"), C: T.Buffer(()" +
         std::to_string(rows) + ", " + R + R"(), "float32")):
        bx = T.launch_thread("blockIdx.x", )" + std::to_string(rows / y) + R"()
        ty = T.launch_thread("threadIdx.y", )" + Y + R"()
        tx = T.launch_thread("threadIdx.x", )" + R + R"()
        red = T.alloc_buffer((1,), scope="local")
        with T.attr(T.comm_reducer(lambda x, y: )" + combine + ", [" + identity +
         R"(]), "reduce_scope", T.reinterpret("handle", T.uint64(0))):
            T.tvm_thread_allreduce(T.uint32(1), A[bx * )" + Y + R"( + ty, tx], T.bool(True), red.data, tx)
        C[bx * )" + Y + R"( + ty, tx] = red[0]
)";
}

ir::IRModule LowerOrFail(const std::string& program, std::string* error) {
  auto m = ParseModule(program, error);
  if (!error->empty()) return {};
  return RunPasses("LowerThreadAllreduce", m, error);
}

}  // namespace

class TestLowerThreadAllreduce : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  void reductions_data() {
    QTest::addColumn<int>("rows");
    QTest::addColumn<int>("y");
    QTest::addColumn<int>("r");
    QTest::addColumn<bool>("max");
    QTest::addColumn<QString>("expect");  // a construct the lowering must use
    QTest::newRow("sum 32") << 8 << 1 << 32 << false << "tvm_warp_shuffle_down";
    QTest::newRow("sum 8 in groups") << 8 << 4 << 8 << false << "tvm_warp_shuffle_down";
    QTest::newRow("max 128") << 4 << 1 << 128 << true << "red_buf_shared";
    QTest::newRow("sum 64 x 2 groups") << 4 << 2 << 64 << false << "tvm_storage_sync";
    QTest::newRow("sum 48 (odd)") << 6 << 2 << 48 << false << "red_buf_shared";
    QTest::newRow("max 5 (odd)") << 6 << 3 << 5 << true << "tvm_storage_sync";
  }
  void reductions() {
    QFETCH(int, rows);
    QFETCH(int, y);
    QFETCH(int, r);
    QFETCH(bool, max);
    QFETCH(QString, expect);
    std::string error;
    auto lowered = LowerOrFail(RowReduce(rows, y, r, max ? "T.max(x, y)" : "x + y",
                                         max ? "T.float32(-3.0e38)" : "T.float32(0.0)"),
                               &error);
    QVERIFY2(error.empty(), error.c_str());
    std::string text = script::PrintModule(lowered);
    QVERIFY2(text.find(expect.toStdString()) != std::string::npos, text.c_str());
    QVERIFY2(text.find("tvm_thread_allreduce") == std::string::npos, text.c_str());
    std::string rt = CheckRoundTrip(lowered);
    QVERIFY2(rt.empty(), rt.c_str());
    auto a = Floats({rows, r}, 3), c = Floats({rows, r}, 0);
    QCOMPARE(Run(lowered, "main", {a, c}), std::string());
    for (int i = 0; i < rows; ++i) {
      float want = max ? -3.0e38f : 0.0f;
      for (int k = 0; k < r; ++k) want = max ? std::max(want, F(a)[i * r + k]) : want + F(a)[i * r + k];
      for (int k = 0; k < r; ++k) {
        QVERIFY2(std::fabs(F(c)[i * r + k] - want) < 1e-4f,
                 (std::to_string(i) + "," + std::to_string(k) + ": " + std::to_string(F(c)[i * r + k]) +
                  " vs " + std::to_string(want)).c_str());
      }
    }
  }

  void softmax() {
    // Two reductions in one kernel (max, then the sum of exponentials), one row per block.
    std::string error;
    auto lowered = LowerOrFail(R"(@I.ir_module
class Module:
    @T.prim_func
    def main(A: T.Buffer((4, 64), "float32"), B: T.Buffer((4, 64), "float32")):
        bx = T.launch_thread("blockIdx.x", 4)
        tx = T.launch_thread("threadIdx.x", 64)
        mx = T.alloc_buffer((1,), scope="local")
        sm = T.alloc_buffer((1,), scope="local")
        with T.attr(T.comm_reducer(lambda x, y: T.max(x, y), [T.float32(-3.0e38)]), "reduce_scope", T.reinterpret("handle", T.uint64(0))):
            T.tvm_thread_allreduce(T.uint32(1), A[bx, tx], T.bool(True), mx.data, tx)
        with T.attr(T.comm_reducer(lambda x, y: x + y, [T.float32(0.0)]), "reduce_scope", T.reinterpret("handle", T.uint64(0))):
            T.tvm_thread_allreduce(T.uint32(1), T.exp(A[bx, tx] - mx[0]), T.bool(True), sm.data, tx)
        B[bx, tx] = T.exp(A[bx, tx] - mx[0]) / sm[0]
)",
                               &error);
    QVERIFY2(error.empty(), error.c_str());
    auto a = Floats({4, 64}, 9), b = Floats({4, 64}, 0);
    QCOMPARE(Run(lowered, "main", {a, b}), std::string());
    for (int i = 0; i < 4; ++i) {
      float m = -3.0e38f, s = 0;
      for (int k = 0; k < 64; ++k) m = std::max(m, F(a)[i * 64 + k]);
      for (int k = 0; k < 64; ++k) s += std::exp(F(a)[i * 64 + k] - m);
      for (int k = 0; k < 64; ++k) {
        QVERIFY(std::fabs(F(b)[i * 64 + k] - std::exp(F(a)[i * 64 + k] - m) / s) < 1e-5f);
      }
    }
  }

  void argmaxIsUnsupported() {
    std::string error;
    LowerOrFail(R"(@I.ir_module
class Module:
    @T.prim_func
    def main(A: T.Buffer((64, 256), "float32"), out_idx: T.Buffer((64,), "int32")):
        bx = T.launch_thread("blockIdx.x", 64)
        red_idx = T.alloc_local((1,), "int32")
        red_val = T.alloc_local((1,))
        tx = T.launch_thread("threadIdx.x", 256)
        with T.attr(T.comm_reducer(lambda x0, x1, y0, y1: (T.Select(x1 >= y1, x0, y0), T.Select(x1 >= y1, x1, y1)), [-1, T.float32("-inf")]), "reduce_scope", T.reinterpret("handle", T.uint64(0))):
            T.tvm_thread_allreduce(T.uint32(2), tx, A[bx, tx], T.bool(True), red_idx.data, red_val.data, tx)
        if tx == 0:
            out_idx[bx] = red_idx[0]
)",
                &error);
    QVERIFY2(error.find("several values at once") != std::string::npos, error.c_str());
  }
};

QTEST_APPLESS_MAIN(TestLowerThreadAllreduce)
#include "tst_lower_thread_allreduce.moc"
