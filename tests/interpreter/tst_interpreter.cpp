// Tests of the reference interpreter on PrimFuncs with known results: each kernel is parsed from
// TVMScript (or built by hand), run on seeded random inputs, and compared with the same
// computation written as a plain C++ loop. Error cases check the message and the span.

#include <QTest>
#include <cmath>
#include <string>
#include <vector>

#include "runtime/half.h"
#include "runtime/ndarray.h"
#include "script/tvmscript.h"
#include "tir/interpreter.h"
#include "tir/op.h"

using namespace wb;
using namespace wb::tir;
using runtime::NDArray;

namespace {

ir::IRModule ParseOk(const std::string& text) {
  script::ParseResult r = script::Parse(text, "test.py");
  if (!r.ok()) qFatal("parse failed: %s", RenderDiagnostics(r.diagnostics).c_str());
  return r.module;
}

NDArray Random(std::vector<int64_t> shape, runtime::DLDataType t, uint64_t seed) {
  NDArray a = NDArray::Empty(std::move(shape), t);
  runtime::FillRandom(a, seed);
  return a;
}

std::string Errors(const InterpretResult& r) { return RenderDiagnostics(r.diagnostics); }

// The one error of a failed run.
const Diagnostic& OnlyError(const InterpretResult& r) {
  if (r.diagnostics.size() != 1) qFatal("expected one diagnostic, got: %s", Errors(r).c_str());
  return r.diagnostics[0];
}

const char* kHeader = "from tvm.script import ir as I\nfrom tvm.script import tirx as T\n";

}  // namespace

class TstInterpreter : public QObject {
  Q_OBJECT
 private Q_SLOTS:
  void matmulWithInit() {
    auto mod = ParseOk(std::string(kHeader) + R"(
@T.prim_func(s_tir=True)
def main(A: T.Buffer((16, 8), "float32"), B: T.Buffer((8, 12), "float32"), C: T.Buffer((16, 12), "float32")):
    for i, j, k in T.grid(16, 12, 8):
        with T.sblock("C"):
            vi, vj, vk = T.axis.remap("SSR", [i, j, k])
            with T.init():
                C[vi, vj] = T.float32(0.0)
            C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj]
)");
    NDArray a = Random({16, 8}, runtime::Float(32), 1);
    NDArray b = Random({8, 12}, runtime::Float(32), 2);
    NDArray c = Random({16, 12}, runtime::Float(32), 3);  // garbage: init must clear it
    InterpretResult r = InterpretModule(mod, "main", {a, b, c});
    QVERIFY2(r.ok(), Errors(r).c_str());
    NDArray expected = NDArray::Empty({16, 12}, runtime::Float(32));
    for (int i = 0; i < 16; ++i) {
      for (int j = 0; j < 12; ++j) {
        float acc = 0;
        for (int k = 0; k < 8; ++k) acc += float(a.GetDouble(i * 8 + k)) * float(b.GetDouble(k * 12 + j));
        expected.SetDouble(i * 12 + j, acc);
      }
    }
    runtime::CompareResult cmp = runtime::Compare(c, expected, {0, 0});  // same float32 order
    QVERIFY2(cmp.ok, cmp.message.c_str());
  }

  void affineIntegerArithmeticWrapsAsEachStepWould() {
    // Index-like integer expressions run as one affine form (interpreter_machine.h, Operand
    // kAffine), wrapped once at the end: the result must be what wrapping every step gives, for
    // int32 and int64, with repeated variables, subtraction, constants on either side and a
    // product that overflows; and a non-affine product of variables still runs.
    auto mod = ParseOk(std::string(kHeader) + R"(
@T.prim_func(s_tir=True)
def main(A: T.Buffer((8, 6), "int32"), B: T.Buffer((8, 6), "int64"), C: T.Buffer((48,), "int32")):
    for i, j in T.grid(8, 6):
        with T.sblock("A"):
            vi, vj = T.axis.remap("SS", [i, j])
            A[vi, vj] = (vi + 3) * 1073741824 - vj * 7 + vi * 5 - 2 * (vi - vj) + 2147483647
            B[vi, vj] = T.int64(4611686018427387904) * T.Cast("int64", vi) + T.Cast("int64", vj) * T.int64(3) - T.int64(9)
            C[vi * 6 + vj] = vi * vj + (vi * 6 + vj)
)");
    NDArray a = NDArray::Empty({8, 6}, runtime::Int(32));
    NDArray b = NDArray::Empty({8, 6}, runtime::Int(64));
    NDArray c = NDArray::Empty({48}, runtime::Int(32));
    InterpretResult r = InterpretModule(mod, "main", {a, b, c});
    QVERIFY2(r.ok(), Errors(r).c_str());
    auto wrap32 = [](uint64_t v) { return static_cast<int64_t>(static_cast<int32_t>(static_cast<uint32_t>(v))); };
    for (uint64_t i = 0; i < 8; ++i) {
      for (uint64_t j = 0; j < 6; ++j) {
        const uint64_t want_a = (i + 3) * 1073741824u - j * 7 + i * 5 - 2 * (i - j) + 2147483647u;
        QCOMPARE(static_cast<int64_t>(a.GetDouble(i * 6 + j)), wrap32(want_a));
        const uint64_t want_b = (uint64_t{1} << 62) * i + j * 3 - 9;
        QCOMPARE(reinterpret_cast<const int64_t*>(b.ElementData())[i * 6 + j], static_cast<int64_t>(want_b));
        QCOMPARE(static_cast<int64_t>(c.GetDouble(i * 6 + j)), static_cast<int64_t>(i * j + i * 6 + j));
      }
    }
  }

  void initRunsAtReductionMinimumOnly() {
    // The reduction axis starts at 2: init runs when vk == 2, not when vk == 0.
    auto mod = ParseOk(std::string(kHeader) + R"(
@T.prim_func(s_tir=True)
def main(A: T.Buffer((4, 6), "int32"), S: T.Buffer((4,), "int32")):
    for i, k in T.grid(4, 4):
        with T.sblock("S"):
            vi = T.axis.spatial(4, i)
            vk = T.axis.reduce((2, 6), k + 2)
            with T.init():
                S[vi] = 100
            S[vi] = S[vi] + A[vi, vk]
)");
    NDArray a = Random({4, 6}, runtime::Int(32), 4);
    NDArray s = NDArray::Empty({4}, runtime::Int(32));
    InterpretResult r = InterpretModule(mod, "main", {a, s});
    QVERIFY2(r.ok(), Errors(r).c_str());
    for (int i = 0; i < 4; ++i) {
      int64_t want = 100;
      for (int k = 2; k < 6; ++k) want += a.GetInt(i * 6 + k);
      QCOMPARE(s.GetInt(i), want);
    }
  }

  void softmax() {
    auto mod = ParseOk(std::string(kHeader) + R"(
@T.prim_func(s_tir=True)
def main(A: T.Buffer((4, 32), "float32"), B: T.Buffer((4, 32), "float32")):
    mx = T.sblock_alloc_buffer((4,))
    ex = T.sblock_alloc_buffer((4, 32))
    sm = T.sblock_alloc_buffer((4,))
    for i, k in T.grid(4, 32):
        with T.sblock("max"):
            vi, vk = T.axis.remap("SR", [i, k])
            with T.init():
                mx[vi] = T.float32(-3.4028234663852886e+38)
            mx[vi] = T.max(mx[vi], A[vi, vk])
    for i, k in T.grid(4, 32):
        with T.sblock("exp"):
            vi, vk = T.axis.remap("SS", [i, k])
            ex[vi, vk] = T.exp(A[vi, vk] - mx[vi])
    for i, k in T.grid(4, 32):
        with T.sblock("sum"):
            vi, vk = T.axis.remap("SR", [i, k])
            with T.init():
                sm[vi] = T.float32(0.0)
            sm[vi] = sm[vi] + ex[vi, vk]
    for i, k in T.grid(4, 32):
        with T.sblock("norm"):
            vi, vk = T.axis.remap("SS", [i, k])
            B[vi, vk] = ex[vi, vk] / sm[vi]
)");
    NDArray a = Random({4, 32}, runtime::Float(32), 5);
    NDArray b = NDArray::Empty({4, 32}, runtime::Float(32));
    InterpretResult r = InterpretModule(mod, "main", {a, b});
    QVERIFY2(r.ok(), Errors(r).c_str());
    NDArray expected = NDArray::Empty({4, 32}, runtime::Float(32));
    for (int i = 0; i < 4; ++i) {
      double mx = -1e30, sum = 0;
      for (int k = 0; k < 32; ++k) mx = std::max(mx, a.GetDouble(i * 32 + k));
      for (int k = 0; k < 32; ++k) sum += std::exp(a.GetDouble(i * 32 + k) - mx);
      for (int k = 0; k < 32; ++k) expected.SetDouble(i * 32 + k, std::exp(a.GetDouble(i * 32 + k) - mx) / sum);
    }
    runtime::CompareResult cmp = runtime::Compare(b, expected);
    QVERIFY2(cmp.ok, cmp.message.c_str());
  }

  void conv2dWithPadding() {
    auto mod = ParseOk(std::string(kHeader) + R"(
@T.prim_func(s_tir=True)
def main(X: T.Buffer((1, 2, 6, 6), "float32"), W: T.Buffer((3, 2, 3, 3), "float32"), Y: T.Buffer((1, 3, 6, 6), "float32")):
    pad = T.sblock_alloc_buffer((1, 2, 8, 8))
    for n, c, h, w in T.grid(1, 2, 8, 8):
        with T.sblock("pad"):
            vn, vc, vh, vw = T.axis.remap("SSSS", [n, c, h, w])
            pad[vn, vc, vh, vw] = T.if_then_else(1 <= vh and vh < 7 and 1 <= vw and vw < 7, X[vn, vc, vh - 1, vw - 1], T.float32(0.0))
    for n, f, y, x, c, ky, kx in T.grid(1, 3, 6, 6, 2, 3, 3):
        with T.sblock("conv"):
            vn, vf, vy, vx, vc, vky, vkx = T.axis.remap("SSSSRRR", [n, f, y, x, c, ky, kx])
            with T.init():
                Y[vn, vf, vy, vx] = T.float32(0.0)
            Y[vn, vf, vy, vx] = Y[vn, vf, vy, vx] + pad[vn, vc, vy + vky, vx + vkx] * W[vf, vc, vky, vkx]
)");
    NDArray x = Random({1, 2, 6, 6}, runtime::Float(32), 6);
    NDArray w = Random({3, 2, 3, 3}, runtime::Float(32), 7);
    NDArray y = NDArray::Empty({1, 3, 6, 6}, runtime::Float(32));
    InterpretResult r = InterpretModule(mod, "main", {x, w, y});
    QVERIFY2(r.ok(), Errors(r).c_str());
    NDArray expected = NDArray::Empty({1, 3, 6, 6}, runtime::Float(32));
    for (int f = 0; f < 3; ++f) {
      for (int oy = 0; oy < 6; ++oy) {
        for (int ox = 0; ox < 6; ++ox) {
          double acc = 0;
          for (int c = 0; c < 2; ++c) {
            for (int ky = 0; ky < 3; ++ky) {
              for (int kx = 0; kx < 3; ++kx) {
                int iy = oy + ky - 1, ix = ox + kx - 1;
                if (iy < 0 || iy >= 6 || ix < 0 || ix >= 6) continue;
                acc += x.GetDouble((c * 6 + iy) * 6 + ix) * w.GetDouble(((f * 2 + c) * 3 + ky) * 3 + kx);
              }
            }
          }
          expected.SetDouble((f * 6 + oy) * 6 + ox, acc);
        }
      }
    }
    runtime::CompareResult cmp = runtime::Compare(y, expected);
    QVERIFY2(cmp.ok, cmp.message.c_str());
  }

  void reductionsIntegerSemantics() {
    // Sum with int8 wrap-around, max, and TVM's four integer divisions on negative operands.
    auto mod = ParseOk(std::string(kHeader) + R"(
@T.prim_func
def main(A: T.Buffer((8,), "int32"), B: T.Buffer((8,), "int32"), out: T.Buffer((8, 4), "int32"), s8: T.Buffer((1,), "int8")):
    acc: T.int8 = T.int8(0)
    for i in range(8):
        out[i, 0] = T.truncdiv(A[i], B[i])
        out[i, 1] = T.truncmod(A[i], B[i])
        out[i, 2] = A[i] // B[i]
        out[i, 3] = A[i] % B[i]
        acc = acc + T.int8(100)
    s8[0] = acc
)");
    NDArray a = NDArray::Empty({8}, runtime::Int(32));
    NDArray b = NDArray::Empty({8}, runtime::Int(32));
    int av[8] = {7, -7, 7, -7, 0, 5, -2147483647 - 1, 9};
    int bv[8] = {2, 2, -2, -2, 3, 7, -1, -4};
    a.CopyFromBytes(av, sizeof(av));
    b.CopyFromBytes(bv, sizeof(bv));
    NDArray out = NDArray::Empty({8, 4}, runtime::Int(32));
    NDArray s8 = NDArray::Empty({1}, runtime::Int(8));
    InterpretResult r = InterpretModule(mod, "main", {a, b, out, s8});
    QVERIFY2(r.ok(), Errors(r).c_str());
    int want[8][4] = {{3, 1, 3, 1},   {-3, -1, -4, 1}, {-3, 1, -4, -1}, {3, -1, 3, -1},
                      {0, 0, 0, 0},   {0, 5, 0, 5},    {-2147483647 - 1, 0, -2147483647 - 1, 0},
                      {-2, 1, -3, -3}};
    for (int i = 0; i < 8; ++i) {
      for (int j = 0; j < 4; ++j) QCOMPARE(out.GetInt(i * 4 + j), int64_t{want[i][j]});
    }
    QCOMPARE(s8.GetInt(0), int64_t{static_cast<int8_t>(800 & 0xff)});  // 8 * 100 wraps in int8
  }

  void divisionByZeroIsReported() {
    auto mod = ParseOk(std::string(kHeader) + R"(
@T.prim_func
def main(A: T.Buffer((2,), "int32")):
    A[0] = A[0] // A[1]
)");
    NDArray a = NDArray::Empty({2}, runtime::Int(32));
    InterpretResult r = InterpretModule(mod, "main", {a});
    QVERIFY(!r.ok());
    QVERIFY2(OnlyError(r).message.find("integer division by zero") != std::string::npos, Errors(r).c_str());
    QCOMPARE(std::string(OnlyError(r).span.text()), std::string("A[0] // A[1]"));
  }

  void casts() {
    auto mod = ParseOk(std::string(kHeader) + R"(
@T.prim_func
def main(A: T.Buffer((6,), "float32"), H: T.Buffer((6,), "float16"), BF: T.Buffer((6,), "bfloat16"), Q: T.Buffer((6,), "int8"), U: T.Buffer((6,), "uint8"), R: T.Buffer((6,), "float32")):
    for i in range(6):
        H[i] = T.Cast("float16", A[i])
        BF[i] = T.Cast("bfloat16", A[i])
        Q[i] = T.Cast("int8", A[i])
        U[i] = T.Cast("uint8", T.Cast("int32", A[i]))
        R[i] = T.Cast("float32", H[i]) + T.Cast("float32", BF[i])
)");
    NDArray a = NDArray::Empty({6}, runtime::Float(32));
    float av[6] = {0.1f, -2.75f, 3.14159265f, 65519.0f, 300.7f, -129.9f};
    a.CopyFromBytes(av, sizeof(av));
    NDArray h = NDArray::Empty({6}, runtime::Float(16));
    NDArray bf = NDArray::Empty({6}, runtime::BFloat16());
    NDArray q = NDArray::Empty({6}, runtime::Int(8));
    NDArray u = NDArray::Empty({6}, runtime::UInt(8));
    NDArray rr = NDArray::Empty({6}, runtime::Float(32));
    InterpretResult r = InterpretModule(mod, "main", {a, h, bf, q, u, rr});
    QVERIFY2(r.ok(), Errors(r).c_str());
    auto bits = [](const NDArray& x, int i) { return reinterpret_cast<const uint16_t*>(x->data)[i]; };
    QCOMPARE(bits(h, 0), uint16_t{0x2E66});
    QCOMPARE(bits(h, 3), uint16_t{0x7BFF});
    QCOMPARE(bits(bf, 2), uint16_t{0x4049});
    QCOMPARE(bits(bf, 1), runtime::FloatToBFloat16Bits(-2.75f));
    // float -> int8 truncates toward zero, then wraps: 300 -> 44, -129 -> 127.
    QCOMPARE(q.GetInt(0), int64_t{0});
    QCOMPARE(q.GetInt(1), int64_t{-2});
    QCOMPARE(q.GetInt(4), int64_t{44});
    QCOMPARE(q.GetInt(5), int64_t{127});
    QCOMPARE(u.GetInt(5), int64_t{127});  // -129 as uint8
    QCOMPARE(u.GetInt(1), int64_t{254});
    QCOMPARE(rr.GetDouble(2), double(runtime::HalfBitsToFloat(runtime::FloatToHalfBits(3.14159265f)) + 3.140625f));
  }

  void float8Casts() {
    auto mod = ParseOk(std::string(kHeader) + R"(
@T.prim_func
def main(X: T.Buffer((4,), "float32"), Q: T.Buffer((4,), "float8_e4m3fn"), E: T.Buffer((4,), "float8_e5m2"), Y: T.Buffer((4,), "float32")):
    for i in range(4):
        Q[i] = T.Cast("float8_e4m3fn", X[i])
        E[i] = T.Cast("float8_e5m2", X[i])
        Y[i] = T.Cast("float32", Q[i])
)");
    NDArray x = NDArray::Empty({4}, runtime::Float(32));
    float xv[4] = {1.0f, 0.3f, 448.0f, -1000.0f};
    x.CopyFromBytes(xv, sizeof(xv));
    NDArray q = NDArray::Empty({4}, {runtime::kDLFloat8_e4m3fn, 8, 1});
    NDArray e = NDArray::Empty({4}, {runtime::kDLFloat8_e5m2, 8, 1});
    NDArray y = NDArray::Empty({4}, runtime::Float(32));
    InterpretResult r = InterpretModule(mod, "main", {x, q, e, y});
    QVERIFY2(r.ok(), Errors(r).c_str());
    for (int i = 0; i < 4; ++i) {
      QCOMPARE(static_cast<const uint8_t*>(q->data)[i], runtime::DoubleToFloat8E4M3FNBits(float(xv[i])));
      QCOMPARE(static_cast<const uint8_t*>(e->data)[i], runtime::DoubleToFloat8E5M2Bits(float(xv[i])));
    }
    QCOMPARE(y.GetDouble(1), 0.3125);  // 0.3 rounds to 1.25 * 2^-2
    QVERIFY(std::isnan(y.GetDouble(3)));  // out of e4m3fn's range
  }

  void float16ArithmeticRoundsEachStep() {
    // 2048 + 1 is not representable in float16: each addition rounds back to 2048.
    auto mod = ParseOk(std::string(kHeader) + R"(
@T.prim_func
def main(H: T.Buffer((1,), "float16")):
    H[0] = T.float16(2048.0)
    for i in range(10):
        H[0] = H[0] + T.float16(1.0)
)");
    NDArray h = NDArray::Empty({1}, runtime::Float(16));
    InterpretResult r = InterpretModule(mod, "main", {h});
    QVERIFY2(r.ok(), Errors(r).c_str());
    QCOMPARE(h.GetDouble(0), 2048.0);
  }

  void mathIntrinsics() {
    auto mod = ParseOk(std::string(kHeader) + R"(
@T.prim_func
def main(A: T.Buffer((5,), "float32"), O: T.Buffer((5, 12), "float32")):
    for i in range(5):
        O[i, 0] = T.exp(A[i])
        O[i, 1] = T.log(T.fabs(A[i]) + T.float32(1.0))
        O[i, 2] = T.sqrt(T.fabs(A[i]))
        O[i, 3] = T.rsqrt(T.fabs(A[i]) + T.float32(1.0))
        O[i, 4] = T.tanh(A[i])
        O[i, 5] = T.sigmoid(A[i])
        O[i, 6] = T.erf(A[i])
        O[i, 7] = T.pow(T.fabs(A[i]), T.float32(1.5))
        O[i, 8] = T.floor(A[i])
        O[i, 9] = T.ceil(A[i])
        O[i, 10] = T.round(A[i])
        O[i, 11] = T.Select(A[i] > T.float32(0.0), A[i], T.float32(0.0))
)");
    NDArray a = NDArray::Empty({5}, runtime::Float(32));
    float av[5] = {-1.5f, 0.5f, 2.5f, -0.25f, 3.0f};
    a.CopyFromBytes(av, sizeof(av));
    NDArray o = NDArray::Empty({5, 12}, runtime::Float(32));
    InterpretResult r = InterpretModule(mod, "main", {a, o});
    QVERIFY2(r.ok(), Errors(r).c_str());
    for (int i = 0; i < 5; ++i) {
      double x = av[i];
      double want[12] = {std::exp(x), std::log(std::fabs(x) + 1), std::sqrt(std::fabs(x)),
                         1 / std::sqrt(std::fabs(x) + 1), std::tanh(x), 1 / (1 + std::exp(-x)),
                         std::erf(x), std::pow(std::fabs(x), 1.5), std::floor(x), std::ceil(x),
                         std::nearbyint(x), x > 0 ? x : 0};
      for (int j = 0; j < 12; ++j) {
        QVERIFY2(std::fabs(o.GetDouble(i * 12 + j) - want[j]) <= 1e-6 * (1 + std::fabs(want[j])),
                 qPrintable(QString("O[%1, %2] = %3, want %4").arg(i).arg(j).arg(o.GetDouble(i * 12 + j)).arg(want[j])));
      }
    }
    QCOMPARE(o.GetDouble(2 * 12 + 10), 2.0);  // round half to even, as TVM's nearbyint
  }

  void vectorRampBroadcastShuffleAndPredicates() {
    auto mod = ParseOk(std::string(kHeader) + R"(
@I.ir_module
class Module:
    @T.prim_func
    def ramp(A: T.Buffer((64,), "float32"), B: T.Buffer((64,), "float32")):
        for i in range(16):
            B[i * 4:i * 4 + 4] = A[i * 4:i * 4 + 4] * T.Cast("float32x4", T.Ramp(i * 4, 1, 4)) + T.Broadcast(T.float32(0.5), 4)

    @T.prim_func
    def interleave(even: T.Buffer((8,), "float32"), odd: T.Buffer((8,), "float32"), out: T.Buffer((16,), "float32")):
        for i in range(2):
            out[i * 8:i * 8 + 8] = T.Shuffle([even[i * 4:i * 4 + 4], odd[i * 4:i * 4 + 4]], [0, 4, 1, 5, 2, 6, 3, 7])

    @T.prim_func
    def strided(A: T.Buffer((32,), "float32"), even: T.Buffer((16,), "float32")):
        for i in range(4):
            even[i * 4:i * 4 + 4] = A[i * 8:i * 8 + 8:2]

    @T.prim_func
    def masked_copy(n: T.int32, A: T.Buffer((16,), "float32"), B: T.Buffer((16,), "float32")):
        for i in range((n + 3) // 4):
            B.vstore([T.Ramp(i * 4, 1, 4)], A.vload([T.Ramp(i * 4, 1, 4)], predicate=T.Ramp(i * 4, 1, 4) < T.Broadcast(n, 4)), predicate=T.Ramp(i * 4, 1, 4) < T.Broadcast(n, 4))
)");
    NDArray a = Random({64}, runtime::Float(32), 8);
    NDArray b = NDArray::Empty({64}, runtime::Float(32));
    InterpretResult r = InterpretModule(mod, "ramp", {a, b});
    QVERIFY2(r.ok(), Errors(r).c_str());
    for (int i = 0; i < 64; ++i) QCOMPARE(b.GetDouble(i), double(float(float(a.GetDouble(i)) * float(i)) + 0.5f));

    NDArray even = Random({8}, runtime::Float(32), 9), odd = Random({8}, runtime::Float(32), 10);
    NDArray out = NDArray::Empty({16}, runtime::Float(32));
    r = InterpretModule(mod, "interleave", {even, odd, out});
    QVERIFY2(r.ok(), Errors(r).c_str());
    for (int i = 0; i < 8; ++i) {
      QCOMPARE(out.GetDouble(2 * i), even.GetDouble(i));
      QCOMPARE(out.GetDouble(2 * i + 1), odd.GetDouble(i));
    }

    NDArray src = Random({32}, runtime::Float(32), 11), ev = NDArray::Empty({16}, runtime::Float(32));
    r = InterpretModule(mod, "strided", {src, ev});
    QVERIFY2(r.ok(), Errors(r).c_str());
    for (int i = 0; i < 16; ++i) QCOMPARE(ev.GetDouble(i), src.GetDouble(2 * i));

    // n = 10: lanes 10..11 of the last vector are masked off, so B[10:] keeps its old values
    // and the masked lanes 12..15 are never touched.
    NDArray ma = Random({16}, runtime::Float(32), 12), mb = NDArray::Empty({16}, runtime::Float(32));
    for (int i = 0; i < 16; ++i) mb.SetDouble(i, -7);
    r = InterpretModule(mod, "masked_copy", {10, ma, mb});
    QVERIFY2(r.ok(), Errors(r).c_str());
    for (int i = 0; i < 16; ++i) QCOMPARE(mb.GetDouble(i), i < 10 ? ma.GetDouble(i) : -7.0);
  }

  void loweredFlattenedKernel() {
    // A lowered matmul: flat buffers, a packed copy, parallel and vectorized loops, a local
    // accumulator and decl_buffer views.
    auto mod = ParseOk(std::string(kHeader) + R"(
@T.prim_func
def main(A_flat: T.Buffer((64,), "float32"), B_flat: T.Buffer((64,), "float32"), C_flat: T.Buffer((64,), "float32")):
    A = T.decl_buffer((8, 8), data=A_flat.data)
    packedB = T.alloc_buffer((64,))
    for x in T.parallel(8):
        packedB[x * 8:x * 8 + 8] = B_flat[x * 8:x * 8 + 8]
    for i in T.parallel(8):
        acc = T.alloc_buffer((8,))
        for j in T.vectorized(8):
            acc[j] = T.float32(0.0)
        for k in range(8):
            acc[0:8] = acc[0:8] + T.Broadcast(A[i, k], 8) * packedB[k * 8:k * 8 + 8]
        for j in T.unroll(8):
            C_flat[i * 8 + j] = acc[j]
)");
    NDArray a = Random({64}, runtime::Float(32), 13), b = Random({64}, runtime::Float(32), 14);
    NDArray c = Random({64}, runtime::Float(32), 15);
    InterpretResult r = InterpretModule(mod, "main", {a, b, c});
    QVERIFY2(r.ok(), Errors(r).c_str());
    for (int i = 0; i < 8; ++i) {
      for (int j = 0; j < 8; ++j) {
        float acc = 0;
        for (int k = 0; k < 8; ++k) acc += float(a.GetDouble(i * 8 + k)) * float(b.GetDouble(k * 8 + j));
        QCOMPARE(c.GetDouble(i * 8 + j), double(acc));
      }
    }
  }

  void symbolicShapes() {
    auto mod = ParseOk(std::string(kHeader) + R"(
@T.prim_func(s_tir=True)
def main(A: T.Buffer(("n", "m"), "float32"), B: T.Buffer(("m",), "float32"), C: T.Buffer((n, m), "float32"), scale: T.float32):
    n = T.int32()
    m = T.int32()
    for i, j in T.grid(n, m):
        with T.sblock("add"):
            vi, vj = T.axis.remap("SS", [i, j])
            C[vi, vj] = A[vi, vj] * scale + B[vj]
)");
    for (auto [n, m] : {std::pair{3, 5}, std::pair{7, 2}}) {
      NDArray a = Random({n, m}, runtime::Float(32), 16), b = Random({m}, runtime::Float(32), 17);
      NDArray c = NDArray::Empty({n, m}, runtime::Float(32));
      InterpretResult r = InterpretModule(mod, "main", {a, b, c, 2.0});
      QVERIFY2(r.ok(), Errors(r).c_str());
      for (int i = 0; i < n * m; ++i) {
        QCOMPARE(c.GetDouble(i), double(float(float(a.GetDouble(i)) * 2.0f) + float(b.GetDouble(i % m))));
      }
    }
    // A shape that disagrees with the one already bound.
    NDArray a = NDArray::Empty({3, 5}, runtime::Float(32)), b = NDArray::Empty({4}, runtime::Float(32));
    NDArray c = NDArray::Empty({3, 5}, runtime::Float(32));
    InterpretResult r = InterpretModule(mod, "main", {a, b, c, 1.0});
    QVERIFY(!r.ok());
    QVERIFY2(OnlyError(r).message == "dimension 0 of B is 4, but the function expects 5", Errors(r).c_str());
    // Wrong dtype and rank.
    r = InterpretModule(mod, "main", {NDArray::Empty({3, 5}, runtime::Int(32)), b, c, 1.0});
    QVERIFY2(OnlyError(r).message == "argument 0 ('A') has dtype int32, but buffer A is float32", Errors(r).c_str());
    r = InterpretModule(mod, "main", {a, b, c});
    QVERIFY2(OnlyError(r).message == "main takes 4 arguments, got 3", Errors(r).c_str());
  }

  void outOfBoundsIsReportedWithSpan() {
    auto mod = ParseOk(std::string(kHeader) + R"(
@T.prim_func
def main(A: T.Buffer((4, 8), "float32"), B: T.Buffer((4, 8), "float32")):
    for i, j in T.grid(4, 8):
        B[i, j] = A[i, j + 1]
)");
    NDArray a = Random({4, 8}, runtime::Float(32), 18);
    NDArray b = NDArray::Empty({4, 8}, runtime::Float(32));
    InterpretResult r = InterpretModule(mod, "main", {a, b});
    const Diagnostic& d = OnlyError(r);
    QCOMPARE(d.message, std::string("out-of-bounds read of A[0, 8]: index 8 is outside [0, 8) in "
                                    "dimension 1 (buffer shape (4, 8))"));
    QCOMPARE(std::string(d.span.text()), std::string("A[i, j + 1]"));
    QCOMPARE(d.span.start().line, uint32_t{7});
    // Nothing past the failing access was written: B[0, 7] is still 0, B[0, 6] done.
    QCOMPARE(b.GetDouble(6), a.GetDouble(7));

    auto store = ParseOk(std::string(kHeader) + R"(
@T.prim_func
def main(A: T.Buffer((8,), "float32")):
    for i in range(8):
        A[i * 2 - 1] = T.float32(1.0)
)");
    r = InterpretModule(store, "main", {NDArray::Empty({8}, runtime::Float(32))});
    QCOMPARE(OnlyError(r).message, std::string("out-of-bounds write of A[-1]: index -1 is outside [0, 8) in dimension 0 (buffer shape (8,))"));
    QCOMPARE(std::string(OnlyError(r).span.text()), std::string("A[i * 2 - 1]"));
  }

  void failingAssert() {
    auto mod = ParseOk(std::string(kHeader) + R"(
@T.prim_func
def main(n: T.int32, A: T.Buffer((16,), "float32")):
    assert n <= 16, ("ValueError", ["n must not exceed ", "16"])
    for i in range(n):
        A[i] = T.float32(1.0)
)");
    NDArray a = NDArray::Empty({16}, runtime::Float(32));
    InterpretResult r = InterpretModule(mod, "main", {12, a});
    QVERIFY2(r.ok(), Errors(r).c_str());
    QCOMPARE(a.GetDouble(11), 1.0);
    r = InterpretModule(mod, "main", {20, a});
    const Diagnostic& d = OnlyError(r);
    QCOMPARE(d.message, std::string("assertion failed (ValueError): n must not exceed 16"));
    QVERIFY2(std::string(d.span.text()).find("assert n <= 16") == 0, Errors(r).c_str());
  }

  void controlFlowLetAndScalars() {
    auto mod = ParseOk(std::string(kHeader) + R"(
@I.ir_module
class Module:
    @T.prim_func
    def search(sorted_seq: T.Buffer((64,), "float32"), values: T.Buffer((8,), "float32"), indices: T.Buffer((8,), "int32")):
        for i in T.parallel(8):
            lo: T.int32 = 0
            hi: T.int32 = 64
            while lo < hi:
                mid: T.let[T.int32] = (lo + hi) // 2
                if sorted_seq[mid] < values[i]:
                    lo = mid + 1
                else:
                    hi = mid
            indices[i] = lo

    @T.prim_func
    def first_above(A: T.Buffer((4, 16), "float32"), thresh: T.float32, pos: T.Buffer((4,), "int32")):
        for r in range(4):
            found: T.int32 = -1
            for i in range(16):
                if A[r, i] > thresh:
                    found = i
                    T.break_loop()
            pos[r] = found

    @T.prim_func
    def smoothstep(A: T.Buffer((16,), "float32"), B: T.Buffer((16,), "float32")):
        for i in range(16):
            t = T.float32()
            B[i] = T.Let(t * t * (T.float32(3.0) - T.float32(2.0) * t), where={t: T.max(T.min(A[i], T.float32(1.0)), T.float32(0.0))})
)");
    NDArray seq = NDArray::Empty({64}, runtime::Float(32));
    for (int i = 0; i < 64; ++i) seq.SetDouble(i, i * 0.5);
    NDArray values = NDArray::Empty({8}, runtime::Float(32));
    double vals[8] = {-1, 0, 0.25, 3, 3.1, 31.5, 40, 10};
    for (int i = 0; i < 8; ++i) values.SetDouble(i, vals[i]);
    NDArray idx = NDArray::Empty({8}, runtime::Int(32));
    InterpretResult r = InterpretModule(mod, "search", {seq, values, idx});
    QVERIFY2(r.ok(), Errors(r).c_str());
    int want[8] = {0, 0, 1, 6, 7, 63, 64, 20};
    for (int i = 0; i < 8; ++i) QCOMPARE(idx.GetInt(i), int64_t{want[i]});

    NDArray a = Random({4, 16}, runtime::Float(32), 19);
    NDArray pos = NDArray::Empty({4}, runtime::Int(32));
    r = InterpretModule(mod, "first_above", {a, 0.8, pos});
    QVERIFY2(r.ok(), Errors(r).c_str());
    for (int row = 0; row < 4; ++row) {
      int64_t found = -1;
      for (int i = 0; i < 16 && found < 0; ++i) {
        if (a.GetDouble(row * 16 + i) > double(0.8f)) found = i;
      }
      QCOMPARE(pos.GetInt(row), found);
    }

    NDArray s = Random({16}, runtime::Float(32), 20), t = NDArray::Empty({16}, runtime::Float(32));
    s.SetDouble(0, 2.0);
    r = InterpretModule(mod, "smoothstep", {s, t});
    QVERIFY2(r.ok(), Errors(r).c_str());
    for (int i = 0; i < 16; ++i) {
      float x = std::max(std::min(float(s.GetDouble(i)), 1.0f), 0.0f);
      QCOMPARE(t.GetDouble(i), double(x * x * (3.0f - 2.0f * x)));
    }
  }

  void subroutineCallsAndDeclBufferViews() {
    auto mod = ParseOk(std::string(kHeader) + R"(
@I.ir_module
class Module:
    @T.prim_func(private=True)
    def clamp_index(i: T.int32, n: T.int32) -> T.int32:
        return T.max(T.min(i, n - 1), 0)

    @T.prim_func(private=True)
    def row_sum(row: T.handle("float32", "global"), n: T.int32) -> T.float32:
        R_1 = T.decl_buffer((n,), data=row)
        acc: T.float32 = T.float32(0.0)
        for j in range(n):
            acc = acc + R_1[j]
        return acc

    @T.prim_func(private=True)
    def scale_row(row: T.handle("float32", "global"), n: T.int32, alpha: T.float32):
        R_1 = T.decl_buffer((n,), data=row)
        for j in range(n):
            R_1[j] = R_1[j] * alpha

    @T.prim_func
    def main(A: T.Buffer((6, 8), "float32"), idx: T.Buffer((4,), "int32"), out: T.Buffer((4,), "float32")):
        for i in range(6):
            Module.scale_row(T.address_of(A[i, 0]), 8, T.float32(0.5))
        for i in range(4):
            r: T.let[T.int32] = Module.clamp_index(idx[i], 6)
            out[i] = Module.row_sum(T.address_of(A[r, 0]), 8)

    @T.prim_func
    def views(A: T.Buffer((16,), "float32"), lo: T.Buffer((8,), "float32"), hi: T.Buffer((8,), "float32")):
        A_hi = T.decl_buffer((8,), data=A.data, elem_offset=8)
        A_2d = T.decl_buffer((2, 8), data=A.data)
        for i in range(8):
            lo[i] = A_2d[0, i]
            hi[i] = A_hi[i]
        A_hi[0] = T.float32(42.0)
)");
    NDArray a = Random({6, 8}, runtime::Float(32), 21);
    NDArray original = a.Copy();
    NDArray idx = NDArray::Empty({4}, runtime::Int(32));
    int iv[4] = {-3, 2, 5, 99};
    idx.CopyFromBytes(iv, sizeof(iv));
    NDArray out = NDArray::Empty({4}, runtime::Float(32));
    InterpretResult r = InterpretModule(mod, "main", {a, idx, out});
    QVERIFY2(r.ok(), Errors(r).c_str());
    for (int i = 0; i < 48; ++i) QCOMPARE(a.GetDouble(i), double(float(original.GetDouble(i)) * 0.5f));
    for (int i = 0; i < 4; ++i) {
      int row = std::max(std::min(iv[i], 5), 0);
      float acc = 0;
      for (int j = 0; j < 8; ++j) acc += float(a.GetDouble(row * 8 + j));
      QCOMPARE(out.GetDouble(i), double(acc));
    }

    NDArray v = Random({16}, runtime::Float(32), 22);
    NDArray lo = NDArray::Empty({8}, runtime::Float(32)), hi = NDArray::Empty({8}, runtime::Float(32));
    NDArray vcopy = v.Copy();
    r = InterpretModule(mod, "views", {v, lo, hi});
    QVERIFY2(r.ok(), Errors(r).c_str());
    for (int i = 0; i < 8; ++i) {
      QCOMPARE(lo.GetDouble(i), vcopy.GetDouble(i));
      QCOMPARE(hi.GetDouble(i), vcopy.GetDouble(8 + i));
    }
    QCOMPARE(v.GetDouble(8), 42.0);  // the view writes through to A
  }

  void matchBufferRegions() {
    auto mod = ParseOk(std::string(kHeader) + R"(
@T.prim_func(s_tir=True)
def main(A: T.Buffer((8, 8), "float32"), B: T.Buffer((8, 8), "float32")):
    for io, jo in T.grid(2, 2):
        with T.sblock("tile"):
            vio, vjo = T.axis.remap("SS", [io, jo])
            A_tile = T.match_buffer(A[vio * 4:vio * 4 + 4, vjo * 4:vjo * 4 + 4], (4, 4), strides=("s0", "s1"), offset_factor=1)
            B_tile = T.match_buffer(B[vio * 4:vio * 4 + 4, vjo * 4:vjo * 4 + 4], (4, 4), offset_factor=1)
            for i, j in T.grid(4, 4):
                B_tile[i, j] = A_tile[i, j] + T.Cast("float32", A_tile.elem_offset)
)");
    NDArray a = Random({8, 8}, runtime::Float(32), 23), b = NDArray::Empty({8, 8}, runtime::Float(32));
    InterpretResult r = InterpretModule(mod, "main", {a, b});
    QVERIFY2(r.ok(), Errors(r).c_str());
    for (int i = 0; i < 8; ++i) {
      for (int j = 0; j < 8; ++j) {
        int offset = (i / 4) * 4 * 8 + (j / 4) * 4;
        QCOMPARE(b.GetDouble(i * 8 + j), double(float(a.GetDouble(i * 8 + j)) + float(offset)));
      }
    }
  }

  void bitOperations() {
    auto mod = ParseOk(std::string(kHeader) + R"(
@T.prim_func
def main(A: T.Buffer((4,), "int32"), U: T.Buffer((4,), "uint32"), O: T.Buffer((4, 5), "int32"), P: T.Buffer((4, 2), "uint32")):
    for i in range(4):
        O[i, 0] = T.shift_right(A[i], 2)
        O[i, 1] = T.shift_left(A[i], 3)
        O[i, 2] = T.bitwise_and(A[i], 255)
        O[i, 3] = T.popcount(A[i])
        O[i, 4] = T.clz(A[i])
        P[i, 0] = T.shift_right(U[i], T.uint32(28))
        P[i, 1] = T.bitwise_not(U[i])
)");
    NDArray a = NDArray::Empty({4}, runtime::Int(32)), u = NDArray::Empty({4}, runtime::UInt(32));
    int32_t av[4] = {-17, 5, 1 << 30, -1};
    uint32_t uv[4] = {0xF0000000u, 1, 0, 0x80000000u};
    a.CopyFromBytes(av, sizeof(av));
    u.CopyFromBytes(uv, sizeof(uv));
    NDArray o = NDArray::Empty({4, 5}, runtime::Int(32)), p = NDArray::Empty({4, 2}, runtime::UInt(32));
    InterpretResult r = InterpretModule(mod, "main", {a, u, o, p});
    QVERIFY2(r.ok(), Errors(r).c_str());
    int64_t want[4][5] = {{-5, -136, 239, 31, 0}, {1, 40, 5, 2, 29}, {1 << 28, 0, 0, 1, 1}, {-1, -8, 255, 32, 0}};
    for (int i = 0; i < 4; ++i) {
      for (int j = 0; j < 5; ++j) QCOMPARE(o.GetInt(i * 5 + j), want[i][j]);
    }
    int64_t pwant[4][2] = {{15, 0x0FFFFFFF}, {0, 0xFFFFFFFE}, {0, 0xFFFFFFFF}, {8, 0x7FFFFFFF}};
    for (int i = 0; i < 4; ++i) {
      for (int j = 0; j < 2; ++j) QCOMPARE(p.GetInt(i * 2 + j), pwant[i][j]);
    }
  }

  void continueSkipsTheRestOfTheBody() {
    auto mod = ParseOk(std::string(kHeader) + R"(
@T.prim_func
def main(A: T.Buffer((16,), "float32"), n: T.Buffer((1,), "int32")):
    c: T.int32 = 0
    for i in range(16):
        if A[i] <= T.float32(0.0):
            T.continue_loop()
        c = c + 1
    n[0] = c
)");
    NDArray a = Random({16}, runtime::Float(32), 24), n = NDArray::Empty({1}, runtime::Int(32));
    InterpretResult r = InterpretModule(mod, "main", {a, n});
    QVERIFY2(r.ok(), Errors(r).c_str());
    int64_t positive = 0;
    for (int i = 0; i < 16; ++i) positive += a.GetDouble(i) > 0;
    QVERIFY(positive > 0 && positive < 16);
    QCOMPARE(n.GetInt(0), positive);
  }

  void stridedAndOffsetParameters() {
    auto mod = ParseOk(std::string(kHeader) + R"(
@T.prim_func
def main(A: T.Buffer((4, 4), "float32", strides=("s0", 1)), C: T.Buffer((4,), "float32", elem_offset=4), B: T.Buffer((4, 4), "float32")):
    for i, j in T.grid(4, 4):
        B[i, j] = A[i, j] + C[j]
)");
    NDArray base = Random({32}, runtime::Float(32), 25);
    NDArray a = NDArray::View(base, {4, 4}, {8, 1}, 0);  // rows of 8
    NDArray cbase = Random({8}, runtime::Float(32), 26);
    NDArray c = NDArray::View(cbase, {4}, {}, 4 * 4);  // byte offset = elem_offset 4
    NDArray b = NDArray::Empty({4, 4}, runtime::Float(32));
    InterpretResult r = InterpretModule(mod, "main", {a, c, b});
    QVERIFY2(r.ok(), Errors(r).c_str());
    for (int i = 0; i < 4; ++i) {
      for (int j = 0; j < 4; ++j) {
        QCOMPARE(b.GetDouble(i * 4 + j), double(float(base.GetDouble(i * 8 + j)) + float(cbase.GetDouble(4 + j))));
      }
    }
    // An array without the declared element offset is refused.
    r = InterpretModule(mod, "main", {a, NDArray::Empty({4}, runtime::Float(32)), b});
    QCOMPARE(OnlyError(r).message, std::string("the element offset of C is 0, but the function expects 4"));
    // A strided array for a buffer that declares no strides is refused too.
    r = InterpretModule(mod, "main", {a, c, NDArray::View(base, {4, 4}, {8, 1}, 0)});
    QCOMPARE(OnlyError(r).message, std::string("argument 2 ('B') is strided, but buffer B declares no strides"));
  }

  void handBuiltFunction() {
    // B[i] = A[i] * 3 for i < 5, built without the parser.
    Buffer a = MakeBuffer("A", {MakeIntImm(DataType::Int(32), 5)}, DataType::Int(16));
    Buffer b = MakeBuffer("B", {MakeIntImm(DataType::Int(32), 5)}, DataType::Int(16));
    Var i = MakeVar("i", DataType::Int(32));
    Stmt body = MakeFor(i, MakeIntImm(DataType::Int(32), 0), MakeIntImm(DataType::Int(32), 5), ForKind::kSerial,
                        MakeBufferStore(b, mul(MakeBufferLoad(a, {i}), MakeIntImm(DataType::Int(16), 3)), {i}));
    Var pa = MakePointerVar("A", DataType::Int(16), "global");
    Var pb = MakePointerVar("B", DataType::Int(16), "global");
    PrimFunc func = MakePrimFunc({pa, pb}, {a, b}, body);
    NDArray x = NDArray::Empty({5}, runtime::Int(16)), y = NDArray::Empty({5}, runtime::Int(16));
    int16_t xv[5] = {1, -2, 300, 20000, 0};
    x.CopyFromBytes(xv, sizeof(xv));
    InterpretResult r = Interpret(func, {x, y});
    QVERIFY2(r.ok(), Errors(r).c_str());
    for (int k = 0; k < 5; ++k) QCOMPARE(y.GetInt(k), int64_t{static_cast<int16_t>(xv[k] * 3)});
  }

  void runawayLoopStops() {
    auto mod = ParseOk(std::string(kHeader) + R"(
@T.prim_func
def main(A: T.Buffer((1,), "int32")):
    while A[0] >= 0:
        A[0] = A[0] * 1
)");
    InterpretOptions options;
    options.max_iterations = 1000;
    InterpretResult r = InterpretModule(mod, "main", {NDArray::Empty({1}, runtime::Int(32))}, options);
    QVERIFY2(OnlyError(r).message.find("stopped after 1000 loop iterations") == 0, Errors(r).c_str());
  }

  void loopKernelsComputeWhatTheClosuresDo() {
    // Innermost loops of scalar code run as bytecode (interpreter_kernel.cpp) with addresses
    // strength-reduced along the loop; these shapes cover its paths: conditions (an access out of
    // bounds only in an untaken branch must not stop the run), blocks whose iter vars are bound
    // (split axes) with an init, bindings, float64/int32 arithmetic, an index through another
    // buffer (checked at every iteration) and a reduction written into by both branches.
    auto mod = ParseOk(std::string(kHeader) + R"(
@T.prim_func(s_tir=True)
def main(A: T.Buffer((32,), "float32"), B: T.Buffer((32,), "float32"), C: T.Buffer((4, 8), "float32"),
         D: T.Buffer((32,), "float64"), E: T.Buffer((32,), "int32"), F: T.Buffer((8,), "float32")):
    for i in range(32):
        if i < 31:
            B[i] = A[i + 1] * T.float32(2.0)
        else:
            B[i] = -A[0]
    for io, ii in T.grid(4, 8):
        with T.sblock("C"):
            vi = T.axis.spatial(32, io * 8 + ii)
            C[vi // 8, vi % 8] = A[vi] + B[31 - vi]
    for i in range(32):
        x = T.Cast("float64", A[i]) * T.float64(3.0)
        D[i] = x - T.float64(1.0)
        E[i] = (i * 7 + 3) % 5 - T.if_then_else(i > 16, 2, 1)
    for i, ko, ki in T.grid(8, 2, 16):
        with T.sblock("F"):
            vi = T.axis.spatial(8, i)
            vk = T.axis.reduce(32, ko * 16 + ki)
            with T.init():
                F[vi] = T.float32(0.0)
            F[vi] = F[vi] + A[vk] * B[E[vk] + vi + 2]
)");
    NDArray a = Random({32}, runtime::Float(32), 31);
    NDArray b = NDArray::Empty({32}, runtime::Float(32));
    NDArray c = NDArray::Empty({4, 8}, runtime::Float(32));
    NDArray d = NDArray::Empty({32}, runtime::Float(64));
    NDArray e = NDArray::Empty({32}, runtime::Int(32));
    NDArray f = Random({8}, runtime::Float(32), 32);
    InterpretResult r = InterpretModule(mod, "main", {a, b, c, d, e, f});
    QVERIFY2(r.ok(), Errors(r).c_str());
    auto A = [&](int i) { return float(a.GetDouble(i)); };
    std::vector<float> wb(32);
    for (int i = 0; i < 32; ++i) wb[i] = i < 31 ? A(i + 1) * 2.0f : -A(0);
    for (int i = 0; i < 32; ++i) QCOMPARE(float(b.GetDouble(i)), wb[i]);
    for (int i = 0; i < 32; ++i) QCOMPARE(float(c.GetDouble(i)), A(i) + wb[31 - i]);
    for (int i = 0; i < 32; ++i) {
      QCOMPARE(d.GetDouble(i), double(A(i)) * 3.0 - 1.0);
      QCOMPARE(e.GetInt(i), int64_t{(i * 7 + 3) % 5 - (i > 16 ? 2 : 1)});
    }
    for (int i = 0; i < 8; ++i) {
      float acc = 0;
      for (int k = 0; k < 32; ++k) acc = acc + A(k) * wb[e.GetInt(k) + i + 2];
      QCOMPARE(float(f.GetDouble(i)), acc);
    }
  }

  void loopKernelErrorsAreTheClosuresErrors() {
    // An index through another buffer going out of bounds mid-loop: reported at that element,
    // with everything before it done (the kernel checks such accesses at every iteration).
    auto mod = ParseOk(std::string(kHeader) + R"(
@T.prim_func
def main(I: T.Buffer((8,), "int32"), A: T.Buffer((8,), "float32"), B: T.Buffer((8,), "float32")):
    for i in range(8):
        B[i] = A[I[i]]
)");
    NDArray idx = NDArray::Empty({8}, runtime::Int(32));
    for (int i = 0; i < 8; ++i) idx.SetInt(i, i == 5 ? 9 : 7 - i);
    NDArray a = Random({8}, runtime::Float(32), 33);
    NDArray b = NDArray::Empty({8}, runtime::Float(32));
    InterpretResult r = InterpretModule(mod, "main", {idx, a, b});
    QCOMPARE(OnlyError(r).message, std::string("out-of-bounds read of A[9]: index 9 is outside [0, 8) in dimension 0 (buffer shape (8,))"));
    QCOMPARE(b.GetDouble(4), a.GetDouble(3));
    QCOMPARE(b.GetDouble(5), 0.0);
    // The iteration limit stops an innermost loop where the closures would.
    auto fill = ParseOk(std::string(kHeader) + R"(
@T.prim_func
def main(A: T.Buffer((1000,), "int32")):
    for i in range(1000):
        A[i] = i + 1
)");
    NDArray x = NDArray::Empty({1000}, runtime::Int(32));
    InterpretOptions options;
    options.max_iterations = 100;
    r = InterpretModule(fill, "main", {x}, options);
    QVERIFY2(OnlyError(r).message.find("stopped after 100 loop iterations") == 0, Errors(r).c_str());
    QCOMPARE(x.GetInt(99), int64_t{100});
    QCOMPARE(x.GetInt(100), int64_t{0});
    options.max_iterations = 1000;
    r = InterpretModule(fill, "main", {x}, options);
    QVERIFY2(r.ok(), Errors(r).c_str());
    QCOMPARE(x.GetInt(999), int64_t{1000});
    // An int8 index that wraps: strength reduction would be wrong, the closures are right.
    auto wrap = ParseOk(std::string(kHeader) + R"(
@T.prim_func
def main(A: T.Buffer((256,), "float32"), B: T.Buffer((200,), "float32")):
    for i in range(200):
        B[i] = A[T.Cast("int32", T.Cast("int8", i)) + 128]
)");
    NDArray w = Random({256}, runtime::Float(32), 34);
    NDArray v = NDArray::Empty({200}, runtime::Float(32));
    r = InterpretModule(wrap, "main", {w, v});
    QVERIFY2(r.ok(), Errors(r).c_str());
    for (int i = 0; i < 200; ++i) QCOMPARE(v.GetDouble(i), w.GetDouble(int(int8_t(i)) + 128));
  }

  void externalCallsAreReported() {
    auto mod = ParseOk(std::string(kHeader) + R"(
@T.prim_func
def main(A: T.Buffer((4,), "float32")):
    if A[0] > T.float32(100.0):
        T.call_extern("int32", "never_reached", A.data)
    A[1] = T.float32(5.0)
    T.call_extern("int32", "my_kernel", A.data)
)");
    // Only a call that is reached stops the run, after what came before it ran.
    NDArray a = NDArray::Empty({4}, runtime::Float(32));
    InterpretResult r = InterpretModule(mod, "main", {a});
    QVERIFY2(OnlyError(r).message == "the interpreter cannot run T.call_extern \"my_kernel\" (external code or a runtime facility)", Errors(r).c_str());
    QCOMPARE(a.GetDouble(1), 5.0);
    r = InterpretModule(mod, "nope", {});
    QCOMPARE(OnlyError(r).message, std::string("the module has no PrimFunc named 'nope'"));
    r = InterpretModule(mod, "main", {int64_t{3}});
    QVERIFY2(OnlyError(r).message == "argument 0 ('A') needs an NDArray, but a number was given", Errors(r).c_str());
  }
};

QTEST_APPLESS_MAIN(TstInterpreter)
#include "tst_interpreter.moc"
