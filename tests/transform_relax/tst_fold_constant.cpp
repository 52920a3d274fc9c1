// FoldConstant: calls on constants are evaluated through the Relax interpreter (chains fold in one
// run), calls with a non-constant input stay; the module computes the same.
#include <QTest>

#include "relax_pass_test.h"

using namespace relax_pass_test;

namespace {

// Scalar kernels: their constants print inline (R.const), so the cases read as text.
std::string Scalar(const std::string& functions) {
  return R"(
@I.ir_module
class Module:
    @T.prim_func(private=True)
    def add(x: T.Buffer((), "float32"), y: T.Buffer((), "float32"), out: T.Buffer((), "float32")):
        out[()] = x[()] + y[()]

    @T.prim_func(private=True)
    def mul(x: T.Buffer((), "float32"), y: T.Buffer((), "float32"), out: T.Buffer((), "float32")):
        out[()] = x[()] * y[()]
)" + functions;
}

}  // namespace

class TestFoldConstant : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  void golden_data() {
    QTest::addColumn<QString>("before");
    QTest::addColumn<QString>("expected");
    QTest::newRow("one call") << QString::fromStdString(Scalar(R"(
    @R.function
    def main(x: R.Tensor((), dtype="float32")) -> R.Tensor((), dtype="float32"):
        cls = Module
        c = R.call_tir(cls.add, (R.const(1.5, "float32"), R.const(2.25, "float32")), out_ty=R.Tensor((), dtype="float32"))
        y = R.call_tir(cls.mul, (x, c), out_ty=R.Tensor((), dtype="float32"))
        return y
)")) << QString::fromStdString(Scalar(R"(
    @R.function
    def main(x: R.Tensor((), dtype="float32")) -> R.Tensor((), dtype="float32"):
        cls = Module
        c: R.Tensor((), dtype="float32") = R.const(3.75, "float32")
        y = R.call_tir(cls.mul, (x, R.const(3.75, "float32")), out_ty=R.Tensor((), dtype="float32"))
        return y
)"));
    QTest::newRow("a chain folds in one run") << QString::fromStdString(Scalar(R"(
    @R.function
    def main(x: R.Tensor((), dtype="float32")) -> R.Tensor((), dtype="float32"):
        cls = Module
        with R.dataflow():
            a = R.call_tir(cls.add, (R.const(1.0, "float32"), R.const(2.0, "float32")), out_ty=R.Tensor((), dtype="float32"))
            b = R.call_tir(cls.mul, (a, a), out_ty=R.Tensor((), dtype="float32"))
            gv = R.call_tir(cls.add, (b, x), out_ty=R.Tensor((), dtype="float32"))
            R.output(gv)
        return gv
)")) << QString::fromStdString(Scalar(R"(
    @R.function
    def main(x: R.Tensor((), dtype="float32")) -> R.Tensor((), dtype="float32"):
        cls = Module
        with R.dataflow():
            a: R.Tensor((), dtype="float32") = R.const(3.0, "float32")
            b: R.Tensor((), dtype="float32") = R.const(9.0, "float32")
            gv = R.call_tir(cls.add, (R.const(9.0, "float32"), x), out_ty=R.Tensor((), dtype="float32"))
            R.output(gv)
        return gv
)"));
    QTest::newRow("non-constant inputs stay") << QString::fromStdString(Scalar(R"(
    @R.function
    def main(x: R.Tensor((), dtype="float32"), y: R.Tensor((), dtype="float32")) -> R.Tensor((), dtype="float32"):
        cls = Module
        a = R.call_tir(cls.add, (x, R.const(2.0, "float32")), out_ty=R.Tensor((), dtype="float32"))
        b = R.call_tir(cls.mul, (a, y), out_ty=R.Tensor((), dtype="float32"))
        return b
)")) << QString::fromStdString(Scalar(R"(
    @R.function
    def main(x: R.Tensor((), dtype="float32"), y: R.Tensor((), dtype="float32")) -> R.Tensor((), dtype="float32"):
        cls = Module
        a = R.call_tir(cls.add, (x, R.const(2.0, "float32")), out_ty=R.Tensor((), dtype="float32"))
        b = R.call_tir(cls.mul, (a, y), out_ty=R.Tensor((), dtype="float32"))
        return b
)"));
  }
  void golden() {
    QFETCH(QString, before);
    QFETCH(QString, expected);
    std::string err = GoldenCase("FoldConstant", before.toStdString(), expected.toStdString());
    QVERIFY2(err.empty(), err.c_str());
  }

  void opCallsFoldThroughLegalization() {
    std::string err = GoldenCase("FoldConstant", R"(
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((), dtype="float32")) -> R.Tensor((), dtype="float32"):
        a = R.add(R.const(1.5, "float32"), R.const(2.0, "float32"))
        b = R.multiply(a, R.const(2.0, "float32"))
        y = R.add(x, b)
        return y
)", R"(
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((), dtype="float32")) -> R.Tensor((), dtype="float32"):
        a: R.Tensor((), dtype="float32") = R.const(3.5, "float32")
        b: R.Tensor((), dtype="float32") = R.const(7.0, "float32")
        y = R.add(x, R.const(7.0, "float32"))
        return y
)");
    QVERIFY2(err.empty(), err.c_str());
  }

  void foldedThenCleanedUp() {
    // FoldConstant + DeadCodeElimination leave only the live computation and its kernel.
    std::string error;
    auto m = ParseModule(Scalar(R"(
    @R.function
    def main(x: R.Tensor((), dtype="float32")) -> R.Tensor((), dtype="float32"):
        cls = Module
        c = R.call_tir(cls.add, (R.const(1.5, "float32"), R.const(2.25, "float32")), out_ty=R.Tensor((), dtype="float32"))
        y = R.call_tir(cls.mul, (x, c), out_ty=R.Tensor((), dtype="float32"))
        return y
)"), &error);
    QVERIFY2(m.defined(), error.c_str());
    auto out = RunPasses("FoldConstant, DeadCodeElimination", m, &error);
    QVERIFY2(out.defined(), error.c_str());
    QVERIFY(!out->Lookup("add").defined());
    QVERIFY(out->Lookup("mul").defined());
    QVERIFY2(SameResults(m, out).empty(), SameResults(m, out).c_str());
  }
};

QTEST_APPLESS_MAIN(TestFoldConstant)
#include "tst_fold_constant.moc"
