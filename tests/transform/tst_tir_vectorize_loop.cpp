// VectorizeLoop: golden cases (Ramp/Broadcast arithmetic, vector loads and stores, lets, casts,
// and the serial fallbacks), each also checked by the interpreter on random inputs.
#include "golden_case.h"

using namespace wb;

namespace {

const testing::GoldenCase kCases[] = {
    {"dense", R"(@I.ir_module
class Module:
    @T.prim_func
    def main(A: T.Buffer((16,), "float32"), B: T.Buffer((16,), "float32")):
        for i in range(4):
            for j in T.vectorized(4):
                B[i * 4 + j] = A[i * 4 + j] * T.float32(2.0) + A[j])",
     R"(@I.ir_module
class Module:
    @T.prim_func
    def main(A: T.Buffer((16,), "float32"), B: T.Buffer((16,), "float32")):
        for i in range(4):
            B[i * 4:i * 4 + 4] = A[i * 4:i * 4 + 4] * T.Broadcast(T.float32(2.0), 4) + A[0:4])"},
    // Strided and offset lanes, a vector let, a cast and a select.
    {"strided, let, cast, select", R"(@I.ir_module
class Module:
    @T.prim_func
    def main(A: T.Buffer((16,), "int32"), B: T.Buffer((16,), "float32")):
        for i in T.vectorized(4):
            x: T.let[T.int32] = A[i * 2 + 1] * 3
            B[i + 4] = T.Cast("float32", T.Select(x > 10, x, i)))",
     R"(@I.ir_module
class Module:
    @T.prim_func
    def main(A: T.Buffer((16,), "int32"), B: T.Buffer((16,), "float32")):
        x: T.let[T.int32x4] = A[T.Ramp(1, 2, 4)] * T.Broadcast(3, 4)
        B[4:8] = T.Cast("float32x4", T.Select(x > T.Broadcast(10, 4), x, T.Ramp(0, 1, 4))))"},
    // Per-lane decisions run lane by lane in place: a varying condition, a store of varying
    // values to one element.
    {"scalarized statements", R"(@I.ir_module
class Module:
    @T.prim_func
    def main(A: T.Buffer((8,), "float32"), B: T.Buffer((8,), "float32"), S: T.Buffer((1,), "float32")):
        for j in T.vectorized(8):
            B[j] = A[j] + T.float32(1.0)
            if j < 5:
                B[j] = A[j]
        for k in T.vectorized(8):
            S[0] = S[0] + A[k])",
     R"(@I.ir_module
class Module:
    @T.prim_func
    def main(A: T.Buffer((8,), "float32"), B: T.Buffer((8,), "float32"), S: T.Buffer((1,), "float32")):
        B[0:8] = A[0:8] + T.Broadcast(T.float32(1.0), 8)
        for j_s in range(8):
            if j_s < 5:
                B[j_s] = A[j_s]
        for k_s in range(8):
            S[0] = S[0] + A[k_s])"},
    // Whole loops stay serial: a symbolic extent, an allocation in the body, a break.
    {"serial fallback", R"(@I.ir_module
class Module:
    @T.prim_func
    def main(A: T.Buffer((16,), "float32"), B: T.Buffer((16,), "float32"), n: T.int32):
        for i in T.vectorized(n):
            B[i] = A[i]
        for i in T.vectorized(4):
            t = T.alloc_buffer((1,))
            t[0] = A[i] * T.float32(3.0)
            B[i + 8] = t[0]
        for i in T.vectorized(4):
            if A[i] < T.float32(0.0):
                break
            B[i + 12] = A[i])",
     R"(@I.ir_module
class Module:
    @T.prim_func
    def main(A: T.Buffer((16,), "float32"), B: T.Buffer((16,), "float32"), n: T.int32):
        for i in range(n):
            B[i] = A[i]
        for i in range(4):
            t = T.alloc_buffer((1,))
            t[0] = A[i] * T.float32(3.0)
            B[i + 8] = t[0]
        for i in range(4):
            if A[i] < T.float32(0.0):
                break
            B[i + 12] = A[i])"},
};

}  // namespace

class TestVectorizeLoop : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  void golden_data() { testing::AddGoldenRows(kCases); }
  void golden() {
    QFETCH(int, index);
    std::string error = testing::CheckGolden("VectorizeLoop", kCases[index].before, kCases[index].after);
    QVERIFY2(error.empty(), error.c_str());
  }

  // A schedule's split + vectorize + parallel, lowered and vectorized, computes the same.
  void scheduledLoopKeepsMeaning() {
    std::string error;
    auto module = testing::ParseModule(R"(@I.ir_module
class Module:
    @T.prim_func
    def main(A: T.Buffer((64, 32), "float32"), B: T.Buffer((64, 32), "float32")):
        for i in T.parallel(64):
            for j0 in range(4):
                for j1 in T.vectorized(8):
                    B[i, j0 * 8 + j1] = T.exp(A[i, j0 * 8 + j1]) + T.float32(1.0))",
                                       &error);
    QVERIFY2(error.empty(), error.c_str());
    auto lowered = testing::RunPasses("FlattenBuffer, Simplify, VectorizeLoop", module, &error);
    QVERIFY2(error.empty(), error.c_str());
    std::string text = script::PrintModule(lowered);
    QVERIFY2(text.find("T.exp(A_1[i * 32 + j0 * 8:i * 32 + j0 * 8 + 8])") != std::string::npos,
             text.c_str());
    error = testing::CheckSameMeaning(module, lowered);
    QVERIFY2(error.empty(), error.c_str());
    error = testing::CheckRoundTrip(lowered);
    QVERIFY2(error.empty(), error.c_str());
  }
};

QTEST_APPLESS_MAIN(TestVectorizeLoop)
#include "tst_tir_vectorize_loop.moc"
