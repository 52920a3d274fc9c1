// RemovePurityChecking: pure functions (nested ones too) get relax.force_pure, impure ones and
// their attributes stay as they are; the module computes the same.
#include <QTest>

#include "kernels.h"
#include "relax_pass_test.h"

using namespace relax_pass_test;

class TestRemovePurityChecking : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  void golden_data() {
    QTest::addColumn<QString>("before");
    QTest::addColumn<QString>("expected");
    QTest::newRow("pure function") << QString::fromStdString(WithKernels(R"(
    @R.function
    def main(x: R.Tensor((4,), dtype="float32")) -> R.Tensor((4,), dtype="float32"):
        cls = Module
        y = R.call_tir(cls.relu, (x,), out_ty=R.Tensor((4,), dtype="float32"))
        return y
)")) << QString::fromStdString(WithKernels(R"(
    @R.function
    def main(x: R.Tensor((4,), dtype="float32")) -> R.Tensor((4,), dtype="float32"):
        R.func_attr({"relax.force_pure": True})
        cls = Module
        y = R.call_tir(cls.relu, (x,), out_ty=R.Tensor((4,), dtype="float32"))
        return y
)"));
    QTest::newRow("impure function untouched, attrs kept") << QString::fromStdString(WithKernels(R"(
    @R.function(pure=False, private=True)
    def effect(x: R.Tensor((4,), dtype="float32")) -> R.Tensor((4,), dtype="float32"):
        return x

    @R.function(pure=False)
    def main(x: R.Tensor((4,), dtype="float32")) -> R.Tensor((4,), dtype="float32"):
        R.func_attr({"num_input": 1})
        cls = Module
        y: R.Tensor((4,), dtype="float32") = cls.effect(x)
        return y

    @R.function
    def pure_one(x: R.Tensor((4,), dtype="float32")) -> R.Tensor((4,), dtype="float32"):
        R.func_attr({"num_input": 1})
        return x
)")) << QString::fromStdString(WithKernels(R"(
    @R.function(pure=False, private=True)
    def effect(x: R.Tensor((4,), dtype="float32")) -> R.Tensor((4,), dtype="float32"):
        return x

    @R.function(pure=False)
    def main(x: R.Tensor((4,), dtype="float32")) -> R.Tensor((4,), dtype="float32"):
        R.func_attr({"num_input": 1})
        cls = Module
        y: R.Tensor((4,), dtype="float32") = cls.effect(x)
        return y

    @R.function
    def pure_one(x: R.Tensor((4,), dtype="float32")) -> R.Tensor((4,), dtype="float32"):
        R.func_attr({"num_input": 1, "relax.force_pure": True})
        return x
)"));
    QTest::newRow("nested function") << QString::fromStdString(WithKernels(R"(
    @R.function
    def main(x: R.Tensor((4,), dtype="float32")) -> R.Tensor((4,), dtype="float32"):
        cls = Module
        @R.function
        def inner(y: R.Tensor((4,), dtype="float32")) -> R.Tensor((4,), dtype="float32"):
            z = R.call_tir(cls.add, (y, y), out_ty=R.Tensor((4,), dtype="float32"))
            return z

        w: R.Tensor((4,), dtype="float32") = inner(x)
        return w
)")) << QString::fromStdString(WithKernels(R"(
    @R.function
    def main(x: R.Tensor((4,), dtype="float32")) -> R.Tensor((4,), dtype="float32"):
        R.func_attr({"relax.force_pure": True})
        cls = Module
        @R.function
        def inner(y: R.Tensor((4,), dtype="float32")) -> R.Tensor((4,), dtype="float32"):
            R.func_attr({"relax.force_pure": True})
            z = R.call_tir(cls.add, (y, y), out_ty=R.Tensor((4,), dtype="float32"))
            return z

        w: R.Tensor((4,), dtype="float32") = inner(x)
        return w
)"));
  }
  void golden() {
    QFETCH(QString, before);
    QFETCH(QString, expected);
    std::string err = GoldenCase("RemovePurityChecking", before.toStdString(), expected.toStdString());
    QVERIFY2(err.empty(), err.c_str());
  }
};

QTEST_APPLESS_MAIN(TestRemovePurityChecking)
#include "tst_remove_purity_checking.moc"
