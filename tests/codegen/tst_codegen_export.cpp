// A module exported as a `.so` and loaded back: in this process through runtime::LoadModule, and
// in a fresh process (wb_so_runner, linked with the runtime only) that runs a parallel kernel
// and reports the argument checks' errors.

#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

#include "codegen_test_util.h"

using namespace wb;
using namespace wb::testing;

namespace {


QString RunHelper(const QStringList& args, int* exit_code) {
  QProcess p;
  p.start(WB_SO_RUNNER, args);
  if (!p.waitForFinished(60000)) return "timeout";
  *exit_code = p.exitCode();
  return QString::fromUtf8(p.readAllStandardOutput()).trimmed();
}

}  // namespace

class TstCodegenExport : public QObject {
  Q_OBJECT
 private Q_SLOTS:
  void exportLoadInProcessAndInAFreshProcess() {
    runtime::Module built = BuildOk(ParseOk(R"(
@I.ir_module
class Module:
    @T.prim_func
    def axpy(A: T.Buffer(("n",), "float32"), B: T.Buffer((n,), "float32"), C: T.Buffer((n,), "float32")):
        n = T.int32()
        for i in T.parallel(n):
            C[i] = A[i] * T.float32(2.0) + B[i]

    @T.prim_func
    def ints(A: T.Buffer((4,), "int32")):
        for i in range(4):
            A[i] = A[i] + 1
)"));
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    std::string path = dir.filePath("kernels.so").toStdString();
    std::string error;
    QVERIFY2(built->ExportLibrary(path, &error), error.c_str());

    runtime::Module loaded = runtime::LoadModule(path, &error);
    QVERIFY2(loaded.defined(), error.c_str());
    QCOMPARE(loaded->type_key(), std::string("so"));
    QCOMPARE(loaded->FunctionNames().size(), size_t{2});
    runtime::NDArray a = runtime::NDArray::Empty({4}, runtime::Int(32));
    loaded.get_function("ints")(a);
    QCOMPARE(a.GetInt(3), int64_t{1});

    int code = -1;
    QString out = RunHelper({QString::fromStdString(path), "axpy", "5"}, &code);
    QCOMPARE(code, 0);
    QCOMPARE(out, QString("1000 1002 1004 1006 1008"));
    // Many elements: the parallel loop's chunks through the helper's own thread pool.
    out = RunHelper({QString::fromStdString(path), "axpy", "1000"}, &code);
    QCOMPARE(code, 0);
    QStringList values = out.split(' ');
    QCOMPARE(values.size(), 1000);
    QCOMPARE(values[999], QString("2998"));
    // The argument checks work in the fresh process too.
    out = RunHelper({QString::fromStdString(path), "ints", "4"}, &code);
    QCOMPARE(code, 1);
    QCOMPARE(out, QString("call error: ints: expected 1 argument but got a different number"));
    out = RunHelper({QString::fromStdString(path), "missing", "4"}, &code);
    QCOMPARE(out, QString("no function missing"));
  }

  void loadErrorsAreClear() {
    std::string error;
    QVERIFY(!runtime::LoadModule("/nonexistent/lib.so", &error).defined());
    QVERIFY2(error.find("cannot load module '/nonexistent/lib.so'") == 0, error.c_str());
    // A shared library that is not a workbench module.
    QVERIFY(!runtime::LoadModule("libm.so.6", &error).defined());
    QVERIFY2(error.find("is not a workbench module") != std::string::npos, error.c_str());
  }
};

QTEST_APPLESS_MAIN(TstCodegenExport)
#include "tst_codegen_export.moc"
