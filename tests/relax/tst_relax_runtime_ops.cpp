// The ops that run outside the kernels: R.call_pure_packed (a packed function by name, declared
// pure, typed by ty_args), R.print and R.assert_op (impure, void, a Python-style format string),
// R.nonzero and R.tensor_to_shape (results sized by the data).
// Each parses and prints back to the same text in TVM's form, is type-checked with a clear
// message, and runs in the Relax interpreter and in the VM (what they print is captured).
#include <QTemporaryDir>
#include <QTemporaryFile>
#include <QTest>

#include <cstdio>
#include <fcntl.h>
#include <unistd.h>

#include "codegen/vm_codegen.h"
#include "ir/structural_equal.h"
#include "relax/interpreter.h"
#include "runtime/text_format.h"
#include "runtime/vm/vm.h"
#include "script/tvmscript.h"
#include "transform/relax/semantic_check.h"
#include "workbench/run_check.h"

using namespace wb;

namespace {

// Canonical text, as the printer writes it (void calls as statements, prim values bare).
const char* kPrinting = R"(# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function(pure=False)
    def main(x: R.Tensor((2,), dtype="float32")) -> R.Tensor((2,), dtype="float32"):
        R.print(R.const(1.5, "float32"), R.shape([2, 3]), format=R.str("v = {}, s = {}"))
        R.print(7, format=R.str(""))
        R.assert_op(True, format=R.str("never"))
        y: R.Tensor((2,), dtype="float32") = R.add(x, x)
        return y
)";

const char* kAssertFails = R"(
@I.ir_module
class Module:
    @R.function(pure=False)
    def main(x: R.Tensor(("n",), dtype="float32")) -> R.Tensor(("n",), dtype="float32"):
        n = T.int64()
        _ = R.assert_op(n % 16 == 0, R.prim_value(n), format="n = {} is no multiple of 16")
        y = R.add(x, x)
        return y
)";

const char* kPurePacked = R"(# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2, 3), dtype="float32")) -> R.Shape([2, 3]):
        s: R.Shape([2, 3]) = R.call_pure_packed("vm.builtin.shape_of", x, ty_args=(R.Shape([2, 3]),))
        return s
)";

// Ops with a runtime function whose result's size only the data gives.
const char* kRuntimeShapes = R"(# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((5,), dtype="float32"), s: R.Tensor((2,), dtype="int64")) -> R.Tuple(R.Tensor(dtype="int64", ndim=2), R.Shape(ndim=2)):
        with R.dataflow():
            nz: R.Tensor(dtype="int64", ndim=2) = R.nonzero(x)
            sh: R.Shape(ndim=2) = R.tensor_to_shape(s)
            gv: R.Tuple(R.Tensor(dtype="int64", ndim=2), R.Shape(ndim=2)) = (nz, sh)
            R.output(gv)
        return gv
)";

ir::IRModule Parse(const std::string& text, std::string* error) {
  script::ParseResult parsed = script::Parse(text, "case.py");
  if (!parsed.ok()) {
    for (const auto& d : parsed.diagnostics) *error += d.message + "\n";
    return {};
  }
  return parsed.module;
}

// What `fn` writes to stdout.
template <typename Fn>
std::string CaptureStdout(Fn fn) {
  QTemporaryFile file;
  if (!file.open()) qFatal("no temporary file");
  std::fflush(stdout);
  int saved = dup(1);
  dup2(file.handle(), 1);
  fn();
  std::fflush(stdout);
  dup2(saved, 1);
  close(saved);
  file.seek(0);
  return file.readAll().toStdString();
}

workbench::RunCheckResult RunVM(const ir::IRModule& m, const std::string& inputs = "") {
  workbench::RunCheckRequest request;
  request.module = m;
  request.reference = workbench::ReferenceKind::kNone;
  request.isolate = false;
  request.inputs = inputs;
  return workbench::RunAndCheck(request);
}

}  // namespace

class TestRelaxRuntimeOps : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  void roundTrip_data() {
    QTest::addColumn<QString>("text");
    QTest::newRow("print and assert_op") << kPrinting;
    QTest::newRow("call_pure_packed") << kPurePacked;
    QTest::newRow("nonzero and tensor_to_shape") << kRuntimeShapes;
  }
  void roundTrip() {
    QFETCH(QString, text);
    std::string error;
    ir::IRModule m = Parse(text.toStdString(), &error);
    QVERIFY2(m.defined(), error.c_str());
    std::string printed = script::PrintModule(m);
    QVERIFY2(printed + "\n" == text.toStdString(), printed.c_str());
  }

  void sugarParsesToTheCanonicalForm() {
    // format as a plain string, format_args as a keyword, a TensorIR condition, ty_args bare.
    std::string error;
    ir::IRModule sugared = Parse(R"(
@I.ir_module
class Module:
    @R.function(pure=False)
    def main(x: R.Tensor(("n",), dtype="float32")) -> R.Shape(ndim=1):
        n = T.int64()
        _ = R.print(x, format="x = {}")
        _1 = R.assert_op(n > 0, format_args=[x], format="{}")
        s = R.call_pure_packed("vm.builtin.shape_of", x, ty_args=R.Shape(ndim=1))
        return s
)", &error);
    QVERIFY2(sugared.defined(), error.c_str());
    ir::IRModule plain = Parse(R"(
@I.ir_module
class Module:
    @R.function(pure=False)
    def main(x: R.Tensor(("n",), dtype="float32")) -> R.Shape(ndim=1):
        n = T.int64()
        _: R.Tuple = R.print(x, format=R.str("x = {}"))
        _1: R.Tuple = R.assert_op(R.prim_value(n > 0), x, format=R.str("{}"))
        s: R.Shape(ndim=1) = R.call_pure_packed("vm.builtin.shape_of", x, ty_args=(R.Shape(ndim=1),))
        return s
)", &error);
    QVERIFY2(plain.defined(), error.c_str());
    auto mismatch = ir::FindFirstMismatch(sugared, plain);
    QVERIFY2(!mismatch, mismatch ? mismatch->lhs_path.c_str() : "");
  }

  void typeErrors_data() {
    QTest::addColumn<QString>("statement");
    QTest::addColumn<QString>("message");
    QTest::newRow("assert on a float tensor")
        << "_ = R.assert_op(x)"
        << "assert_op: the condition must be a boolean scalar, got R.Tensor((2,), \"float32\")";
    QTest::newRow("call_pure_packed of a tensor")
        << "_ = R.call_pure_packed(x, ty_args=R.Tuple)"
        << "call_pure_packed: the callee must be a packed function (a name or an R.ExternFunc), got "
           "R.Tensor((2,), \"float32\")";
    QTest::newRow("format not a string") << "_ = R.print(x, format=1)" << "format must be a string";
  }
  void typeErrors() {
    QFETCH(QString, statement);
    QFETCH(QString, message);
    std::string text = R"(
@I.ir_module
class Module:
    @R.function(pure=False)
    def main(x: R.Tensor((2,), dtype="float32")) -> R.Tensor((2,), dtype="float32"):
        )" + statement.toStdString() + R"(
        return x
)";
    std::string error;
    QVERIFY(!Parse(text, &error).defined());
    QVERIFY2(error.find(message.toStdString()) != std::string::npos, error.c_str());
  }

  void interpreterPrintsAndAsserts() {
    std::string error;
    ir::IRModule m = Parse(kPrinting, &error);
    QVERIFY2(m.defined(), error.c_str());
    runtime::NDArray x = runtime::NDArray::Empty({2}, runtime::Float(32));
    runtime::FillRandom(x, 1);
    relax::RelaxInterpretResult r;
    std::string out = CaptureStdout([&] {
      r = relax::InterpretRelax(m, "main", {relax::Value::Tensor(x)}, transform::InterpreterOptions());
    });
    QVERIFY2(r.ok(), r.ok() ? "" : r.diagnostics[0].message.c_str());
    QCOMPARE(QString::fromStdString(out), QString("v = 1.5, s = (2, 3)\n7\n"));

    ir::IRModule fails = Parse(kAssertFails, &error);
    QVERIFY2(fails.defined(), error.c_str());
    runtime::NDArray y = runtime::NDArray::Empty({20}, runtime::Float(32));
    r = relax::InterpretRelax(fails, "main", {relax::Value::Tensor(y)}, transform::InterpreterOptions());
    QVERIFY(!r.ok());
    QCOMPARE(QString::fromStdString(r.diagnostics[0].message), QString("R.assert_op: n = 20 is no multiple of 16"));
    runtime::NDArray z = runtime::NDArray::Empty({32}, runtime::Float(32));
    r = relax::InterpretRelax(fails, "main", {relax::Value::Tensor(z)}, transform::InterpreterOptions());
    QVERIFY2(r.ok(), r.ok() ? "" : r.diagnostics[0].message.c_str());
  }

  void vmPrintsAndAsserts() {
    std::string error;
    ir::IRModule m = Parse(kPrinting, &error);
    QVERIFY2(m.defined(), error.c_str());
    workbench::RunCheckResult result;
    std::string out = CaptureStdout([&] { result = RunVM(m); });
    QVERIFY2(result.message.empty(), result.message.c_str());
    QVERIFY(result.Find("main"));
    QVERIFY2(result.Find("main")->ok(), result.Find("main")->message.c_str());
    QCOMPARE(QString::fromStdString(out), QString("v = 1.5, s = (2, 3)\n7\n"));

    ir::IRModule fails = Parse(kAssertFails, &error);
    QVERIFY2(fails.defined(), error.c_str());
    QTemporaryDir dir;
    std::string why;
    QVERIFY(runtime::SaveNpy(dir.filePath("x.npy").toStdString(), runtime::NDArray::Empty({20}, runtime::Float(32)), &why));
    result = RunVM(fails, dir.path().toStdString());
    QVERIFY2(result.Find("main"), result.message.c_str());
    QCOMPARE(result.Find("main")->status, workbench::RunStatus::kFailed);
    QVERIFY2(result.Find("main")->message.find("R.assert_op: n = 20 is no multiple of 16") != std::string::npos,
             result.Find("main")->message.c_str());
  }

  void callPurePackedRunsInTheVM() {
    std::string error;
    ir::IRModule m = Parse(kPurePacked, &error);
    QVERIFY2(m.defined(), error.c_str());
    workbench::RunCheckRequest request;
    request.module = m;
    request.reference = workbench::ReferenceKind::kNone;
    request.isolate = false;
    request.keep_outputs = true;
    workbench::RunCheckResult result = workbench::RunAndCheck(request);
    QVERIFY2(result.message.empty(), result.message.c_str());
    QVERIFY(result.Find("main"));
    QVERIFY2(result.Find("main")->ok(), result.Find("main")->message.c_str());
    // The interpreter cannot call packed functions, and says which.
    runtime::NDArray x = runtime::NDArray::Empty({2, 3}, runtime::Float(32));
    auto r = relax::InterpretRelax(m, "main", {relax::Value::Tensor(x)}, transform::InterpreterOptions());
    QVERIFY(!r.ok());
    QCOMPARE(QString::fromStdString(r.diagnostics[0].message),
             QString("R.call_pure_packed(\"vm.builtin.shape_of\") calls a packed function, which the interpreter "
                     "cannot evaluate"));
  }

  // R.nonzero and R.tensor_to_shape: the interpreter and the VM (relax.run.nonzero,
  // vm.builtin.tensor_to_shape) give the same coordinates and shape.
  void nonzeroAndTensorToShapeRun() {
    std::string error;
    ir::IRModule m = Parse(kRuntimeShapes, &error);
    QVERIFY2(m.defined(), error.c_str());
    runtime::NDArray x = runtime::NDArray::Empty({5}, runtime::Float(32));
    const double xv[5] = {1, 0, -2, 0, 0.5};
    for (int k = 0; k < 5; ++k) x.SetDouble(k, xv[k]);
    runtime::NDArray s = runtime::NDArray::Empty({2}, runtime::Int(64));
    s.SetInt(0, 3);
    s.SetInt(1, 4);
    auto r = relax::InterpretRelax(m, "main", {relax::Value::Tensor(x), relax::Value::Tensor(s)},
                                   transform::InterpreterOptions());
    QVERIFY2(r.ok(), r.ok() ? "" : r.diagnostics[0].message.c_str());
    codegen::VMBuildResult built = codegen::BuildVM(m, codegen::Target::Host());
    QVERIFY2(built.ok(), built.ok() ? "" : built.diagnostics[0].message.c_str());
    runtime::vm::VirtualMachine machine(built.exec, built.kernels);
    runtime::vm::Value out = machine["main"]({runtime::vm::Value::Tensor(x), runtime::vm::Value::Tensor(s)});
    for (const runtime::NDArray& nz : {r.value.fields[0].tensor, out.fields[0].tensor}) {
      QCOMPARE(nz.shape(), (std::vector<int64_t>{1, 3}));
      QCOMPARE(nz.GetInt(0), int64_t(0));
      QCOMPARE(nz.GetInt(1), int64_t(2));
      QCOMPARE(nz.GetInt(2), int64_t(4));
    }
    QCOMPARE(r.value.fields[1].shape, (std::vector<int64_t>{3, 4}));
    QCOMPARE(out.fields[1].shape, (std::vector<int64_t>{3, 4}));
  }

  void pythonFormat() {
    std::string error;
    QCOMPARE(QString::fromStdString(*runtime::PythonFormat("{1}-{0} {{}}", {"a", "b"}, &error)), QString("b-a {}"));
    QCOMPARE(QString::fromStdString(*runtime::PythonFormat("", {"a", "b"}, &error)), QString("a b"));
    QVERIFY(!runtime::PythonFormat("{} {}", {"a"}, &error));
    QCOMPARE(QString::fromStdString(error), QString("format string \"{} {}\" needs argument 1, but 1 were given"));
    QVERIFY(!runtime::PythonFormat("{:.2f}", {"a"}, &error));
    runtime::NDArray big = runtime::NDArray::Empty({2000}, runtime::Int(32));
    for (int64_t i = 0; i < 2000; ++i) big.SetInt(i, i);
    QCOMPARE(QString::fromStdString(runtime::ElementsText(big)), QString("[0, 1, 2, ..., 1997, 1998, 1999]"));
  }
};

QTEST_APPLESS_MAIN(TestRelaxRuntimeOps)
#include "tst_relax_runtime_ops.moc"
