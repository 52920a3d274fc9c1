// `workbench --batch FILE --run` with a kernel that crashes, through the real binary: each
// function runs in a child process, so the crash is reported by name and signal, the other
// functions still run, and the batch exits 1 (a failed check) instead of dying of the signal.
// The same for a Relax module whose kernel crashes inside the VM.
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

namespace {

struct Run {
  QProcess::ExitStatus status = QProcess::CrashExit;
  int code = -1;
  QString out;
  QString err;
};

Run Workbench(const QStringList& args) {
  QProcess p;
  p.start(QStringLiteral(WB_WORKBENCH_BIN), QStringList{"--batch"} + args);
  p.waitForFinished(300000);
  return {p.exitStatus(), p.exitCode(), QString::fromUtf8(p.readAllStandardOutput()),
          QString::fromUtf8(p.readAllStandardError())};
}

QString Write(const QTemporaryDir& dir, const QString& name, const QByteArray& text) {
  QString path = dir.filePath(name);
  QFile f(path);
  f.open(QIODevice::WriteOnly);
  f.write(text);
  return path;
}

// `main` writes far out of bounds; `add` is healthy.
const char* kCrash = R"(# from tvm.script import ir as I
# from tvm.script import tirx as T

@I.ir_module
class Module:
    @T.prim_func
    def main(A: T.Buffer((64,), "float32")):
        for i in range(16):
            A[i * 100000000] = T.float32(1.0)

    @T.prim_func
    def add(A: T.Buffer((64,), "float32"), B: T.Buffer((64,), "float32")):
        for i in range(64):
            B[i] = A[i] + T.float32(1.0)
)";

// The same out-of-bounds write, called by a Relax function through the VM.
const char* kRelaxCrash = R"(@I.ir_module
class Module:
    @T.prim_func(private=True)
    def scatter(x: T.Buffer((64,), "float32"), out: T.Buffer((64,), "float32")):
        for i in range(16):
            out[i * 100000000] = x[i]

    @R.function
    def main(x: R.Tensor((64,), dtype="float32")) -> R.Tensor((64,), dtype="float32"):
        cls = Module
        with R.dataflow():
            gv = R.call_tir(cls.scatter, (x,), out_ty=R.Tensor((64,), dtype="float32"))
            R.output(gv)
        return gv)";

const char* kSegv = "SIGSEGV (invalid memory access, e.g. an out-of-bounds index)";

}  // namespace

class TestCliCrash : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  void aCrashingKernelIsReportedAndTheOthersRun() {
    QTemporaryDir tmp;
    QString json = tmp.filePath("run.json");
    Run r = Workbench({Write(tmp, "crash.py", kCrash), "--target", "llvm", "--run", "--json", json});
    QCOMPARE(r.status, QProcess::NormalExit);  // not killed by the signal
    QVERIFY2(r.code == 1, qPrintable(r.out + r.err));
    QVERIFY2(r.err.contains(QString("error: kernel 'main' crashed: ") + kSegv), qPrintable(r.err));
    QVERIFY2(r.out.contains(QString("FAILED  main: crashed: ") + kSegv), qPrintable(r.out));
    QVERIFY2(r.out.contains("ok      add  matches the interpreter"), qPrintable(r.out));
    QVERIFY2(r.out.contains("1 passed, 1 failed"), qPrintable(r.out));
    QFile f(json);
    QVERIFY(f.open(QIODevice::ReadOnly));
    QJsonArray functions = QJsonDocument::fromJson(f.readAll()).object()["functions"].toArray();
    QCOMPARE(functions.size(), 2);
    QJsonObject main, add;
    for (const auto& f : functions) (f.toObject()["name"] == "main" ? main : add) = f.toObject();
    QCOMPARE(main["status"].toString(), QString("crashed"));
    QVERIFY2(main["message"].toString().startsWith(kSegv), qPrintable(main["message"].toString()));
    QCOMPARE(add["name"].toString(), QString("add"));
    QCOMPARE(add["status"].toString(), QString("ok"));
  }

  void aCrashingKernelInTheRelaxVmIsReported() {
    QTemporaryDir tmp;
    Run r = Workbench({Write(tmp, "relax_crash.py", kRelaxCrash), "--target", "llvm", "--run"});
    QCOMPARE(r.status, QProcess::NormalExit);
    QVERIFY2(r.code == 1, qPrintable(r.out + r.err));
    QVERIFY2(r.err.contains(QString("error: Relax function 'main' crashed: ") + kSegv), qPrintable(r.err));
    QVERIFY2(r.out.contains("FAILED  main (Relax VM): crashed: "), qPrintable(r.out));
    QVERIFY2(r.out.contains("0 passed, 1 failed"), qPrintable(r.out));
  }
};

QTEST_APPLESS_MAIN(TestCliCrash)
#include "tst_cli_crash.moc"
