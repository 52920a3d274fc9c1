// ToNonDataflow: dataflow blocks become plain blocks, dataflow vars plain vars, and the module
// computes the same.
#include <QTest>

#include "kernels.h"
#include "relax_pass_test.h"

using namespace relax_pass_test;

class TestToNonDataflow : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  void golden_data() {
    QTest::addColumn<QString>("before");
    QTest::addColumn<QString>("expected");
    QTest::newRow("one dataflow block") << QString::fromStdString(WithKernels(R"(
    @R.function
    def main(x: R.Tensor((4,), dtype="float32")) -> R.Tensor((4,), dtype="float32"):
        cls = Module
        with R.dataflow():
            lv = R.call_tir(cls.add, (x, x), out_ty=R.Tensor((4,), dtype="float32"))
            gv = R.call_tir(cls.relu, (lv,), out_ty=R.Tensor((4,), dtype="float32"))
            R.output(gv)
        return gv
)")) << QString::fromStdString(WithKernels(R"(
    @R.function
    def main(x: R.Tensor((4,), dtype="float32")) -> R.Tensor((4,), dtype="float32"):
        cls = Module
        lv = R.call_tir(cls.add, (x, x), out_ty=R.Tensor((4,), dtype="float32"))
        gv = R.call_tir(cls.relu, (lv,), out_ty=R.Tensor((4,), dtype="float32"))
        return gv
)"));
    QTest::newRow("blocks around a plain block merge") << QString::fromStdString(WithKernels(R"(
    @R.function
    def main(x: R.Tensor((4,), dtype="float32")) -> R.Tensor((4,), dtype="float32"):
        cls = Module
        with R.dataflow():
            lv = R.call_tir(cls.add, (x, x), out_ty=R.Tensor((4,), dtype="float32"))
            gv = R.call_tir(cls.relu, (lv,), out_ty=R.Tensor((4,), dtype="float32"))
            R.output(gv)
        y = R.call_tir(cls.mul, (gv, x), out_ty=R.Tensor((4,), dtype="float32"))
        with R.dataflow():
            lv1 = R.call_tir(cls.add, (y, gv), out_ty=R.Tensor((4,), dtype="float32"))
            z = R.call_tir(cls.relu, (lv1,), out_ty=R.Tensor((4,), dtype="float32"))
            R.output(z)
        return z
)")) << QString::fromStdString(WithKernels(R"(
    @R.function
    def main(x: R.Tensor((4,), dtype="float32")) -> R.Tensor((4,), dtype="float32"):
        cls = Module
        lv = R.call_tir(cls.add, (x, x), out_ty=R.Tensor((4,), dtype="float32"))
        gv = R.call_tir(cls.relu, (lv,), out_ty=R.Tensor((4,), dtype="float32"))
        y = R.call_tir(cls.mul, (gv, x), out_ty=R.Tensor((4,), dtype="float32"))
        lv1 = R.call_tir(cls.add, (y, gv), out_ty=R.Tensor((4,), dtype="float32"))
        z = R.call_tir(cls.relu, (lv1,), out_ty=R.Tensor((4,), dtype="float32"))
        return z
)"));
    QTest::newRow("tuples and match_cast") << QString::fromStdString(WithKernels(R"(
    @R.function
    def main(x: R.Tensor((4,), dtype="float32"), y: R.Tensor((4,), dtype="float32")) -> R.Tuple(R.Tensor((4,), dtype="float32"), R.Tensor((4,), dtype="float32")):
        cls = Module
        with R.dataflow():
            y1: R.Tensor((4,), dtype="float32") = R.match_cast(y, R.Tensor((4,), dtype="float32"))
            lv = R.call_tir(cls.mul, (x, y1), out_ty=R.Tensor((4,), dtype="float32"))
            t = (lv, y1)
            a: R.Tensor((4,), dtype="float32") = t[0]
            gv = (a, x)
            R.output(gv)
        return gv
)")) << QString::fromStdString(WithKernels(R"(
    @R.function
    def main(x: R.Tensor((4,), dtype="float32"), y: R.Tensor((4,), dtype="float32")) -> R.Tuple(R.Tensor((4,), dtype="float32"), R.Tensor((4,), dtype="float32")):
        cls = Module
        y1: R.Tensor((4,), dtype="float32") = R.match_cast(y, R.Tensor((4,), dtype="float32"))
        lv = R.call_tir(cls.mul, (x, y1), out_ty=R.Tensor((4,), dtype="float32"))
        t = (lv, y1)
        a: R.Tensor((4,), dtype="float32") = t[0]
        gv = (a, x)
        return gv
)"));
  }
  void golden() {
    QFETCH(QString, before);
    QFETCH(QString, expected);
    std::string err = GoldenCase("ToNonDataflow", before.toStdString(), expected.toStdString(),
                                 /*semantic=*/true);
    QVERIFY2(err.empty(), err.c_str());
  }
};

QTEST_APPLESS_MAIN(TestToNonDataflow)
#include "tst_to_non_dataflow.moc"
