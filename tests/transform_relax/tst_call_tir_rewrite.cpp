// CallTIRRewrite: call_tir outputs are allocated with R.builtin.alloc_tensor and the kernel is
// called on them directly (one or several outputs, in-place outputs not allocated, symbolic
// shapes); the module computes the same. Run after ToNonDataflow and RemovePurityChecking, as in
// TVM's pipeline, so that the result is well-formed.
#include <QTest>

#include "kernels.h"
#include "relax_pass_test.h"

using namespace relax_pass_test;

namespace {
constexpr const char* kPipeline = "RemovePurityChecking, ToNonDataflow, CallTIRRewrite";
}

class TestCallTIRRewrite : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  void golden_data() {
    QTest::addColumn<QString>("before");
    QTest::addColumn<QString>("expected");
    QTest::newRow("single outputs") << QString::fromStdString(WithKernels(R"(
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
        R.func_attr({"relax.force_pure": True})
        cls = Module
        alloc: R.Tensor((4,), dtype="float32") = R.builtin.alloc_tensor(R.shape([4]), R.dtype("float32"), R.prim_value(0), R.str("global"))
        _: R.Any = cls.add(x, x, alloc)
        lv: R.Tensor((4,), dtype="float32") = alloc
        alloc1: R.Tensor((4,), dtype="float32") = R.builtin.alloc_tensor(R.shape([4]), R.dtype("float32"), R.prim_value(0), R.str("global"))
        _1: R.Any = cls.relu(lv, alloc1)
        gv: R.Tensor((4,), dtype="float32") = alloc1
        return gv
)"));
    QTest::newRow("two outputs and in place") << QString::fromStdString(R"(
@I.ir_module
class Module:
    @T.prim_func(private=True)
    def split_half(x: T.Buffer((8,), "float32"), lo: T.Buffer((4,), "float32"), hi: T.Buffer((4,), "float32")):
        for i in range(4):
            lo[i] = x[i]
            hi[i] = x[i + 4]

    @T.prim_func(private=True)
    def add_inplace(a: T.Buffer((4,), "float32"), b: T.Buffer((4,), "float32")):
        for i in range(4):
            a[i] = a[i] + b[i]

    @R.function
    def main(x: R.Tensor((8,), dtype="float32")) -> R.Tensor((4,), dtype="float32"):
        cls = Module
        lv = R.call_tir(cls.split_half, (x,), out_ty=[R.Tensor((4,), dtype="float32"), R.Tensor((4,), dtype="float32")])
        a: R.Tensor((4,), dtype="float32") = lv[0]
        b: R.Tensor((4,), dtype="float32") = lv[1]
        c = R.call_tir_inplace(cls.add_inplace, (a, b), out_ty=R.Tensor((4,), dtype="float32"), inplace_indices=[0])
        return c
)") << QString::fromStdString(R"(
@I.ir_module
class Module:
    @T.prim_func(private=True)
    def split_half(x: T.Buffer((8,), "float32"), lo: T.Buffer((4,), "float32"), hi: T.Buffer((4,), "float32")):
        for i in range(4):
            lo[i] = x[i]
            hi[i] = x[i + 4]

    @T.prim_func(private=True)
    def add_inplace(a: T.Buffer((4,), "float32"), b: T.Buffer((4,), "float32")):
        for i in range(4):
            a[i] = a[i] + b[i]

    @R.function
    def main(x: R.Tensor((8,), dtype="float32")) -> R.Tensor((4,), dtype="float32"):
        R.func_attr({"relax.force_pure": True})
        cls = Module
        alloc: R.Tensor((4,), dtype="float32") = R.builtin.alloc_tensor(R.shape([4]), R.dtype("float32"), R.prim_value(0), R.str("global"))
        alloc1: R.Tensor((4,), dtype="float32") = R.builtin.alloc_tensor(R.shape([4]), R.dtype("float32"), R.prim_value(0), R.str("global"))
        _: R.Any = cls.split_half(x, alloc, alloc1)
        lv: R.Tuple(R.Tensor((4,), dtype="float32"), R.Tensor((4,), dtype="float32")) = (alloc, alloc1)
        a: R.Tensor((4,), dtype="float32") = lv[0]
        b: R.Tensor((4,), dtype="float32") = lv[1]
        _1: R.Any = cls.add_inplace(a, b)
        c: R.Tensor((4,), dtype="float32") = a
        return c
)");
    QTest::newRow("symbolic shapes") << QString::fromStdString(R"(
@I.ir_module
class Module:
    @T.prim_func(private=True)
    def double(x: T.Buffer(("n", 4), "float32"), y: T.Buffer((n, 4), "float32")):
        for i, j in T.grid(n, 4):
            y[i, j] = x[i, j] * T.float32(2.0)

    n = TypeVar("n")
    @R.function
    def main(x: R.Tensor((n, 4), dtype="float32")) -> R.Tensor((n, 4), dtype="float32"):
        cls = Module
        y = R.call_tir(cls.double, (x,), out_ty=R.Tensor((n, 4), dtype="float32"))
        return y
)") << QString::fromStdString(R"(
@I.ir_module
class Module:
    @T.prim_func(private=True)
    def double(x: T.Buffer(("n", 4), "float32"), y: T.Buffer((n, 4), "float32")):
        for i, j in T.grid(n, 4):
            y[i, j] = x[i, j] * T.float32(2.0)

    n = TypeVar("n")
    @R.function
    def main(x: R.Tensor((n, 4), dtype="float32")) -> R.Tensor((n, 4), dtype="float32"):
        R.func_attr({"relax.force_pure": True})
        cls = Module
        alloc: R.Tensor((n, 4), dtype="float32") = R.builtin.alloc_tensor(R.shape([n, 4]), R.dtype("float32"), R.prim_value(0), R.str("global"))
        _: R.Any = cls.double(x, alloc)
        y: R.Tensor((n, 4), dtype="float32") = alloc
        return y
)");
  }
  void golden() {
    QFETCH(QString, before);
    QFETCH(QString, expected);
    std::string err = GoldenCase(kPipeline, before.toStdString(), expected.toStdString());
    QVERIFY2(err.empty(), err.c_str());
  }

  void unknownOutputShapeIsAnError() {
    std::string error;
    auto m = ParseModule(WithKernels(R"(
    @R.function
    def main(x: R.Tensor((4,), dtype="float32")) -> R.Tensor(dtype="float32", ndim=1):
        cls = Module
        y = R.call_tir(cls.relu, (x,), out_ty=R.Tensor(dtype="float32", ndim=1))
        return y
)"), &error);
    QVERIFY2(m.defined(), error.c_str());
    RunPasses("CallTIRRewrite", m, &error);
    QVERIFY2(error.find("has no known shape and dtype to allocate") != std::string::npos,
             error.c_str());
  }
};

QTEST_APPLESS_MAIN(TestCallTIRRewrite)
#include "tst_call_tir_rewrite.moc"
