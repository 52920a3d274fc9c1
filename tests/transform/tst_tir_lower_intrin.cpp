// LowerIntrin: floordiv/floormod to truncating division, by what is known of the operands;
// golden cases and the interpreter's verdict on random (also negative) inputs.
#include "golden_case.h"

using namespace wb;

namespace {

const testing::GoldenCase kCases[] = {
    // Non-negative dividend (a loop variable): plain truncating division.
    {"non-negative", R"(@I.ir_module
class Module:
    @T.prim_func
    def main(A: T.Buffer((24,), "int32"), B: T.Buffer((24,), "int32")):
        for i in range(24):
            B[i] = A[i // 6] + i % 6)",
     R"(@I.ir_module
class Module:
    @T.prim_func
    def main(A: T.Buffer((24,), "int32"), B: T.Buffer((24,), "int32")):
        for i in range(24):
            B[i] = A[T.Div(i, 6)] + T.Mod(i, 6))"},
    // A dividend of any sign by a power of two: arithmetic shift and mask.
    {"power of two", R"(@I.ir_module
class Module:
    @T.prim_func
    def main(A: T.Buffer((16,), "int32"), B: T.Buffer((16,), "int32")):
        for i in range(16):
            B[i] = A[i] // 4 + A[i] % 8)",
     R"(@I.ir_module
class Module:
    @T.prim_func
    def main(A: T.Buffer((16,), "int32"), B: T.Buffer((16,), "int32")):
        for i in range(16):
            B[i] = T.shift_right(A[i], 2) + T.bitwise_and(A[i], 7))"},
    // Any sign, other constants and a variable divisor: corrected truncating division.
    {"general", R"(@I.ir_module
class Module:
    @T.prim_func
    def main(A: T.Buffer((16,), "int32"), B: T.Buffer((16,), "int32"), C: T.Buffer((16,), "int32")):
        for i in range(16):
            B[i] = A[i] // 3
            C[i] = A[i] % (i * 2 - 15))",
     R"(@I.ir_module
class Module:
    @T.prim_func
    def main(A: T.Buffer((16,), "int32"), B: T.Buffer((16,), "int32"), C: T.Buffer((16,), "int32")):
        for i in range(16):
            B[i] = T.Select(T.Mod(A[i], 3) < 0, T.Div(A[i], 3) - 1, T.Div(A[i], 3))
            C[i] = T.Select(T.Mod(A[i], i * 2 - 15) < 0 and i * 2 - 15 > 0 or T.Mod(A[i], i * 2 - 15) > 0 and i * 2 - 15 < 0, T.Mod(A[i], i * 2 - 15) + (i * 2 - 15), T.Mod(A[i], i * 2 - 15)))"},
    // Floating point: floor of the quotient.
    {"float", R"(@I.ir_module
class Module:
    @T.prim_func
    def main(A: T.Buffer((8,), "float32"), B: T.Buffer((8,), "float32")):
        for i in range(8):
            B[i] = T.floordiv(A[i], T.float32(0.75)) + T.floormod(A[i], T.float32(0.75)))",
     R"(@I.ir_module
class Module:
    @T.prim_func
    def main(A: T.Buffer((8,), "float32"), B: T.Buffer((8,), "float32")):
        for i in range(8):
            B[i] = T.floor(A[i] / T.float32(0.75)) + (A[i] - T.floor(A[i] / T.float32(0.75)) * T.float32(0.75)))"},
};

}  // namespace

class TestLowerIntrin : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  void golden_data() { testing::AddGoldenRows(kCases); }
  void golden() {
    QFETCH(int, index);
    std::string error = testing::CheckGolden("LowerIntrin", kCases[index].before, kCases[index].after);
    QVERIFY2(error.empty(), error.c_str());
  }

  // Every sign combination, against the interpreter's floordiv/floormod, over several seeds
  // (the random inputs include negative values).
  void signsKeepMeaning() {
    std::string error;
    auto module = testing::ParseModule(R"(@I.ir_module
class Module:
    @T.prim_func
    def main(A: T.Buffer((64,), "int32"), D: T.Buffer((64,), "int32"), Q: T.Buffer((64,), "int32"), R: T.Buffer((64,), "int32")):
        for i in range(64):
            if D[i] != 0:
                Q[i] = A[i] // D[i]
                R[i] = A[i] % D[i]
            Q[i] = Q[i] + A[i] // -5 + A[i] // 16
            R[i] = R[i] + A[i] % -5 + A[i] % 16)",
                                       &error);
    QVERIFY2(error.empty(), error.c_str());
    auto lowered = testing::RunPasses("LowerIntrin", module, &error);
    QVERIFY2(error.empty(), error.c_str());
    QVERIFY(script::PrintModule(lowered).find("//") == std::string::npos);
    for (uint64_t seed : {1, 2, 3}) {
      error = testing::CheckSameMeaning(module, lowered, seed);
      QVERIFY2(error.empty(), error.c_str());
    }
  }

  // Vector operands (what VectorizeLoop leaves): lanes of any sign, a Ramp known non-negative.
  void vectorOperandsKeepMeaning() {
    std::string error;
    auto module = testing::ParseModule(R"(@I.ir_module
class Module:
    @T.prim_func
    def main(A: T.Buffer((16,), "int32"), B: T.Buffer((16,), "int32"), C: T.Buffer((16,), "int32")):
        for i in range(4):
            B[i * 4:i * 4 + 4] = A[i * 4:i * 4 + 4] // T.Broadcast(4, 4) + A[i * 4:i * 4 + 4] % T.Broadcast(3, 4)
            C[i * 4:i * 4 + 4] = T.Ramp(i * 4, 1, 4) // T.Broadcast(3, 4) + A[i * 4:i * 4 + 4] % T.Broadcast(-8, 4))",
                                       &error);
    QVERIFY2(error.empty(), error.c_str());
    auto lowered = testing::RunPasses("LowerIntrin", module, &error);
    QVERIFY2(error.empty(), error.c_str());
    std::string text = script::PrintModule(lowered);
    QVERIFY2(text.find("//") == std::string::npos && text.find(" % ") == std::string::npos, text.c_str());
    QVERIFY2(text.find("T.Div(T.Ramp(i * 4, 1, 4), T.Broadcast(3, 4))") != std::string::npos, text.c_str());
    for (uint64_t seed : {4, 5}) {
      error = testing::CheckSameMeaning(module, lowered, seed);
      QVERIFY2(error.empty(), error.c_str());
    }
    error = testing::CheckRoundTrip(lowered);
    QVERIFY2(error.empty(), error.c_str());
  }
};

QTEST_APPLESS_MAIN(TestLowerIntrin)
#include "tst_tir_lower_intrin.moc"
