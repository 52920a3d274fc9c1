// `workbench --batch MODEL.onnx` through the real binary: the model loads through the same
// loader as TVMScript files, so --emit tvmscript, --pipeline and --run (the Relax VM, inputs from
// DIR/<graph input>.npy, results saved by --save-outputs as DIR/<graph output>.npy) work on it, a
// manifest case may name it, and an import failure is reported with exit code 2. --save-outputs
// of a TVMScript file writes DIR/<func>/out<i>.npy.
#include <QDir>
#include <QFile>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

#include "runtime/ndarray.h"

using namespace wb;

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

  // Every graph output lands in DIR/<name>.npy, holding what numpy computed.
  void saveOutputsByGraphName() {
    QTemporaryDir tmp;
    QString dir = tmp.filePath("out");
    Run r = Workbench({Data("argmin_round_quant.onnx"), "--run", "--inputs", Data("argmin_round_quant"),
                       "--save-outputs", dir});
    QVERIFY2(r.code == 0, qPrintable(r.out + r.err));
    QVERIFY2(r.out.contains("saved 6 output(s) under " + dir), qPrintable(r.out));
    for (const char* name : {"amin", "amin0", "round", "q8", "qi8", "gath"}) {
      std::string why;
      runtime::NDArray got = runtime::LoadNpy((dir + "/" + name + ".npy").toStdString(), &why);
      QVERIFY2(got.defined(), (std::string(name) + ": " + why).c_str());
      runtime::NDArray want =
          runtime::LoadNpy(Data(QString("argmin_round_quant/expected/") + name + ".npy").toStdString(), &why);
      QVERIFY2(want.defined(), why.c_str());
      QVERIFY2(got.shape() == want.shape(), name);
      runtime::CompareResult cmp = runtime::Compare(got, want, runtime::DefaultTolerance(want.dtype()));
      QVERIFY2(cmp.ok, (std::string(name) + ": " + cmp.message).c_str());
    }
  }

  // A TVMScript module's Relax function writes DIR/<func>/out<i>.npy, its result's tensors in
  // order; --save-outputs without --run is refused.
  void saveOutputsOfARelaxFunction() {
    QTemporaryDir tmp;
    QFile src(tmp.filePath("twice.py"));
    QVERIFY(src.open(QIODevice::WriteOnly));
    src.write(R"(# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def twice(x: R.Tensor((2, 3), dtype="float32")) -> R.Tuple(R.Tensor((2, 3), dtype="float32"), R.Tensor((3, 2), dtype="float32")):
        with R.dataflow():
            a: R.Tensor((2, 3), dtype="float32") = R.add(x, x)
            b: R.Tensor((3, 2), dtype="float32") = R.permute_dims(x, axes=[1, 0])
            gv: R.Tuple(R.Tensor((2, 3), dtype="float32"), R.Tensor((3, 2), dtype="float32")) = a, b
            R.output(gv)
        return gv
)");
    src.close();
    QVERIFY(QDir(tmp.path()).mkpath("in/twice"));
    runtime::NDArray x = runtime::NDArray::Empty({2, 3}, runtime::Float(32));
    runtime::FillRandom(x, 7);
    std::string why;
    QVERIFY2(runtime::SaveNpy(tmp.filePath("in/twice/x.npy").toStdString(), x, &why), why.c_str());
    QString dir = tmp.filePath("out");
    Run r = Workbench({src.fileName(), "--run", "--inputs", tmp.filePath("in"), "--save-outputs", dir});
    QVERIFY2(r.code == 0, qPrintable(r.out + r.err));
    runtime::NDArray a = runtime::LoadNpy((dir + "/twice/out0.npy").toStdString(), &why);
    runtime::NDArray b = runtime::LoadNpy((dir + "/twice/out1.npy").toStdString(), &why);
    QVERIFY2(a.defined() && b.defined(), why.c_str());
    QCOMPARE(b.shape(), (std::vector<int64_t>{3, 2}));
    for (int i = 0; i < 2; ++i) {
      for (int j = 0; j < 3; ++j) {
        QCOMPARE(a.GetDouble(i * 3 + j), 2 * x.GetDouble(i * 3 + j));
        QCOMPARE(b.GetDouble(j * 2 + i), x.GetDouble(i * 3 + j));
      }
    }
    Run bad = Workbench({src.fileName(), "--save-outputs", dir});
    QCOMPARE(bad.code, 2);
    QVERIFY2(bad.err.contains("--save-outputs goes with --run"), qPrintable(bad.err));
  }

  // A manifest case may name an ONNX model: imported, legalized, checked against the interpreter.
  void manifestCaseNamesAModel() {
    QTemporaryDir tmp;
    QFile manifest(tmp.filePath("manifest.json"));
    QVERIFY(manifest.open(QIODevice::WriteOnly));
    manifest.write(QString(R"({"cases": [{"name": "cnn", "input": "%1", "pipeline": "LegalizeOps",
  "checks": {"numeric": {"reference": "interpreter"}}}]})").arg(Data("cnn.onnx")).toUtf8());
    manifest.close();
    Run r = Workbench({manifest.fileName()});
    QVERIFY2(r.code == 0, qPrintable(r.out + r.err));
    QVERIFY2(r.out.contains("1 passed, 0 failed"), qPrintable(r.out));
  }

  void importErrorsExitWithTwo() {
    Run r = Workbench({Data("unsupported_ops.onnx"), "--emit", "tvmscript"});
    QCOMPARE(r.code, 2);
    QVERIFY2(r.err.contains("unsupported op 'Unique' at node 'uq' (#1) (opset 17)"), qPrintable(r.err));
    QVERIFY2(r.err.contains("unsupported op 'Det' at node 'det' (#3) (opset 17)"), qPrintable(r.err));
    Run t = Workbench({Data("truncated.onnx"), "--run"});
    QCOMPARE(t.code, 2);
    QVERIFY2(t.err.contains("the protobuf is malformed at byte"), qPrintable(t.err));
  }
};

QTEST_GUILESS_MAIN(TestONNXCli)
#include "tst_onnx_cli.moc"
