// CanonicalizeBindings: copies of vars, items of known tuples and no-op match_casts disappear,
// output vars take over the dataflow var they copy, and the module computes the same.
#include <QTest>

#include "kernels.h"
#include "relax_pass_test.h"

using namespace relax_pass_test;

class TestCanonicalizeBindings : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  void golden_data() {
    QTest::addColumn<QString>("before");
    QTest::addColumn<QString>("expected");
    QTest::newRow("var copies") << QString::fromStdString(WithKernels(R"(
    @R.function
    def main(x: R.Tensor((4,), dtype="float32")) -> R.Tensor((4,), dtype="float32"):
        cls = Module
        y = x
        z = y
        w = R.call_tir(cls.add, (z, y), out_ty=R.Tensor((4,), dtype="float32"))
        v = w
        return v
)")) << QString::fromStdString(WithKernels(R"(
    @R.function
    def main(x: R.Tensor((4,), dtype="float32")) -> R.Tensor((4,), dtype="float32"):
        cls = Module
        w = R.call_tir(cls.add, (x, x), out_ty=R.Tensor((4,), dtype="float32"))
        return w
)"));
    QTest::newRow("output takes over a dataflow var") << QString::fromStdString(WithKernels(R"(
    @R.function
    def main(x: R.Tensor((4,), dtype="float32")) -> R.Tensor((4,), dtype="float32"):
        cls = Module
        with R.dataflow():
            lv = R.call_tir(cls.add, (x, x), out_ty=R.Tensor((4,), dtype="float32"))
            lv1 = R.call_tir(cls.relu, (lv,), out_ty=R.Tensor((4,), dtype="float32"))
            lv2 = R.call_tir(cls.mul, (lv1, lv), out_ty=R.Tensor((4,), dtype="float32"))
            gv = lv1
            gv1 = lv2
            R.output(gv, gv1)
        t = (gv, gv1)
        return gv1
)")) << QString::fromStdString(WithKernels(R"(
    @R.function
    def main(x: R.Tensor((4,), dtype="float32")) -> R.Tensor((4,), dtype="float32"):
        cls = Module
        with R.dataflow():
            lv = R.call_tir(cls.add, (x, x), out_ty=R.Tensor((4,), dtype="float32"))
            gv = R.call_tir(cls.relu, (lv,), out_ty=R.Tensor((4,), dtype="float32"))
            gv1 = R.call_tir(cls.mul, (gv, lv), out_ty=R.Tensor((4,), dtype="float32"))
            R.output(gv, gv1)
        t = (gv, gv1)
        return gv1
)"));
    QTest::newRow("tuple items and trivial match_cast") << QString::fromStdString(WithKernels(R"(
    @R.function
    def main(x: R.Tensor((4,), dtype="float32"), y: R.Tensor((4,), dtype="float32")) -> R.Tensor((4,), dtype="float32"):
        cls = Module
        t = (x, y)
        a: R.Tensor((4,), dtype="float32") = t[1]
        b: R.Tensor((4,), dtype="float32") = R.match_cast(a, R.Tensor((4,), dtype="float32"))
        c = R.call_tir(cls.mul, (b, t[0]), out_ty=R.Tensor((4,), dtype="float32"))
        return c
)")) << QString::fromStdString(WithKernels(R"(
    @R.function
    def main(x: R.Tensor((4,), dtype="float32"), y: R.Tensor((4,), dtype="float32")) -> R.Tensor((4,), dtype="float32"):
        cls = Module
        t = (x, y)
        c = R.call_tir(cls.mul, (y, t[0]), out_ty=R.Tensor((4,), dtype="float32"))
        return c
)"));
  }
  void golden() {
    QFETCH(QString, before);
    QFETCH(QString, expected);
    std::string err = GoldenCase("CanonicalizeBindings", before.toStdString(), expected.toStdString());
    QVERIFY2(err.empty(), err.c_str());
  }

  void matchCastThatNarrowsStays() {
    std::string error;
    auto m = ParseModule(R"(
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor(dtype="float32", ndim=1)) -> R.Tensor(dtype="float32", ndim=1):
        y: R.Tensor((4,), dtype="float32") = R.match_cast(x, R.Tensor((4,), dtype="float32"))
        return y
)", &error);
    QVERIFY2(m.defined(), error.c_str());
    auto out = RunPasses("CanonicalizeBindings", m, &error);
    QVERIFY2(out.defined(), error.c_str());
    QVERIFY(out.same_as(m));  // nothing to do: the same module object
  }
};

QTEST_APPLESS_MAIN(TestCanonicalizeBindings)
#include "tst_canonicalize_bindings.moc"
