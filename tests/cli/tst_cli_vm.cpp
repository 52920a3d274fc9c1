// `workbench --batch FILE --run` on Relax modules, through the real binary: the module is built
// through default_build_pipeline and the Relax VM, every Relax function (or --func NAME) runs on
// seeded random inputs and is checked against the Relax interpreter; --profile times it and
// --json reports it; symbolic dims get a printed size; unsupported ops and failing builds are
// reported with the op's name and source location.
#include <QDir>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

namespace {

struct Run {
  int code = -1;
  QString out;
  QString err;
};

Run Workbench(const QStringList& args) {
  QProcess p;
  p.start(QStringLiteral(WB_WORKBENCH_BIN), QStringList{"--batch"} + args);
  p.waitForFinished(300000);
  return {p.exitCode(), QString::fromUtf8(p.readAllStandardOutput()), QString::fromUtf8(p.readAllStandardError())};
}

QString Write(const QTemporaryDir& dir, const QString& name, const QByteArray& text) {
  QString path = dir.filePath(name);
  QFile f(path);
  f.open(QIODevice::WriteOnly);
  f.write(text);
  return path;
}

// An MLP with a symbolic batch, and a second function with a static shape.
const char* kMlp = R"(@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor(("n", 16), dtype="float32"), w0: R.Tensor((16, 8), dtype="float32"), b0: R.Tensor((8,), dtype="float32"), w1: R.Tensor((8, 4), dtype="float32"), b1: R.Tensor((4,), dtype="float32")) -> R.Tensor(("n", 4), dtype="float32"):
        n = T.int64()
        with R.dataflow():
            lv = R.matmul(x, w0)
            lv1 = R.add(lv, b0)
            lv2 = R.nn.relu(lv1)
            lv3 = R.matmul(lv2, w1)
            gv = R.add(lv3, b1)
            R.output(gv)
        return gv

    @R.function
    def double(x: R.Tensor((3, 5), dtype="float32")) -> R.Tensor((3, 5), dtype="float32"):
        with R.dataflow():
            gv = R.add(x, x)
            R.output(gv)
        return gv
)";

// FLOPs of main for batch n: two matmuls (2 per multiply-add), two bias adds and the relu.
double MlpFlops(int n) { return n * (2.0 * 16 * 8 + 2.0 * 8 * 4 + 8 + 4 + 8); }

QByteArray Npy(const QString& shape, const std::vector<float>& values) {
  QByteArray header = "{'descr': '<f4', 'fortran_order': False, 'shape': " + shape.toUtf8() + ", }";
  while ((10 + header.size() + 1) % 64 != 0) header += ' ';
  header += '\n';
  QByteArray npy("\x93NUMPY\x01\x00", 8);
  npy += char(header.size() & 0xff);
  npy += char(header.size() >> 8);
  npy += header;
  for (float v : values) npy.append(reinterpret_cast<const char*>(&v), 4);
  return npy;
}

}  // namespace

class TestCliVM : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  void runsEveryRelaxFunctionThroughTheVM() {
    QTemporaryDir tmp;
    QString src = Write(tmp, "mlp.py", kMlp);
    QString json = tmp.filePath("run.json");
    Run r = Workbench({src, "--run", "--profile", "--number", "2", "--repeat", "3", "--json", json});
    QVERIFY2(r.code == 0, qPrintable(r.out + r.err));
    QVERIFY2(r.out.contains("ok      main (Relax VM)  [n = 4]  matches the interpreter  median "), qPrintable(r.out));
    QVERIFY2(r.out.contains("ok      double (Relax VM)  matches the interpreter  median "), qPrintable(r.out));
    QVERIFY2(r.out.contains("3 x 2 calls") && r.out.contains("GFLOP/s"), qPrintable(r.out));
    QVERIFY2(r.out.contains("2 passed, 0 failed"), qPrintable(r.out));
    QFile f(json);
    QVERIFY(f.open(QIODevice::ReadOnly));
    QJsonObject report = QJsonDocument::fromJson(f.readAll()).object();
    QVERIFY(report["target"].toString().startsWith("llvm -mcpu="));
    QJsonArray fns = report["functions"].toArray();
    QCOMPARE(fns.size(), 2);
    // Functions come in the module's order (sorted by name, as TVM prints them).
    QJsonObject main = fns[1].toObject();
    QCOMPARE(main["name"].toString(), QString("main"));
    QCOMPARE(main["kind"].toString(), QString("relax"));
    QCOMPARE(main["status"].toString(), QString("ok"));
    QCOMPARE(main["checked"].toBool(), true);
    QCOMPARE(main["symbolic"].toObject()["n"].toInt(), 4);
    QCOMPARE(main["samples_s"].toArray().size(), 3);
    QCOMPARE(main["flops"].toDouble(), MlpFlops(4));
    QVERIFY(main["gflops_per_s"].toDouble() > 0);
    QCOMPARE(fns[0].toObject()["name"].toString(), QString("double"));
    QCOMPARE(fns[0].toObject()["flops"].toDouble(), 15.0);
    // The per-call profile: every kernel main calls, once per call, whose FLOPs add up to main's;
    // the builtins beside them; the most time first; and the table in the text.
    QJsonArray calls = main["calls"].toArray();
    QVERIFY2(!calls.isEmpty(), qPrintable(QJsonDocument(main).toJson()));
    double kernel_flops = 0, previous = 1e300;
    int kernels = 0, builtins = 0;
    for (const auto& c : calls) {
      QJsonObject call = c.toObject();
      QVERIFY(call["seconds"].toDouble() <= previous);
      previous = call["seconds"].toDouble();
      if (call["kind"].toString() == "kernel") {
        ++kernels;
        QCOMPARE(call["calls"].toDouble(), 1.0);
        kernel_flops += call["flops"].toDouble();
      } else {
        QCOMPARE(call["kind"].toString(), QString("builtin"));
        QVERIFY2(call["name"].toString().startsWith("vm.builtin."), qPrintable(call["name"].toString()));
        ++builtins;
      }
    }
    QCOMPARE(kernels, 5);  // matmul, add, relu, matmul, add: no two the same PrimFunc here
    QVERIFY(builtins > 0);
    QCOMPARE(kernel_flops, MlpFlops(4));
    QVERIFY2(r.out.contains("calls of main by time (per call of main):"), qPrintable(r.out));
    QVERIFY2(r.out.contains(" kernel ") && r.out.contains("builtin"), qPrintable(r.out));
  }

  void funcSelectsOne() {
    QTemporaryDir tmp;
    QString src = Write(tmp, "mlp.py", kMlp);
    Run r = Workbench({src, "--run", "--func", "double"});
    QVERIFY2(r.code == 0, qPrintable(r.out + r.err));
    QVERIFY2(r.out.contains("ok      double (Relax VM)  matches the interpreter\n"), qPrintable(r.out));
    QVERIFY2(!r.out.contains("main"), qPrintable(r.out));
    QVERIFY2(r.out.contains("1 passed, 0 failed"), qPrintable(r.out));
    Run unknown = Workbench({src, "--run", "--func", "nope"});
    QCOMPARE(unknown.code, 2);
    QVERIFY2(unknown.err.contains("no Relax function 'nope' (the module has: double, main)"), qPrintable(unknown.err));
  }

  // An input file fixes the symbolic batch; the other inputs are random with that batch.
  void inputFileFixesTheSymbolicSize() {
    QTemporaryDir tmp;
    QString src = Write(tmp, "mlp.py", kMlp);
    QDir(tmp.path()).mkdir("inputs");
    std::vector<float> x(3 * 16);
    for (size_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>(i % 7) - 3;
    Write(tmp, "inputs/x.npy", Npy("(3, 16)", x));
    QString json = tmp.filePath("run.json");
    Run r = Workbench({src, "--run", "--func", "main", "--inputs", tmp.filePath("inputs"), "--json", json});
    QVERIFY2(r.code == 0, qPrintable(r.out + r.err));
    QVERIFY2(r.out.contains("ok      main (Relax VM)  [n = 3]  matches the interpreter"), qPrintable(r.out));
    QFile f(json);
    QVERIFY(f.open(QIODevice::ReadOnly));
    QJsonObject fn = QJsonDocument::fromJson(f.readAll()).object()["functions"].toArray()[0].toObject();
    QCOMPARE(fn["flops"].toDouble(), MlpFlops(3));
    // An input of the wrong rank is the VM's argument error, naming the parameter.
    Write(tmp, "inputs/x.npy", Npy("(48,)", x));
    Run bad = Workbench({src, "--run", "--func", "main", "--inputs", tmp.filePath("inputs")});
    QCOMPARE(bad.code, 1);
    QVERIFY2(bad.out.contains("FAILED  main (Relax VM)") && bad.out.contains("parameter 'x'"), qPrintable(bad.out));
  }

  // An op the build cannot lower is named, at its source location; the build fails.
  void unsupportedOpIsNamedAtItsSource() {
    QTemporaryDir tmp;
    QString src = Write(tmp, "unknown_shape.py", R"(@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor(dtype="float32", ndim=2), y: R.Tensor(dtype="float32", ndim=2)) -> R.Tensor(dtype="float32", ndim=2):
        with R.dataflow():
            gv = R.add(x, y)
            R.output(gv)
        return gv
)");
    Run r = Workbench({src, "--run"});
    QCOMPARE(r.code, 1);
    QVERIFY2(r.err.contains("unknown_shape.py:6:18: error: VM codegen: op 'relax.add' is not lowered for the VM"),
             qPrintable(r.err));
    QVERIFY2(r.err.contains("cannot legalize relax.add: an operand's shape is not known"), qPrintable(r.err));
    QVERIFY2(r.err.contains("build of the Relax module for llvm"), qPrintable(r.err));
  }

  // A function the VM cannot run (an extern it does not have) fails with the reason.
  void runFailureIsReported() {
    QTemporaryDir tmp;
    QString src = Write(tmp, "extern.py", R"(@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((4, 4), dtype="float32")) -> R.Tensor((4, 4), dtype="float32"):
        with R.dataflow():
            gv = R.call_dps_packed("my_extern", (x,), out_sinfo=R.Tensor((4, 4), dtype="float32"))
            R.output(gv)
        return gv
)");
    Run r = Workbench({src, "--run"});
    QCOMPARE(r.code, 1);
    QVERIFY2(r.out.contains("FAILED  main (Relax VM): failed: the VM failed: no builtin or kernel named 'my_extern'"),
             qPrintable(r.out));
    QVERIFY2(r.out.contains("0 passed, 1 failed"), qPrintable(r.out));
  }
};

QTEST_APPLESS_MAIN(TestCliVM)
#include "tst_cli_vm.moc"
