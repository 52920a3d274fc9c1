// `workbench --batch MODEL.onnx` through the real binary: the model loads through the same
// loader as TVMScript files, so --emit tvmscript, --pipeline and --run (the Relax VM, inputs from
// DIR/<graph input>.npy) work on it, and an import failure is reported with exit code 2.
#include <QProcess>
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

QString Data(const QString& name) { return QString::fromUtf8(qgetenv("WB_TEST_DATA_DIR")) + "/" + name; }

}  // namespace

class TestONNXCli : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  void emitTVMScript() {
    Run r = Workbench({Data("mlp.onnx"), "--emit", "tvmscript"});
    QVERIFY2(r.code == 0, qPrintable(r.err));
    QVERIFY2(r.out.startsWith("metadata = tvm.ir.load_json(\"\"\"{"), qPrintable(r.out.left(200)));
    QVERIFY2(r.out.contains("def main(x: R.Tensor((2, 16), dtype=\"float32\")) -> R.Tensor((2, 10), dtype=\"float32\"):"),
             qPrintable(r.out.right(1500)));
  }

  void pipeline() {
    Run r = Workbench({Data("cnn.onnx"), "--pipeline", "LegalizeOps"});
    QVERIFY2(r.code == 0, qPrintable(r.err));
    QVERIFY2(r.out.contains("R.call_tir(cls.conv2d"), qPrintable(r.out.right(2000)));
    QVERIFY2(r.err.contains("LegalizeOps  changed"), qPrintable(r.err));
  }

  // The saved inputs, by graph input name, through the VM, checked against the interpreter.
  void runWithInputs() {
    Run r = Workbench({Data("mlp_dynamic.onnx"), "--run", "--inputs", Data("mlp_dynamic")});
    QVERIFY2(r.code == 0, qPrintable(r.out + r.err));
    QVERIFY2(r.out.contains("main"), qPrintable(r.out));
  }

  void importErrorsExitWithTwo() {
    Run r = Workbench({Data("unsupported_ops.onnx"), "--emit", "tvmscript"});
    QCOMPARE(r.code, 2);
    QVERIFY2(r.err.contains("unsupported op 'Hardmax' at node 'hm' (#1) (opset 17)"), qPrintable(r.err));
    QVERIFY2(r.err.contains("unsupported op 'Celu' at node 'celu' (#3) (opset 17)"), qPrintable(r.err));
    Run t = Workbench({Data("truncated.onnx"), "--run"});
    QCOMPARE(t.code, 2);
    QVERIFY2(t.err.contains("the protobuf is malformed at byte"), qPrintable(t.err));
  }
};

QTEST_GUILESS_MAIN(TestONNXCli)
#include "tst_onnx_cli.moc"
