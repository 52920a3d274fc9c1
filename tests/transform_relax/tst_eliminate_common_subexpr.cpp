// EliminateCommonSubexpr: a repeated pure value reads the earlier var, outputs become copies of
// the dataflow var they repeat, allocations and impure calls are never merged, call_only limits
// it to calls; the module computes the same.
#include <QTest>

#include "kernels.h"
#include "relax_pass_test.h"

using namespace relax_pass_test;

class TestEliminateCommonSubexpr : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  void golden_data() {
    QTest::addColumn<QString>("pipeline");
    QTest::addColumn<QString>("before");
    QTest::addColumn<QString>("expected");
    QTest::newRow("repeated calls") << "EliminateCommonSubexpr" << QString::fromStdString(WithKernels(R"(
    @R.function
    def main(x: R.Tensor((4,), dtype="float32")) -> R.Tensor((4,), dtype="float32"):
        cls = Module
        a = R.call_tir(cls.add, (x, x), out_ty=R.Tensor((4,), dtype="float32"))
        b = R.call_tir(cls.add, (x, x), out_ty=R.Tensor((4,), dtype="float32"))
        c = R.call_tir(cls.mul, (a, x), out_ty=R.Tensor((4,), dtype="float32"))
        d = R.call_tir(cls.mul, (b, x), out_ty=R.Tensor((4,), dtype="float32"))
        e = R.call_tir(cls.add, (c, d), out_ty=R.Tensor((4,), dtype="float32"))
        return e
)")) << QString::fromStdString(WithKernels(R"(
    @R.function
    def main(x: R.Tensor((4,), dtype="float32")) -> R.Tensor((4,), dtype="float32"):
        cls = Module
        a = R.call_tir(cls.add, (x, x), out_ty=R.Tensor((4,), dtype="float32"))
        c = R.call_tir(cls.mul, (a, x), out_ty=R.Tensor((4,), dtype="float32"))
        e = R.call_tir(cls.add, (c, c), out_ty=R.Tensor((4,), dtype="float32"))
        return e
)"));
    QTest::newRow("output repeats a dataflow var") << "EliminateCommonSubexpr" << QString::fromStdString(WithKernels(R"(
    @R.function
    def main(x: R.Tensor((4,), dtype="float32")) -> R.Tensor((4,), dtype="float32"):
        cls = Module
        with R.dataflow():
            lv = R.call_tir(cls.relu, (x,), out_ty=R.Tensor((4,), dtype="float32"))
            lv1 = R.call_tir(cls.mul, (lv, x), out_ty=R.Tensor((4,), dtype="float32"))
            gv = R.call_tir(cls.relu, (x,), out_ty=R.Tensor((4,), dtype="float32"))
            R.output(gv)
        y = R.call_tir(cls.add, (gv, gv), out_ty=R.Tensor((4,), dtype="float32"))
        return y
)")) << QString::fromStdString(WithKernels(R"(
    @R.function
    def main(x: R.Tensor((4,), dtype="float32")) -> R.Tensor((4,), dtype="float32"):
        cls = Module
        with R.dataflow():
            lv = R.call_tir(cls.relu, (x,), out_ty=R.Tensor((4,), dtype="float32"))
            lv1 = R.call_tir(cls.mul, (lv, x), out_ty=R.Tensor((4,), dtype="float32"))
            gv = lv
            R.output(gv)
        y = R.call_tir(cls.add, (gv, gv), out_ty=R.Tensor((4,), dtype="float32"))
        return y
)"));
    QTest::newRow("call_only keeps tuples, impure calls stay")
        << "EliminateCommonSubexpr(call_only=True)" << QString::fromStdString(WithKernels(R"(
    @R.function(pure=False, private=True)
    def effect(x: R.Tensor((4,), dtype="float32")) -> R.Tensor((4,), dtype="float32"):
        return x

    @R.function(pure=False)
    def main(x: R.Tensor((4,), dtype="float32")) -> R.Tuple(R.Tuple(R.Tensor((4,), dtype="float32"), R.Tensor((4,), dtype="float32")), R.Tuple(R.Tensor((4,), dtype="float32"), R.Tensor((4,), dtype="float32"))):
        cls = Module
        a: R.Tensor((4,), dtype="float32") = cls.effect(x)
        b: R.Tensor((4,), dtype="float32") = cls.effect(x)
        t1 = (a, b)
        t2 = (a, b)
        c = R.call_tir(cls.relu, (a,), out_ty=R.Tensor((4,), dtype="float32"))
        d = R.call_tir(cls.relu, (a,), out_ty=R.Tensor((4,), dtype="float32"))
        r = (t1, (c, d))
        return r
)")) << QString::fromStdString(WithKernels(R"(
    @R.function(pure=False, private=True)
    def effect(x: R.Tensor((4,), dtype="float32")) -> R.Tensor((4,), dtype="float32"):
        return x

    @R.function(pure=False)
    def main(x: R.Tensor((4,), dtype="float32")) -> R.Tuple(R.Tuple(R.Tensor((4,), dtype="float32"), R.Tensor((4,), dtype="float32")), R.Tuple(R.Tensor((4,), dtype="float32"), R.Tensor((4,), dtype="float32"))):
        cls = Module
        a: R.Tensor((4,), dtype="float32") = cls.effect(x)
        b: R.Tensor((4,), dtype="float32") = cls.effect(x)
        t1 = (a, b)
        t2 = (a, b)
        c = R.call_tir(cls.relu, (a,), out_ty=R.Tensor((4,), dtype="float32"))
        r = (t1, (c, c))
        return r
)"));
  }
  void golden() {
    QFETCH(QString, pipeline);
    QFETCH(QString, before);
    QFETCH(QString, expected);
    std::string err = GoldenCase(pipeline.toStdString(), before.toStdString(), expected.toStdString());
    QVERIFY2(err.empty(), err.c_str());
  }
};

QTEST_APPLESS_MAIN(TestEliminateCommonSubexpr)
#include "tst_eliminate_common_subexpr.moc"
