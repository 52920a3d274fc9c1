// AttachGlobalSymbol: every PrimFunc and Relax function gets global_symbol = its name (private
// ones become public, a differing symbol is corrected), modules that have them all come back
// unchanged, a system_lib_prefix renames the PrimFuncs; the module computes the same.
#include <QTest>

#include "kernels.h"
#include "relax_pass_test.h"

using namespace relax_pass_test;

class TestAttachGlobalSymbol : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  void golden_data() {
    QTest::addColumn<QString>("before");
    QTest::addColumn<QString>("expected");
    QTest::newRow("private functions") << QString::fromStdString(WithKernels(R"(
    @R.function(private=True)
    def helper(x: R.Tensor((4,), dtype="float32")) -> R.Tensor((4,), dtype="float32"):
        cls = Module
        y = R.call_tir(cls.relu, (x,), out_ty=R.Tensor((4,), dtype="float32"))
        return y

    @R.function
    def main(x: R.Tensor((4,), dtype="float32")) -> R.Tensor((4,), dtype="float32"):
        cls = Module
        y: R.Tensor((4,), dtype="float32") = cls.helper(x)
        return y
)")) << QString::fromStdString(R"(
@I.ir_module
class Module:
    @T.prim_func
    def add(x: T.Buffer((4,), "float32"), y: T.Buffer((4,), "float32"), out: T.Buffer((4,), "float32")):
        for i in range(4):
            out[i] = x[i] + y[i]

    @T.prim_func
    def mul(x: T.Buffer((4,), "float32"), y: T.Buffer((4,), "float32"), out: T.Buffer((4,), "float32")):
        for i in range(4):
            out[i] = x[i] * y[i]

    @T.prim_func
    def relu(x: T.Buffer((4,), "float32"), out: T.Buffer((4,), "float32")):
        for i in range(4):
            out[i] = T.max(x[i], T.float32(0.0))

    @R.function
    def helper(x: R.Tensor((4,), dtype="float32")) -> R.Tensor((4,), dtype="float32"):
        cls = Module
        y = R.call_tir(cls.relu, (x,), out_ty=R.Tensor((4,), dtype="float32"))
        return y

    @R.function
    def main(x: R.Tensor((4,), dtype="float32")) -> R.Tensor((4,), dtype="float32"):
        cls = Module
        y: R.Tensor((4,), dtype="float32") = cls.helper(x)
        return y
)");
    QTest::newRow("a differing symbol is corrected") << QString::fromStdString(R"(
@I.ir_module
class Module:
    @T.prim_func
    def scale(x: T.Buffer((4,), "float32"), out: T.Buffer((4,), "float32")):
        T.func_attr({"global_symbol": "scale_v2"})
        for i in range(4):
            out[i] = x[i] * T.float32(2.0)

    @R.function
    def main(x: R.Tensor((4,), dtype="float32")) -> R.Tensor((4,), dtype="float32"):
        R.func_attr({"global_symbol": "entry"})
        cls = Module
        y = R.call_tir(cls.scale, (x,), out_ty=R.Tensor((4,), dtype="float32"))
        return y
)") << QString::fromStdString(R"(
@I.ir_module
class Module:
    @T.prim_func
    def scale(x: T.Buffer((4,), "float32"), out: T.Buffer((4,), "float32")):
        for i in range(4):
            out[i] = x[i] * T.float32(2.0)

    @R.function
    def main(x: R.Tensor((4,), dtype="float32")) -> R.Tensor((4,), dtype="float32"):
        cls = Module
        y = R.call_tir(cls.scale, (x,), out_ty=R.Tensor((4,), dtype="float32"))
        return y
)");
    QTest::newRow("lowered module") << QString::fromStdString(R"(
@I.ir_module
class Module:
    @T.prim_func(private=True)
    def scale(x: T.Buffer((4,), "float32"), out: T.Buffer((4,), "float32")):
        for i in range(4):
            out[i] = x[i] * T.float32(2.0)

    @R.function
    def main(x: R.Tensor((4,), dtype="float32")) -> R.Tensor((4,), dtype="float32"):
        R.func_attr({"relax.force_pure": True})
        cls = Module
        alloc: R.Tensor((4,), dtype="float32") = R.builtin.alloc_tensor(R.shape([4]), R.dtype("float32"), R.prim_value(0), R.str("global"))
        _: R.Any = cls.scale(x, alloc)
        y: R.Tensor((4,), dtype="float32") = alloc
        return y
)") << QString::fromStdString(R"(
@I.ir_module
class Module:
    @T.prim_func
    def scale(x: T.Buffer((4,), "float32"), out: T.Buffer((4,), "float32")):
        for i in range(4):
            out[i] = x[i] * T.float32(2.0)

    @R.function
    def main(x: R.Tensor((4,), dtype="float32")) -> R.Tensor((4,), dtype="float32"):
        R.func_attr({"relax.force_pure": True})
        cls = Module
        alloc: R.Tensor((4,), dtype="float32") = R.builtin.alloc_tensor(R.shape([4]), R.dtype("float32"), R.prim_value(0), R.str("global"))
        _: R.Any = cls.scale(x, alloc)
        y: R.Tensor((4,), dtype="float32") = alloc
        return y
)");
  }
  void golden() {
    QFETCH(QString, before);
    QFETCH(QString, expected);
    std::string err = GoldenCase("AttachGlobalSymbol", before.toStdString(), expected.toStdString());
    QVERIFY2(err.empty(), err.c_str());
  }

  void publicModulesAreUnchanged() {
    std::string error;
    auto m = ParseModule(R"(
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((4,), dtype="float32")) -> R.Tensor((4,), dtype="float32"):
        return x
)", &error);
    QVERIFY2(m.defined(), error.c_str());
    auto out = RunPasses("AttachGlobalSymbol", m, &error);
    QVERIFY2(out.defined(), error.c_str());
    QVERIFY(out.same_as(m));
  }

  void systemLibPrefixRenamesPrimFuncs() {
    std::string err = GoldenCase("AttachGlobalSymbol", R"(
@I.ir_module
class Module:
    I.module_attrs({"system_lib_prefix": "lib_"})
    @T.prim_func(private=True)
    def scale(x: T.Buffer((4,), "float32"), out: T.Buffer((4,), "float32")):
        for i in range(4):
            out[i] = x[i] * T.float32(2.0)

    @R.function
    def main(x: R.Tensor((4,), dtype="float32")) -> R.Tensor((4,), dtype="float32"):
        cls = Module
        y = R.call_tir(cls.scale, (x,), out_ty=R.Tensor((4,), dtype="float32"))
        return y
)", R"(
@I.ir_module
class Module:
    I.module_attrs({"system_lib_prefix": "lib_"})
    @T.prim_func
    def lib_scale(x: T.Buffer((4,), "float32"), out: T.Buffer((4,), "float32")):
        for i in range(4):
            out[i] = x[i] * T.float32(2.0)

    @R.function
    def main(x: R.Tensor((4,), dtype="float32")) -> R.Tensor((4,), dtype="float32"):
        cls = Module
        y = R.call_tir(cls.lib_scale, (x,), out_ty=R.Tensor((4,), dtype="float32"))
        return y
)");
    QVERIFY2(err.empty(), err.c_str());
  }
};

QTEST_APPLESS_MAIN(TestAttachGlobalSymbol)
#include "tst_attach_global_symbol.moc"
