// topi's neural-network operators, run through create_prim_func and the reference interpreter
// on seeded random inputs, against plain C++ references: softmax and log_softmax on any axis,
// layer/rms/batch norm, conv (2-D NCHW with padding, stride, dilation and groups; NHWC; symbolic
// batch; 3-D NCDHW), max/avg pooling (also 3-D NDHWC) (padding with and without counting it, ceil mode, NHWC) and adaptive
// average pooling with uneven windows.

#include <QTest>
#include <cmath>

#include "te/tensor.h"
#include "topi/nn.h"
#include "topi_check.h"

using namespace wb;
using namespace topi_check;

namespace {

const ir::DataType kF32 = ir::DataType::Float(32);

}  // namespace

class TestTopiNN : public QObject {
  Q_OBJECT
 private Q_SLOTS:
  void softmax() {
    te::Tensor x = te::placeholder(Shape({3, 4, 5}), kF32, "x");
    for (int64_t axis : {1, -1}) {
      int64_t a = axis < 0 ? axis + 3 : axis;
      int64_t n = a == 1 ? 4 : 5;
      auto sm = [&](const std::vector<NDArray>& in, const Index& o, bool log) {
        double m = -INFINITY, s = 0;
        Index i = o;
        for (int64_t k = 0; k < n; ++k) {
          i[a] = k;
          m = std::max(m, At(in[0], i));
        }
        for (int64_t k = 0; k < n; ++k) {
          i[a] = k;
          s += std::exp(At(in[0], i) - m);
        }
        double v = At(in[0], o) - m;
        return log ? v - std::log(s) : std::exp(v) / s;
      };
      QVERIFY(
          Check({{x, {3, 4, 5}, -3, 3}}, topi::softmax(x, axis), {3, 4, 5},
                [&](const std::vector<NDArray>& in, const Index& o) { return sm(in, o, false); }));
      QVERIFY(
          Check({{x, {3, 4, 5}, -3, 3}}, topi::log_softmax(x, axis), {3, 4, 5},
                [&](const std::vector<NDArray>& in, const Index& o) { return sm(in, o, true); }));
    }
  }

  void symbolicShapes() {
    // softmax, layer_norm and max pooling over a symbolic batch n.
    te::Var n = te::var("n");
    te::Tensor x = te::placeholder({n, I64(6)}, kF32, "x");
    QVERIFY(Check({{x, {3, 6}, -2, 2}}, topi::softmax(x, 1), {3, 6},
                  [](const std::vector<NDArray>& in, const Index& o) {
                    double s = 0;
                    for (int64_t k = 0; k < 6; ++k) s += std::exp(At(in[0], {o[0], k}));
                    return std::exp(At(in[0], o)) / s;
                  }));
    te::Tensor g = te::placeholder(Shape({6}), kF32, "g");
    QVERIFY(Check(
        {{x, {4, 6}}, {g, {6}}}, topi::layer_norm(x, g, te::Tensor(), {1}, 1e-5), {4, 6},
        [](const std::vector<NDArray>& in, const Index& o) {
          double s = 0, s2 = 0;
          for (int64_t k = 0; k < 6; ++k) {
            s += At(in[0], {o[0], k});
            s2 += At(in[0], {o[0], k}) * At(in[0], {o[0], k});
          }
          double mean = s / 6, var = s2 / 6 - mean * mean;
          return (At(in[0], o) - mean) / std::sqrt(var + 1e-5) * At(in[1], {o[1]});
        },
        1, 10));
    te::Tensor img = te::placeholder({n, I64(1), I64(4), I64(4)}, kF32, "img");
    topi::PoolParams p;
    p.pool_size = {2, 2};
    p.strides = {2, 2};
    QVERIFY(Check({{img, {3, 1, 4, 4}}}, topi::max_pool(img, p), {3, 1, 2, 2},
                  [](const std::vector<NDArray>& in, const Index& o) {
                    double m = -INFINITY;
                    for (int64_t r = 0; r < 2; ++r) {
                      for (int64_t c = 0; c < 2; ++c)
                        m = std::max(m, At(in[0], {o[0], 0, o[2] * 2 + r, o[3] * 2 + c}));
                    }
                    return m;
                  }));
  }

  void norms() {
    te::Tensor x = te::placeholder(Shape({2, 3, 4}), kF32, "x");
    te::Tensor g = te::placeholder(Shape({3, 4}), kF32, "g");
    te::Tensor b = te::placeholder(Shape({3, 4}), kF32, "b");
    auto stats = [](const NDArray& x, const Index& o, bool rms) {
      double s = 0, s2 = 0;
      for (int64_t i = 0; i < 3; ++i) {
        for (int64_t j = 0; j < 4; ++j) {
          double v = At(x, {o[0], i, j});
          s += v;
          s2 += v * v;
        }
      }
      double mean = s / 12, var = s2 / 12 - mean * mean;
      return rms ? std::pair{0.0, s2 / 12} : std::pair{mean, var};
    };
    QVERIFY(Check(
        {{x, {2, 3, 4}}, {g, {3, 4}}, {b, {3, 4}}}, topi::layer_norm(x, g, b, {1, 2}, 1e-5),
        {2, 3, 4},
        [&](const std::vector<NDArray>& in, const Index& o) {
          auto [mean, var] = stats(in[0], o, false);
          return (At(in[0], o) - mean) / std::sqrt(var + 1e-5) * At(in[1], {o[1], o[2]}) +
                 At(in[2], {o[1], o[2]});
        },
        1, 10));
    QVERIFY(Check(
        {{x, {2, 3, 4}}, {g, {3, 4}}}, topi::rms_norm(x, g, {-2, -1}, 1e-5), {2, 3, 4},
        [&](const std::vector<NDArray>& in, const Index& o) {
          auto [unused, ms] = stats(in[0], o, true);
          return At(in[0], o) / std::sqrt(ms + 1e-5) * At(in[1], {o[1], o[2]});
        },
        1, 10));
    te::Tensor c = te::placeholder(Shape({3}), kF32, "c");
    te::Tensor mean = te::placeholder(Shape({3}), kF32, "mean");
    te::Tensor var = te::placeholder(Shape({3}), kF32, "var");
    std::vector<te::Tensor> bn = topi::batch_norm(x, c, c, mean, var, 1, 1e-3, true, true);
    QCOMPARE(bn.size(), size_t(3));
    QVERIFY(Check(
        {{x, {2, 3, 4}}, {c, {3}}, {mean, {3}}, {var, {3}, 0.5, 2}}, bn[0], {2, 3, 4},
        [](const std::vector<NDArray>& in, const Index& o) {
          double cc = At(in[1], {o[1]});
          return (At(in[0], o) - At(in[2], {o[1]})) / std::sqrt(At(in[3], {o[1]}) + 1e-3) * cc + cc;
        },
        1, 10));
    // Training: the batch statistics of channel o[1] (over axes 0 and 2) normalize, and the
    // running statistics move towards them by the momentum.
    std::vector<te::Tensor> tr = topi::batch_norm(x, c, c, mean, var, 1, 1e-3, true, true, true, 0.25);
    QCOMPARE(tr.size(), size_t(3));
    auto batch = [](const NDArray& data, int64_t ch) {
      double s = 0, s2 = 0;
      for (int64_t n = 0; n < 2; ++n) {
        for (int64_t k = 0; k < 4; ++k) s += At(data, {n, ch, k});
      }
      double m = s / 8;
      for (int64_t n = 0; n < 2; ++n) {
        for (int64_t k = 0; k < 4; ++k) s2 += (At(data, {n, ch, k}) - m) * (At(data, {n, ch, k}) - m);
      }
      return std::pair{m, s2 / 8};
    };
    std::vector<Input> ins = {{x, {2, 3, 4}}, {c, {3}}, {mean, {3}}, {var, {3}, 0.5, 2}};
    QVERIFY(Check(ins, tr[0], {2, 3, 4}, [&](const std::vector<NDArray>& in, const Index& o) {
      auto [m, v] = batch(in[0], o[1]);
      double cc = At(in[1], {o[1]});
      return (At(in[0], o) - m) / std::sqrt(v + 1e-3) * cc + cc;
    }, 1, 10));
    QVERIFY(Check(ins, tr[1], {3}, [&](const std::vector<NDArray>& in, const Index& o) {
      return 0.75 * At(in[2], o) + 0.25 * batch(in[0], o[0]).first;
    }, 1, 10));
    QVERIFY(Check(ins, tr[2], {3}, [&](const std::vector<NDArray>& in, const Index& o) {
      return 0.75 * At(in[3], o) + 0.25 * batch(in[0], o[0]).second;
    }, 1, 10));
  }

  void conv2dNCHW() {
    te::Tensor data = te::placeholder(Shape({2, 4, 7, 6}), kF32, "data");
    te::Tensor weight = te::placeholder(Shape({6, 2, 3, 3}), kF32, "weight");
    topi::ConvParams p;
    p.strides = {2, 1};
    p.padding = {1, 2, 0, 1};
    p.dilation = {1, 2};
    p.groups = 2;
    // OH = (7 + 1 - 3) / 2 + 1 = 3; OW = (6 + 3 - 5) / 1 + 1 = 5.
    te::Tensor out = topi::conv(data, weight, p);
    QCOMPARE(out.name(), std::string("group_conv2d_nchw"));
    QVERIFY(Check(
        {{data, {2, 4, 7, 6}}, {weight, {6, 2, 3, 3}}}, out, {2, 6, 3, 5},
        [](const std::vector<NDArray>& in, const Index& o) {
          double s = 0;
          int64_t g = o[1] / 3;
          for (int64_t rc = 0; rc < 2; ++rc) {
            for (int64_t ry = 0; ry < 3; ++ry) {
              for (int64_t rx = 0; rx < 3; ++rx) {
                int64_t y = o[2] * 2 + ry - 1, x = o[3] + rx * 2 - 2;
                if (y < 0 || y >= 7 || x < 0 || x >= 6) continue;
                s += At(in[0], {o[0], g * 2 + rc, y, x}) * At(in[1], {o[1], rc, ry, rx});
              }
            }
          }
          return s;
        },
        1, 10));
  }

  void conv2dNHWCSymbolic() {
    te::Var n = te::var("n");
    te::Tensor data = te::placeholder({n, I64(5), I64(5), I64(3)}, kF32, "data");
    te::Tensor weight = te::placeholder(Shape({3, 3, 3, 4}), kF32, "weight");
    topi::ConvParams p;
    p.padding = {1, 1, 1, 1};
    p.data_layout = "NHWC";
    p.kernel_layout = "HWIO";
    te::Tensor out = topi::conv(data, weight, p);
    QCOMPARE(out.name(), std::string("conv2d_nhwc"));
    QVERIFY(Check(
        {{data, {2, 5, 5, 3}}, {weight, {3, 3, 3, 4}}}, out, {2, 5, 5, 4},
        [](const std::vector<NDArray>& in, const Index& o) {
          double s = 0;
          for (int64_t ry = 0; ry < 3; ++ry) {
            for (int64_t rx = 0; rx < 3; ++rx) {
              for (int64_t rc = 0; rc < 3; ++rc) {
                int64_t y = o[1] + ry - 1, x = o[2] + rx - 1;
                if (y < 0 || y >= 5 || x < 0 || x >= 5) continue;
                s += At(in[0], {o[0], y, x, rc}) * At(in[1], {ry, rx, rc, o[3]});
              }
            }
          }
          return s;
        },
        1, 10));
    topi::ConvParams bad;
    bad.data_layout = "NHWC";
    bad.kernel_layout = "HWIH";
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, topi::conv(data, weight, bad));
  }

  // conv over three spatial axes (NCDHW, strided, dilated, padded, grouped) and NDHWC max pooling.
  void conv3dAndPool3d() {
    te::Tensor data = te::placeholder(Shape({1, 4, 4, 5, 3}), kF32, "data");
    te::Tensor weight = te::placeholder(Shape({2, 2, 2, 3, 2}), kF32, "weight");
    topi::ConvParams p;
    p.strides = {1, 2, 1};
    p.padding = {0, 1, 1, 1, 0, 0};
    p.dilation = {2, 1, 1};
    p.groups = 2;
    p.data_layout = "NCDHW";
    p.kernel_layout = "OIDHW";
    // D = (4 + 1 - 3) + 1 = 3, H = (5 + 1 - 3) / 2 + 1 = 2, W = (3 + 1 - 2) + 1 = 3.
    te::Tensor out = topi::conv(data, weight, p);
    QCOMPARE(out.name(), std::string("group_conv3d_ncdhw"));
    QVERIFY(Check(
        {{data, {1, 4, 4, 5, 3}}, {weight, {2, 2, 2, 3, 2}}}, out, {1, 2, 3, 2, 3},
        [](const std::vector<NDArray>& in, const Index& o) {
          double s = 0;
          for (int64_t rc = 0; rc < 2; ++rc) {
            for (int64_t rz = 0; rz < 2; ++rz) {
              for (int64_t ry = 0; ry < 3; ++ry) {
                for (int64_t rx = 0; rx < 2; ++rx) {
                  int64_t z = o[2] + rz * 2, y = o[3] * 2 + ry - 1, x = o[4] + rx - 1;
                  if (z >= 4 || y < 0 || y >= 5 || x < 0 || x >= 3) continue;
                  s += At(in[0], {0, o[1] * 2 + rc, z, y, x}) * At(in[1], {o[1], rc, rz, ry, rx});
                }
              }
            }
          }
          return s;
        },
        1, 10));
    te::Tensor x = te::placeholder(Shape({1, 5, 4, 4, 2}), kF32, "x");
    topi::PoolParams q;
    q.pool_size = {2, 3, 2};
    q.strides = {2, 1, 2};
    q.padding = {1, 1, 0, 0, 1, 1};
    q.layout = "NDHWC";
    // D = (5 + 1 - 2) / 2 + 1 = 3, H = (4 + 2 - 3) + 1 = 4, W = (4 + 1 - 2) / 2 + 1 = 2.
    QVERIFY(Check({{x, {1, 5, 4, 4, 2}}}, topi::max_pool(x, q), {1, 3, 4, 2, 2},
                  [](const std::vector<NDArray>& in, const Index& o) {
                    double m = -INFINITY;
                    for (int64_t a = 0; a < 2; ++a) {
                      for (int64_t b = 0; b < 3; ++b) {
                        for (int64_t c = 0; c < 2; ++c) {
                          int64_t z = o[1] * 2 + a - 1, y = o[2] + b - 1, w = o[3] * 2 + c;
                          if (z < 0 || z >= 5 || y < 0 || y >= 4 || w >= 4) continue;
                          m = std::max(m, At(in[0], {0, z, y, w, o[4]}));
                        }
                      }
                    }
                    return m;
                  }));
  }

  void pooling() {
    te::Tensor x = te::placeholder(Shape({1, 2, 8, 8}), kF32, "x");
    for (bool include : {false, true}) {
      for (bool ceil : {false, true}) {
        topi::PoolParams p;
        p.pool_size = {3, 3};
        p.strides = {2, 2};
        p.padding = {1, 1, 1, 1};
        p.count_include_pad = include;
        p.ceil_mode = ceil;
        int64_t out = ceil ? 5 : 4;  // (8 + 2 - 3 [+ 1]) / 2 + 1
        auto window = [&](const NDArray& a, const Index& o, bool max) {
          double m = -INFINITY, s = 0;
          int64_t count = 0;
          for (int64_t r = 0; r < 3; ++r) {
            for (int64_t c = 0; c < 3; ++c) {
              int64_t y = o[2] * 2 + r - 1, xx = o[3] * 2 + c - 1;
              if (y < 0 || y >= 8 || xx < 0 || xx >= 8) continue;
              m = std::max(m, At(a, {o[0], o[1], y, xx}));
              s += At(a, {o[0], o[1], y, xx});
              ++count;
            }
          }
          return max ? m : s / (include ? 9 : count);
        };
        QVERIFY(Check({{x, {1, 2, 8, 8}}}, topi::max_pool(x, p), {1, 2, out, out},
                      [&](const std::vector<NDArray>& in, const Index& o) {
                        return window(in[0], o, true);
                      }));
        if (!ceil) {
          QVERIFY(Check({{x, {1, 2, 8, 8}}}, topi::avg_pool(x, p), {1, 2, out, out},
                        [&](const std::vector<NDArray>& in, const Index& o) {
                          return window(in[0], o, false);
                        }));
        }
      }
    }
    // NHWC without padding.
    te::Tensor y = te::placeholder(Shape({1, 4, 4, 3}), kF32, "y");
    topi::PoolParams q;
    q.pool_size = {2, 2};
    q.strides = {2, 2};
    q.layout = "NHWC";
    QVERIFY(Check({{y, {1, 4, 4, 3}}}, topi::avg_pool(y, q), {1, 2, 2, 3},
                  [](const std::vector<NDArray>& in, const Index& o) {
                    double s = 0;
                    for (int64_t r = 0; r < 2; ++r) {
                      for (int64_t c = 0; c < 2; ++c)
                        s += At(in[0], {0, o[1] * 2 + r, o[2] * 2 + c, o[3]});
                    }
                    return s / 4;
                  }));
  }

  void adaptivePool() {
    te::Tensor x = te::placeholder(Shape({1, 2, 7, 5}), kF32, "x");
    QVERIFY(Check({{x, {1, 2, 7, 5}}}, topi::adaptive_avg_pool2d(x, {3, 2}), {1, 2, 3, 2},
                  [](const std::vector<NDArray>& in, const Index& o) {
                    int64_t h0 = o[2] * 7 / 3, h1 = ((o[2] + 1) * 7 + 2) / 3;
                    int64_t w0 = o[3] * 5 / 2, w1 = ((o[3] + 1) * 5 + 1) / 2;
                    double s = 0;
                    for (int64_t h = h0; h < h1; ++h) {
                      for (int64_t w = w0; w < w1; ++w) s += At(in[0], {0, o[1], h, w});
                    }
                    return s / double((h1 - h0) * (w1 - w0));
                  }));
    QVERIFY(Check({{x, {1, 2, 7, 5}}}, topi::adaptive_avg_pool2d(x, {1}), {1, 2, 1, 1},
                  [](const std::vector<NDArray>& in, const Index& o) {
                    double s = 0;
                    for (int64_t h = 0; h < 7; ++h) {
                      for (int64_t w = 0; w < 5; ++w) s += At(in[0], {0, o[1], h, w});
                    }
                    return s / 35;
                  }));
    // A blocked layout: H and W found among its axes (NCHW4c), the block axis carried along.
    te::Tensor xb = te::placeholder(Shape({1, 2, 7, 5, 4}), kF32, "xb");
    QVERIFY(Check({{xb, {1, 2, 7, 5, 4}}}, topi::adaptive_avg_pool2d(xb, {3, 2}, "NCHW4c"),
                  {1, 2, 3, 2, 4}, [](const std::vector<NDArray>& in, const Index& o) {
                    int64_t h0 = o[2] * 7 / 3, h1 = ((o[2] + 1) * 7 + 2) / 3;
                    int64_t w0 = o[3] * 5 / 2, w1 = ((o[3] + 1) * 5 + 1) / 2;
                    double s = 0;
                    for (int64_t h = h0; h < h1; ++h) {
                      for (int64_t w = w0; w < w1; ++w) s += At(in[0], {0, o[1], h, w, o[4]});
                    }
                    return s / double((h1 - h0) * (w1 - w0));
                  }));
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, topi::adaptive_avg_pool2d(xb, {1}, "NCHW"));
  }
};

QTEST_APPLESS_MAIN(TestTopiNN)
#include "tst_topi_nn.moc"
