// topi's element-wise operators and matmul, run through create_prim_func and the reference
// interpreter on seeded random inputs, against plain C++ references: every broadcasting binary
// op (static, broadcast and symbolic shapes, scalar operands), the unary math ops, clip, cast,
// where, full, the activations, and matmul (2-D, batched with broadcasting, vectors, symbolic).

#include <QTest>
#include <cmath>

#include "te/tensor.h"
#include "topi/broadcast.h"
#include "topi/elemwise.h"
#include "topi/linalg.h"
#include "topi_check.h"

using namespace wb;
using namespace topi_check;

namespace {

const ir::DataType kF32 = ir::DataType::Float(32);
const ir::DataType kF64 = ir::DataType::Float(64);
const ir::DataType kI32 = ir::DataType::Int(32);

double Ref(topi::BinaryKind k, double a, double b) {
  using K = topi::BinaryKind;
  switch (k) {
    case K::kAdd:
      return a + b;
    case K::kSubtract:
      return a - b;
    case K::kMultiply:
      return a * b;
    case K::kDivide:
      return a / b;
    case K::kFloorDivide:
      return std::floor(a / b);
    case K::kPower:
      return std::pow(a, b);
    case K::kMaximum:
      return std::max(a, b);
    case K::kMinimum:
      return std::min(a, b);
    case K::kEqual:
      return a == b;
    case K::kNotEqual:
      return a != b;
    case K::kLess:
      return a < b;
    case K::kLessEqual:
      return a <= b;
    case K::kGreater:
      return a > b;
    case K::kGreaterEqual:
      return a >= b;
    case K::kFloorMod:
      return a - std::floor(a / b) * b;
    case K::kMod:
      return std::fmod(a, b);
    case K::kLogicalAnd:
      return (a != 0) && (b != 0);
    case K::kLogicalOr:
      return (a != 0) || (b != 0);
    case K::kLogicalXor:
      return (a != 0) != (b != 0);
    case K::kAtan2:
      return std::atan2(a, b);
  }
  return 0;
}

// Index of a broadcast operand of `shape` at output index `out`.
Index BIdx(const std::vector<int64_t>& shape, const Index& out) {
  Index idx;
  size_t off = out.size() - shape.size();
  for (size_t d = 0; d < shape.size(); ++d) idx.push_back(shape[d] == 1 ? 0 : out[d + off]);
  return idx;
}

}  // namespace

class TestTopiElemwise : public QObject {
  Q_OBJECT
 private Q_SLOTS:
  void binaryBroadcast() {
    using K = topi::BinaryKind;
    for (K k : {K::kAdd, K::kSubtract, K::kMultiply, K::kDivide, K::kFloorDivide, K::kPower,
                K::kMaximum, K::kMinimum, K::kEqual, K::kNotEqual, K::kLess, K::kLessEqual,
                K::kGreater, K::kGreaterEqual, K::kFloorMod, K::kMod, K::kAtan2}) {
      // Power of negative bases gives NaN: keep its inputs positive.
      double lo = k == K::kPower ? 0.1 : -1;
      te::Tensor a = te::placeholder(Shape({1, 2, 3}), kF32, "a");
      te::Tensor b = te::placeholder(Shape({4, 3, 2, 1}), kF32, "b");
      te::Tensor c = topi::binary(k, a, b);
      QCOMPARE(c.name(), std::string("T_") + topi::BinaryKindName(k));
      bool ok =
          Check({{a, {1, 2, 3}, lo, 1}, {b, {4, 3, 2, 1}, lo, 1}}, c, {4, 3, 2, 3},
                [&](const std::vector<NDArray>& in, const Index& i) {
                  return Ref(k, At(in[0], BIdx({1, 2, 3}, i)), At(in[1], BIdx({4, 3, 2, 1}, i)));
                });
      QVERIFY2(ok, topi::BinaryKindName(k));
    }
  }

  void binaryIntAndScalar() {
    te::Tensor a = te::placeholder(Shape({5, 7}), kI32, "a");
    te::Tensor b = te::placeholder(Shape({7}), kI32, "b");
    QVERIFY(Check({{a, {5, 7}}, {b, {7}}},
                  topi::binary(topi::BinaryKind::kFloorDivide, a,
                               topi::add(b, tir::make_const(kI32, int64_t(20)))),
                  {5, 7}, [](const std::vector<NDArray>& in, const Index& i) {
                    double x = At(in[0], i), y = At(in[1], {i[1]}) + 20;
                    return std::floor(x / y);
                  }));
    // A scalar first operand stays inline.
    te::Tensor x = te::placeholder(Shape({3, 4}), kF32, "x");
    QVERIFY(
        Check({{x, {3, 4}}}, topi::subtract(tir::make_const(kF32, 2.5), x), {3, 4},
              [](const std::vector<NDArray>& in, const Index& i) { return 2.5 - At(in[0], i); }));
  }

  void binarySymbolic() {
    te::Var n = te::var("n");
    te::Tensor a = te::placeholder({n, I64(1)}, kF32, "a");
    te::Tensor b = te::placeholder({n, I64(6)}, kF32, "b");
    te::Tensor c = topi::multiply(a, b);
    QVERIFY(Check({{a, {5, 1}}, {b, {5, 6}}}, c, {5, 6},
                  [](const std::vector<NDArray>& in, const Index& i) {
                    return At(in[0], {i[0], 0}) * At(in[1], i);
                  }));
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument,
                             topi::add(a, te::placeholder(Shape({3, 4}), kF32)));
  }

  void unary() {
    using K = topi::UnaryKind;
    struct Case {
      K kind;
      double lo;
      double (*f)(double);
    };
    const Case cases[] = {
        {K::kNegative, -1, [](double x) { return -x; }},
        {K::kExp, -1, [](double x) { return std::exp(x); }},
        {K::kLog, 0.1, [](double x) { return std::log(x); }},
        {K::kSqrt, 0.1, [](double x) { return std::sqrt(x); }},
        {K::kRsqrt, 0.1, [](double x) { return 1 / std::sqrt(x); }},
        {K::kTanh, -1, [](double x) { return std::tanh(x); }},
        {K::kSigmoid, -1, [](double x) { return 1 / (1 + std::exp(-x)); }},
        {K::kAbs, -1, [](double x) { return std::fabs(x); }},
        {K::kErf, -1, [](double x) { return std::erf(x); }},
    };
    for (const Case& c : cases) {
      te::Tensor x = te::placeholder(Shape({3, 5}), kF32, "x");
      te::Tensor y = topi::unary(c.kind, x);
      QCOMPARE(y.name(), std::string("compute"));
      QVERIFY2(
          Check({{x, {3, 5}, c.lo, 2}}, y, {3, 5},
                [&](const std::vector<NDArray>& in, const Index& i) { return c.f(At(in[0], i)); }),
          topi::UnaryKindName(c.kind));
    }
    te::Tensor xi = te::placeholder(Shape({9}), kI32, "xi");
    QVERIFY(Check(
        {{xi, {9}}}, topi::unary(K::kAbs, xi), {9},
        [](const std::vector<NDArray>& in, const Index& i) { return std::fabs(At(in[0], i)); }));
  }

  void clipCastWhereFull() {
    te::Tensor x = te::placeholder(Shape({4, 6}), kF32, "x");
    QVERIFY(Check({{x, {4, 6}}}, topi::clip(x, -0.25, 0.5), {4, 6},
                  [](const std::vector<NDArray>& in, const Index& i) {
                    return std::clamp(At(in[0], i), -0.25, 0.5);
                  }));
    QVERIFY(Check(
        {{x, {4, 6}, -20, 20}}, topi::cast(x, kI32), {4, 6},
        [](const std::vector<NDArray>& in, const Index& i) { return std::trunc(At(in[0], i)); }));
    QVERIFY(Check({{x, {4, 6}}}, topi::cast(x, kF64), {4, 6},
                  [](const std::vector<NDArray>& in, const Index& i) { return At(in[0], i); }));
    te::Tensor c = te::placeholder(Shape({4, 1}), ir::DataType::Bool(), "c");
    te::Tensor y = te::placeholder(Shape({6}), kF32, "y");
    QVERIFY(Check({{c, {4, 1}}, {x, {4, 6}}, {y, {6}}}, topi::where(c, x, y), {4, 6},
                  [](const std::vector<NDArray>& in, const Index& i) {
                    return At(in[0], {i[0], 0}) != 0 ? At(in[1], i) : At(in[2], {i[1]});
                  }));
    te::Var n = te::var("n");
    te::Tensor f = topi::full({n, I64(3)}, kF32, tir::make_const(kF32, 1.5));
    QCOMPARE(f.name(), std::string("T_full"));
    // full has no inputs: n is bound by the output's shape.
    QVERIFY(Check({}, f, {4, 3}, [](const std::vector<NDArray>&, const Index&) { return 1.5; }));
  }

  void float16() {
    // float16 kernels round after every operation; the comparison uses float16's tolerance.
    const ir::DataType kF16 = ir::DataType::Float(16);
    te::Tensor a = te::placeholder(Shape({4, 8}), kF16, "a");
    te::Tensor b = te::placeholder(Shape({8}), kF16, "b");
    QVERIFY(Check({{a, {4, 8}}, {b, {8}}}, topi::unary(topi::UnaryKind::kExp, topi::add(a, b)),
                  {4, 8}, [](const std::vector<NDArray>& in, const Index& i) {
                    return std::exp(At(in[0], i) + At(in[1], {i[1]}));
                  }));
    te::Tensor w = te::placeholder(Shape({8, 3}), kF16, "w");
    QVERIFY(Check({{a, {4, 8}}, {w, {8, 3}}}, topi::matmul(a, w, kF32), {4, 3},
                  [](const std::vector<NDArray>& in, const Index& i) {
                    double s = 0;
                    for (int64_t k = 0; k < 8; ++k)
                      s += At(in[0], {i[0], k}) * At(in[1], {k, i[1]});
                    return s;
                  }));
  }

  void activations() {
    te::Tensor x = te::placeholder(Shape({2, 8}), kF32, "x");
    QVERIFY(Check({{x, {2, 8}}}, topi::relu(x), {2, 8},
                  [](const std::vector<NDArray>& in, const Index& i) {
                    return std::max(At(in[0], i), 0.0);
                  }));
    QVERIFY(Check({{x, {2, 8}, -3, 3}}, topi::gelu(x), {2, 8},
                  [](const std::vector<NDArray>& in, const Index& i) {
                    double v = At(in[0], i);
                    return 0.5 * v * (1 + std::erf(v / std::sqrt(2.0)));
                  }));
    QVERIFY(Check({{x, {2, 8}, -3, 3}}, topi::silu(x), {2, 8},
                  [](const std::vector<NDArray>& in, const Index& i) {
                    double v = At(in[0], i);
                    return v / (1 + std::exp(-v));
                  }));
  }

  void matmul() {
    // 2-D.
    te::Tensor a = te::placeholder(Shape({5, 7}), kF32, "a");
    te::Tensor b = te::placeholder(Shape({7, 3}), kF32, "b");
    QVERIFY(Check({{a, {5, 7}}, {b, {7, 3}}}, topi::matmul(a, b), {5, 3},
                  [](const std::vector<NDArray>& in, const Index& i) {
                    double s = 0;
                    for (int64_t k = 0; k < 7; ++k)
                      s += At(in[0], {i[0], k}) * At(in[1], {k, i[1]});
                    return s;
                  }));
    // Batched, the second operand broadcast over (2, 1) -> (2, 3).
    te::Tensor p = te::placeholder(Shape({2, 1, 4, 5}), kF32, "p");
    te::Tensor q = te::placeholder(Shape({3, 5, 2}), kF32, "q");
    QVERIFY(Check({{p, {2, 1, 4, 5}}, {q, {3, 5, 2}}}, topi::matmul(p, q), {2, 3, 4, 2},
                  [](const std::vector<NDArray>& in, const Index& i) {
                    double s = 0;
                    for (int64_t k = 0; k < 5; ++k) {
                      s += At(in[0], {i[0], 0, i[2], k}) * At(in[1], {i[1], k, i[3]});
                    }
                    return s;
                  }));
    // Vector times matrix and matrix times vector.
    te::Tensor v = te::placeholder(Shape({7}), kF32, "v");
    QVERIFY(Check({{v, {7}}, {b, {7, 3}}}, topi::matmul(v, b), {3},
                  [](const std::vector<NDArray>& in, const Index& i) {
                    double s = 0;
                    for (int64_t k = 0; k < 7; ++k) s += At(in[0], {k}) * At(in[1], {k, i[0]});
                    return s;
                  }));
    QVERIFY(Check({{a, {5, 7}}, {v, {7}}}, topi::matmul(a, v), {5},
                  [](const std::vector<NDArray>& in, const Index& i) {
                    double s = 0;
                    for (int64_t k = 0; k < 7; ++k) s += At(in[0], {i[0], k}) * At(in[1], {k});
                    return s;
                  }));
    // Symbolic rows, accumulation in float64.
    te::Var n = te::var("n");
    te::Tensor s = te::placeholder({n, I64(7)}, kF32, "s");
    QVERIFY(Check({{s, {6, 7}}, {b, {7, 3}}}, topi::matmul(s, b, kF64), {6, 3},
                  [](const std::vector<NDArray>& in, const Index& i) {
                    double acc = 0;
                    for (int64_t k = 0; k < 7; ++k)
                      acc += At(in[0], {i[0], k}) * At(in[1], {k, i[1]});
                    return acc;
                  }));
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, topi::matmul(a, a));
  }
};

QTEST_APPLESS_MAIN(TestTopiElemwise)
#include "tst_topi_elemwise.moc"
