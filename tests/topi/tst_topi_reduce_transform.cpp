// topi's reductions and shape manipulations, run through create_prim_func and the reference
// interpreter on seeded random inputs, against plain C++ references: sum/max/min/prod/mean
// with axes and keepdims (and over every axis), argmax, reshape, transpose, expand_dims,
// squeeze, flatten, concatenate, split, strided_slice (negative strides included), take and
// broadcast_to, with static and symbolic shapes.

#include <QTest>
#include <cmath>

#include "te/tensor.h"
#include "topi/broadcast.h"
#include "topi/reduction.h"
#include "topi/transform.h"
#include "topi_check.h"

using namespace wb;
using namespace topi_check;

namespace {

const ir::DataType kF32 = ir::DataType::Float(32);
const ir::DataType kI64 = ir::DataType::Int(64);

// The reduction of x (shape (3, 4, 5)) over `axes` at output index `o`.
double Reduce(const NDArray& x, const std::vector<int64_t>& axes, bool keepdims, const Index& o,
              topi::ReduceKind kind) {
  const std::vector<int64_t> shape = {3, 4, 5};
  std::vector<bool> red(3, false);
  for (int64_t a : axes) red[a] = true;
  double acc = kind == topi::ReduceKind::kSum    ? 0
               : kind == topi::ReduceKind::kProd ? 1
               : kind == topi::ReduceKind::kMax  ? -INFINITY
                                                 : INFINITY;
  ForEach(shape, [&](const Index& i) {
    size_t j = 0;
    for (size_t d = 0; d < 3; ++d) {
      if (red[d]) {
        if (keepdims) ++j;
        continue;
      }
      if (i[d] != o[j++]) return;
    }
    double v = At(x, i);
    switch (kind) {
      case topi::ReduceKind::kSum:
        acc += v;
        break;
      case topi::ReduceKind::kProd:
        acc *= v;
        break;
      case topi::ReduceKind::kMax:
        acc = std::max(acc, v);
        break;
      case topi::ReduceKind::kMin:
        acc = std::min(acc, v);
        break;
    }
  });
  return acc;
}

std::vector<int64_t> ReducedShape(const std::vector<int64_t>& axes, bool keepdims) {
  std::vector<int64_t> shape = {3, 4, 5}, out;
  for (size_t d = 0; d < 3; ++d) {
    bool r = std::find(axes.begin(), axes.end(), int64_t(d)) != axes.end();
    if (!r)
      out.push_back(shape[d]);
    else if (keepdims)
      out.push_back(1);
  }
  return out;
}

}  // namespace

class TestTopiReduceTransform : public QObject {
  Q_OBJECT
 private Q_SLOTS:
  void reductions() {
    using K = topi::ReduceKind;
    te::Tensor x = te::placeholder(Shape({3, 4, 5}), kF32, "x");
    struct Case {
      std::optional<std::vector<int64_t>> axes;
      bool keepdims;
    };
    const Case cases[] = {{std::vector<int64_t>{1}, false},
                          {std::vector<int64_t>{0, -1}, true},
                          {std::nullopt, false},
                          {std::vector<int64_t>{2}, true}};
    for (K k : {K::kSum, K::kMax, K::kMin, K::kProd}) {
      for (const Case& c : cases) {
        std::vector<int64_t> axes = topi::ReduceAxes(c.axes, 3, "test");
        te::Tensor r = topi::reduce(k, x, c.axes, c.keepdims);
        QCOMPARE(r.name(), std::string("x_red"));
        QVERIFY(Check(
            {{x, {3, 4, 5}, 0.5, 1.5}}, r, ReducedShape(axes, c.keepdims),
            [&](const std::vector<NDArray>& in, const Index& o) {
              return Reduce(in[0], axes, c.keepdims, o, k);
            },
            1, 10));
      }
    }
    // mean divides by the reduced count.
    QVERIFY(Check({{x, {3, 4, 5}}}, topi::mean(x, std::vector<int64_t>{0, 2}, false), {4},
                  [&](const std::vector<NDArray>& in, const Index& o) {
                    return Reduce(in[0], {0, 2}, false, o, K::kSum) / 15;
                  }));
  }

  void reductionSymbolic() {
    te::Var n = te::var("n");
    te::Tensor x = te::placeholder({n, I64(6)}, kF32, "x");
    QVERIFY(Check({{x, {5, 6}}}, topi::sum(x, std::vector<int64_t>{0}, true), {1, 6},
                  [](const std::vector<NDArray>& in, const Index& o) {
                    double s = 0;
                    for (int64_t i = 0; i < 5; ++i) s += At(in[0], {i, o[1]});
                    return s;
                  }));
  }

  void argmax() {
    te::Tensor x = te::placeholder(Shape({4, 7}), kF32, "x");
    te::Tensor a = topi::argmax(x, 1, false);
    QCOMPARE(a.name(), std::string("x_red"));
    QCOMPARE(a.dtype(), kI64);
    QVERIFY(Check({{x, {4, 7}}}, a, {4}, [](const std::vector<NDArray>& in, const Index& o) {
      int64_t best = 0;
      for (int64_t k = 1; k < 7; ++k) {
        if (At(in[0], {o[0], k}) > At(in[0], {o[0], best})) best = k;
      }
      return double(best);
    }));
    // Over the whole tensor, keeping dims: the flat position.
    QVERIFY(Check({{x, {4, 7}}}, topi::argmax(x, std::nullopt, true), {1, 1},
                  [](const std::vector<NDArray>& in, const Index&) {
                    int64_t best = 0;
                    for (int64_t k = 1; k < 28; ++k) {
                      if (in[0].GetDouble(k) > in[0].GetDouble(best)) best = k;
                    }
                    return double(best);
                  }));
  }

  void reshapeTransposeFlatten() {
    te::Tensor x = te::placeholder(Shape({2, 3, 4}), kF32, "x");
    QVERIFY(Check({{x, {2, 3, 4}}}, topi::reshape(x, Shape({4, 6})), {4, 6},
                  [](const std::vector<NDArray>& in, const Index& o) {
                    return in[0].GetDouble(o[0] * 6 + o[1]);
                  }));
    QVERIFY(Check(
        {{x, {2, 3, 4}}}, topi::flatten(x), {24},
        [](const std::vector<NDArray>& in, const Index& o) { return in[0].GetDouble(o[0]); }));
    QVERIFY(Check({{x, {2, 3, 4}}}, topi::transpose(x, std::vector<int64_t>{2, 0, 1}), {4, 2, 3},
                  [](const std::vector<NDArray>& in, const Index& o) {
                    return At(in[0], {o[1], o[2], o[0]});
                  }));
    QVERIFY(Check({{x, {2, 3, 4}}}, topi::transpose(x, std::nullopt), {4, 3, 2},
                  [](const std::vector<NDArray>& in, const Index& o) {
                    return At(in[0], {o[2], o[1], o[0]});
                  }));
    // Symbolic: (n, 4) -> (n * 2, 2).
    te::Var n = te::var("n");
    te::Tensor s = te::placeholder({n, I64(4)}, kF32, "s");
    QVERIFY(Check({{s, {3, 4}}}, topi::reshape(s, {tir::mul(n, I64(2)), I64(2)}), {6, 2},
                  [](const std::vector<NDArray>& in, const Index& o) {
                    return in[0].GetDouble(o[0] * 2 + o[1]);
                  }));
  }

  void expandSqueeze() {
    te::Tensor x = te::placeholder(Shape({3, 1, 4}), kF32, "x");
    QVERIFY(Check({{x, {3, 1, 4}}}, topi::expand_dims(x, {0, -1}), {1, 3, 1, 4, 1},
                  [](const std::vector<NDArray>& in, const Index& o) {
                    return At(in[0], {o[1], 0, o[3]});
                  }));
    QVERIFY(Check({{x, {3, 1, 4}}}, topi::squeeze(x, std::nullopt), {3, 4},
                  [](const std::vector<NDArray>& in, const Index& o) {
                    return At(in[0], {o[0], 0, o[1]});
                  }));
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, topi::squeeze(x, std::vector<int64_t>{0}));
  }

  void concatSplit() {
    te::Tensor a = te::placeholder(Shape({2, 3}), kF32, "a");
    te::Tensor b = te::placeholder(Shape({2, 1}), kF32, "b");
    te::Tensor c = te::placeholder(Shape({2, 2}), kF32, "c");
    QVERIFY(Check({{a, {2, 3}}, {b, {2, 1}}, {c, {2, 2}}}, topi::concatenate({a, b, c}, 1), {2, 6},
                  [](const std::vector<NDArray>& in, const Index& o) {
                    if (o[1] < 3) return At(in[0], o);
                    if (o[1] < 4) return At(in[1], {o[0], 0});
                    return At(in[2], {o[0], o[1] - 4});
                  }));
    te::Tensor x = te::placeholder(Shape({6, 4}), kF32, "x");
    std::vector<te::Tensor> parts = topi::split_sections(x, 3, 0);
    QCOMPARE(parts.size(), size_t(3));
    for (int64_t k = 0; k < 3; ++k) {
      QVERIFY(Check({{x, {6, 4}}}, parts[k], {2, 4},
                    [k](const std::vector<NDArray>& in, const Index& o) {
                      return At(in[0], {o[0] + 2 * k, o[1]});
                    }));
    }
    // 10 columns in 3 sections: 4, 4 and 2 (TVM's ceil-sized sections, the last what is left).
    te::Tensor w = te::placeholder(Shape({2, 10}), kF32, "w");
    std::vector<te::Tensor> uneven = topi::split_sections(w, 3, 1);
    QCOMPARE(uneven.size(), size_t(3));
    for (int64_t k = 0; k < 3; ++k) {
      QVERIFY(Check({{w, {2, 10}}}, uneven[k], {2, k < 2 ? 4 : 2},
                    [k](const std::vector<NDArray>& in, const Index& o) {
                      return At(in[0], {o[0], o[1] + 4 * k});
                    }));
    }
    std::vector<te::Tensor> cuts = topi::split_indices(x, {1, 3}, 1);
    QCOMPARE(cuts.size(), size_t(3));
    QVERIFY(
        Check({{x, {6, 4}}}, cuts[1], {6, 2}, [](const std::vector<NDArray>& in, const Index& o) {
          return At(in[0], {o[0], o[1] + 1});
        }));
    QVERIFY(
        Check({{x, {6, 4}}}, cuts[2], {6, 1}, [](const std::vector<NDArray>& in, const Index& o) {
          return At(in[0], {o[0], 3});
        }));
  }

  void stridedSlice() {
    te::Tensor x = te::placeholder(Shape({8, 5}), kF32, "x");
    QVERIFY(Check({{x, {8, 5}}}, topi::strided_slice(x, {0, 1}, {1, -1}, {7, -100}, {2, -2}),
                  {3, 3}, [](const std::vector<NDArray>& in, const Index& o) {
                    return At(in[0], {1 + 2 * o[0], 4 - 2 * o[1]});
                  }));
    int64_t start = 0;
    QCOMPARE(topi::SliceLength(10, -3, 100, 1, &start), int64_t(3));
    QCOMPARE(start, int64_t(7));
    QCOMPARE(topi::SliceLength(10, 5, 2, 1, &start), int64_t(0));
  }

  void takeAndBroadcast() {
    te::Tensor x = te::placeholder(Shape({5, 3}), kF32, "x");
    te::Tensor idx = te::placeholder(Shape({2, 2}), kI64, "idx");
    Input xi{x, {5, 3}};
    Input ii{idx, {2, 2}};
    // Indices in [0, 4]: FillRandom's integer default range is [-8, 8], so bound it here.
    te::Tensor t = topi::take(x, idx, 0);
    std::vector<te::PrimFuncArg> args = {x, idx, t};
    tir::PrimFunc f = te::create_prim_func(args);
    NDArray xa = NDArray::Empty({5, 3}, runtime::Float(32));
    runtime::FillRandom(xa, 5);
    NDArray ia = NDArray::Empty({2, 2}, runtime::Int(64));
    runtime::RandomFillOptions opt;
    opt.seed = 9;
    opt.low = 0;
    opt.high = 4;
    runtime::FillRandom(ia, opt);
    NDArray out = NDArray::Empty({2, 2, 3}, runtime::Float(32));
    tir::InterpretResult r = tir::Interpret(f, {xa, ia, out});
    QVERIFY2(r.ok(), RenderDiagnostics(r.diagnostics).c_str());
    ForEach({2, 2, 3}, [&](const Index& o) {
      QCOMPARE(At(out, o), At(xa, {ia.GetInt(o[0] * 2 + o[1]), o[2]}));
    });
    (void)xi;
    (void)ii;
    te::Tensor b = te::placeholder(Shape({3, 1}), kF32, "b");
    QVERIFY(Check({{b, {3, 1}}}, topi::broadcast_to(b, Shape({2, 3, 4})), {2, 3, 4},
                  [](const std::vector<NDArray>& in, const Index& o) {
                    return At(in[0], {o[1], 0});
                  }));
  }
};

QTEST_APPLESS_MAIN(TestTopiReduceTransform)
#include "tst_topi_reduce_transform.moc"
