// DeadCodeElimination: unused pure bindings and unreachable private functions go, impure calls
// and entry functions stay, and the module computes the same.
#include <QTest>

#include "kernels.h"
#include "relax_pass_test.h"

using namespace relax_pass_test;

class TestDeadCodeElimination : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  void golden_data() {
    QTest::addColumn<QString>("pipeline");
    QTest::addColumn<QString>("before");
    QTest::addColumn<QString>("expected");
    // The kernels `mul` and `relu` are private and unused after the pass: they go too.
    QTest::newRow("unused bindings") << "DeadCodeElimination" << QString::fromStdString(WithKernels(R"(
    @R.function
    def main(x: R.Tensor((4,), dtype="float32")) -> R.Tensor((4,), dtype="float32"):
        cls = Module
        with R.dataflow():
            lv = R.call_tir(cls.add, (x, x), out_ty=R.Tensor((4,), dtype="float32"))
            unused = R.call_tir(cls.mul, (lv, x), out_ty=R.Tensor((4,), dtype="float32"))
            unused2 = R.call_tir(cls.relu, (unused,), out_ty=R.Tensor((4,), dtype="float32"))
            gv = R.call_tir(cls.add, (lv, x), out_ty=R.Tensor((4,), dtype="float32"))
            R.output(gv)
        t = (gv, x)
        return gv
)")) << QString::fromStdString(R"(
@I.ir_module
class Module:
    @T.prim_func(private=True)
    def add(x: T.Buffer((4,), "float32"), y: T.Buffer((4,), "float32"), out: T.Buffer((4,), "float32")):
        for i in range(4):
            out[i] = x[i] + y[i]

    @R.function
    def main(x: R.Tensor((4,), dtype="float32")) -> R.Tensor((4,), dtype="float32"):
        cls = Module
        with R.dataflow():
            lv = R.call_tir(cls.add, (x, x), out_ty=R.Tensor((4,), dtype="float32"))
            gv = R.call_tir(cls.add, (lv, x), out_ty=R.Tensor((4,), dtype="float32"))
            R.output(gv)
        return gv
)");
    QTest::newRow("impure calls stay, unreachable functions go")
        << "DeadCodeElimination" << QString::fromStdString(WithKernels(R"(
    @R.function(pure=False, private=True)
    def effect(x: R.Tensor((4,), dtype="float32")) -> R.Tensor((4,), dtype="float32"):
        return x

    @R.function(private=True)
    def helper(x: R.Tensor((4,), dtype="float32")) -> R.Tensor((4,), dtype="float32"):
        cls = Module
        y = R.call_tir(cls.mul, (x, x), out_ty=R.Tensor((4,), dtype="float32"))
        return y

    @R.function(private=True)
    def orphan(x: R.Tensor((4,), dtype="float32")) -> R.Tensor((4,), dtype="float32"):
        return x

    @R.function(pure=False)
    def main(x: R.Tensor((4,), dtype="float32")) -> R.Tensor((4,), dtype="float32"):
        cls = Module
        a: R.Tensor((4,), dtype="float32") = cls.effect(x)
        b: R.Tensor((4,), dtype="float32") = cls.helper(x)
        c: R.Tensor((4,), dtype="float32") = cls.helper(b)
        return b
)")) << QString::fromStdString(R"(
@I.ir_module
class Module:
    @T.prim_func(private=True)
    def mul(x: T.Buffer((4,), "float32"), y: T.Buffer((4,), "float32"), out: T.Buffer((4,), "float32")):
        for i in range(4):
            out[i] = x[i] * y[i]

    @R.function(pure=False, private=True)
    def effect(x: R.Tensor((4,), dtype="float32")) -> R.Tensor((4,), dtype="float32"):
        return x

    @R.function(private=True)
    def helper(x: R.Tensor((4,), dtype="float32")) -> R.Tensor((4,), dtype="float32"):
        cls = Module
        y = R.call_tir(cls.mul, (x, x), out_ty=R.Tensor((4,), dtype="float32"))
        return y

    @R.function(pure=False)
    def main(x: R.Tensor((4,), dtype="float32")) -> R.Tensor((4,), dtype="float32"):
        cls = Module
        a: R.Tensor((4,), dtype="float32") = cls.effect(x)
        b: R.Tensor((4,), dtype="float32") = cls.helper(x)
        return b
)");
    QTest::newRow("entry functions and If branches")
        << "DeadCodeElimination(entry_functions=[\"keep\"])" << QString::fromStdString(WithKernels(R"(
    @R.function(private=True)
    def keep(x: R.Tensor((4,), dtype="float32")) -> R.Tensor((4,), dtype="float32"):
        cls = Module
        y = R.call_tir(cls.relu, (x,), out_ty=R.Tensor((4,), dtype="float32"))
        return y

    @R.function
    def main(c: R.Tensor((), dtype="bool"), x: R.Tensor((4,), dtype="float32")) -> R.Tensor((4,), dtype="float32"):
        cls = Module
        if c:
            dead = R.call_tir(cls.mul, (x, x), out_ty=R.Tensor((4,), dtype="float32"))
            y = R.call_tir(cls.add, (x, x), out_ty=R.Tensor((4,), dtype="float32"))
        else:
            y = x
        return y
)")) << QString::fromStdString(R"(
@I.ir_module
class Module:
    @T.prim_func(private=True)
    def add(x: T.Buffer((4,), "float32"), y: T.Buffer((4,), "float32"), out: T.Buffer((4,), "float32")):
        for i in range(4):
            out[i] = x[i] + y[i]

    @T.prim_func(private=True)
    def relu(x: T.Buffer((4,), "float32"), out: T.Buffer((4,), "float32")):
        for i in range(4):
            out[i] = T.max(x[i], T.float32(0.0))

    @R.function(private=True)
    def keep(x: R.Tensor((4,), dtype="float32")) -> R.Tensor((4,), dtype="float32"):
        cls = Module
        y = R.call_tir(cls.relu, (x,), out_ty=R.Tensor((4,), dtype="float32"))
        return y

    @R.function
    def main(c: R.Tensor((), dtype="bool"), x: R.Tensor((4,), dtype="float32")) -> R.Tensor((4,), dtype="float32"):
        cls = Module
        if c:
            y = R.call_tir(cls.add, (x, x), out_ty=R.Tensor((4,), dtype="float32"))
        else:
            y = x
        return y
)");
  }
  void golden() {
    QFETCH(QString, pipeline);
    QFETCH(QString, before);
    QFETCH(QString, expected);
    std::string err = GoldenCase(pipeline.toStdString(), before.toStdString(), expected.toStdString());
    QVERIFY2(err.empty(), err.c_str());
  }

  void unknownEntryIsAnError() {
    std::string error;
    auto m = ParseModule(WithKernels(R"(
    @R.function
    def main(x: R.Tensor((4,), dtype="float32")) -> R.Tensor((4,), dtype="float32"):
        return x
)"), &error);
    QVERIFY2(m.defined(), error.c_str());
    RunPasses("DeadCodeElimination(entry_functions=[\"nope\"])", m, &error);
    QVERIFY2(error.find("entry function 'nope' is not in the module") != std::string::npos,
             error.c_str());
  }
};

QTEST_APPLESS_MAIN(TestDeadCodeElimination)
#include "tst_dead_code_elimination.moc"
