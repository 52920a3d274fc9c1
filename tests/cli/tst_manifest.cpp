// `workbench --batch MANIFEST.json`: manifest errors name the case and field; each check passes
// and fails on purpose; a crashing or hanging case fails alone; goldens update; JUnit text is
// escaped. (Build-and-run checks: tst_manifest_checks; reports and exit codes:
// tst_manifest_reports.)
#include <QDir>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>
#include <QXmlStreamReader>

namespace {

struct Run {
  int code = -1;
  QString out;
  QString err;
};

Run Workbench(const QStringList& args) {
  QProcess p;
  p.start(QStringLiteral(WB_WORKBENCH_BIN), QStringList{"--batch"} + args);
  p.waitForFinished(120000);
  return {p.exitCode(), QString::fromUtf8(p.readAllStandardOutput()),
          QString::fromUtf8(p.readAllStandardError())};
}

void Write(const QString& path, const QByteArray& text) {
  QDir().mkpath(QFileInfo(path).path());
  QFile f(path);
  f.open(QIODevice::WriteOnly);
  f.write(text);
}

const char* kKernel = R"(# from tvm.script import ir as I
# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis

@I.ir_module
class Module:
    @T.prim_func
    def main(A: T.Buffer((8,), "float32"), B: T.Buffer((8,), "float32")):
        # with T.sblock("root"):
        for i in range(8):
            with T.sblock("B"):
                vi = T.axis.spatial(8, i)
                T.reads(A[vi])
                T.writes(B[vi])
                B[vi] = A[vi] + T.float32(1.0))";

QJsonObject ReadJson(const QString& path) {
  QFile f(path);
  f.open(QIODevice::ReadOnly);
  return QJsonDocument::fromJson(f.readAll()).object();
}

QJsonObject CaseNamed(const QJsonObject& report, const QString& name) {
  for (const auto& c : report["cases"].toArray()) {
    if (c.toObject()["name"].toString() == name) return c.toObject();
  }
  return {};
}

}  // namespace

class TestManifest : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  void malformedManifests_data() {
    QTest::addColumn<QByteArray>("manifest");
    QTest::addColumn<QString>("message");
    QTest::newRow("not json") << QByteArray("{ cases: ") << "is not valid JSON";
    QTest::newRow("no cases") << QByteArray("{}") << "field 'cases' must be a list of cases";
    QTest::newRow("unknown top") << QByteArray(R"json({"cases": [], "casez": 1})json")
                                 << "unknown top-level field 'casez'";
    QTest::newRow("missing input") << QByteArray(R"json({"cases": [{"name": "a"}]})json")
                                   << "case 'a': missing field 'input'";
    QTest::newRow("wrong type") << QByteArray(R"json({"cases": [{"name": "a", "input": "k.py", "pipeline": 3}]})json")
                                << "case 'a': field 'pipeline' must be a string";
    QTest::newRow("unknown field") << QByteArray(R"json({"cases": [{"name": "a", "input": "k.py", "pipelne": ""}]})json")
                                   << "case 'a': unknown field 'pipelne'";
    QTest::newRow("unknown check") << QByteArray(R"json({"cases": [{"name": "a", "input": "k.py", "checks": {"ir": "x"}}]})json")
                                   << "case 'a': unknown check 'checks.ir'";
    QTest::newRow("timeout") << QByteArray(R"json({"cases": [{"name": "a", "input": "k.py", "timeout_s": 0}]})json")
        << "case 'a': field 'timeout_s' must be a positive number";
    QTest::newRow("defaults not object") << QByteArray(R"json({"defaults": [], "cases": [{"name": "a", "input": "k.py"}]})json")
        << "field 'defaults' must be an object";
    QTest::newRow("target type") << QByteArray(R"json({"cases": [{"name": "a", "input": "k.py", "target": 3}]})json")
        << "case 'a': field 'target' must be a string";
    QTest::newRow("target kind") << QByteArray(R"json({"cases": [{"name": "a", "input": "k.py", "target": "gpu"}]})json")
        << "case 'a': field 'target': unknown target kind 'gpu'";
    QTest::newRow("pipeline pass") << QByteArray(R"json({"cases": [{"name": "a", "input": "k.py", "pipeline": "NoSuchPass"}]})json")
        << "case 'a': field 'pipeline': ";
    QTest::newRow("schedule type") << QByteArray(R"json({"cases": [{"name": "a", "input": "k.py", "schedule": "r.py"}]})json")
        << "case 'a': field 'schedule' must map function names to recipes";
    QTest::newRow("schedule value") << QByteArray(R"json({"cases": [{"name": "a", "input": "k.py", "schedule": {"main": 1}}]})json")
        << "case 'a': field 'schedule.main' must be a recipe file or recipe text";
    QTest::newRow("schedule file") << QByteArray(R"json({"cases": [{"name": "a", "input": "k.py", "schedule": {"main": "nope.py"}}]})json")
        << "case 'a': field 'schedule.main': cannot read recipe file 'nope.py'";
    QTest::newRow("checks type") << QByteArray(R"json({"cases": [{"name": "a", "input": "k.py", "checks": []}]})json")
        << "case 'a': field 'checks' must be an object";
    QTest::newRow("ir_golden type") << QByteArray(R"json({"cases": [{"name": "a", "input": "k.py", "checks": {"ir_golden": 1}}]})json")
        << "case 'a': field 'checks.ir_golden' must be a path";
    QTest::newRow("pass_goldens type") << QByteArray(R"json({"cases": [{"name": "a", "input": "k.py", "checks": {"pass_goldens": "x.py"}}]})json")
        << "case 'a': field 'checks.pass_goldens' must map pass names to paths";
    QTest::newRow("pass_goldens value") << QByteArray(R"json({"cases": [{"name": "a", "input": "k.py", "checks": {"pass_goldens": {"RemoveNoOp": 1}}}]})json")
        << "case 'a': field 'checks.pass_goldens.RemoveNoOp' must be a path";
    QTest::newRow("numeric type") << QByteArray(R"json({"cases": [{"name": "a", "input": "k.py", "checks": {"numeric": true}}]})json")
        << "case 'a': field 'checks.numeric' must be an object";
    QTest::newRow("numeric field") << QByteArray(R"json({"cases": [{"name": "a", "input": "k.py", "checks": {"numeric": {"tolerance": 1}}}]})json")
        << "case 'a': unknown field 'checks.numeric.tolerance'";
    QTest::newRow("numeric reference") << QByteArray(R"json({"cases": [{"name": "a", "input": "k.py", "checks": {"numeric": {"reference": 1}}}]})json")
        << "case 'a': field 'checks.numeric.reference' must be \"auto\", \"interpreter\", \"compiled\", \"none\" or a directory of .npy outputs";
    QTest::newRow("numeric inputs type") << QByteArray(R"json({"cases": [{"name": "a", "input": "k.py", "checks": {"numeric": {"inputs": ""}}}]})json")
        << "case 'a': field 'checks.numeric.inputs' must be \"random\" or a directory of .npy inputs";
    QTest::newRow("numeric inputs dir") << QByteArray(R"json({"cases": [{"name": "a", "input": "k.py", "checks": {"numeric": {"inputs": "nodir"}}}]})json")
        << "case 'a': field 'checks.numeric.inputs': no such directory";
    QTest::newRow("numeric seed") << QByteArray(R"json({"cases": [{"name": "a", "input": "k.py", "checks": {"numeric": {"seed": 1.5}}}]})json")
        << "case 'a': field 'checks.numeric.seed' must be a non-negative integer";
    QTest::newRow("numeric rtol") << QByteArray(R"json({"cases": [{"name": "a", "input": "k.py", "checks": {"numeric": {"rtol": -1}}}]})json")
        << "case 'a': field 'checks.numeric.rtol' must be a non-negative number";
    QTest::newRow("numeric atol") << QByteArray(R"json({"cases": [{"name": "a", "input": "k.py", "checks": {"numeric": {"atol": "big"}}}]})json")
        << "case 'a': field 'checks.numeric.atol' must be a non-negative number";
    QTest::newRow("timing type") << QByteArray(R"json({"cases": [{"name": "a", "input": "k.py", "checks": {"timing": 2}}]})json")
        << "case 'a': field 'checks.timing' must be an object";
    QTest::newRow("timing field") << QByteArray(R"json({"cases": [{"name": "a", "input": "k.py", "checks": {"timing": {"baseline": "b.json", "warmup": 1}}}]})json")
        << "case 'a': unknown field 'checks.timing.warmup'";
    QTest::newRow("timing baseline missing") << QByteArray(R"json({"cases": [{"name": "a", "input": "k.py", "checks": {"timing": {}}}]})json")
        << "case 'a': missing field 'checks.timing.baseline'";
    QTest::newRow("timing baseline type") << QByteArray(R"json({"cases": [{"name": "a", "input": "k.py", "checks": {"timing": {"baseline": 5}}}]})json")
        << "case 'a': field 'checks.timing.baseline' must be a path";
    QTest::newRow("timing baseline file") << QByteArray(R"json({"cases": [{"name": "a", "input": "k.py", "checks": {"timing": {"baseline": "k.py"}}}]})json")
        << "case 'a': field 'checks.timing.baseline': ";
    QTest::newRow("timing max_slowdown") << QByteArray(R"json({"cases": [{"name": "a", "input": "k.py", "checks": {"timing": {"baseline": "b.json", "max_slowdown": 0.5}}}]})json")
        << "case 'a': field 'checks.timing.max_slowdown' must be a number >= 1";
    QTest::newRow("timing number") << QByteArray(R"json({"cases": [{"name": "a", "input": "k.py", "checks": {"timing": {"baseline": "b.json", "number": 0}}}]})json")
        << "case 'a': field 'checks.timing.number' must be a positive integer";
    QTest::newRow("timing repeat") << QByteArray(R"json({"cases": [{"name": "a", "input": "k.py", "checks": {"timing": {"baseline": "b.json", "repeat": 2.5}}}]})json")
        << "case 'a': field 'checks.timing.repeat' must be a positive integer";
    QTest::newRow("duplicate") << QByteArray(R"json({"cases": [{"name": "a", "input": "k.py"}, {"name": "a", "input": "k.py"}]})json")
                               << "duplicate case name 'a'";
    QTest::newRow("no match") << QByteArray(R"json({"cases": [{"name": "g", "input": "*.nothing"}]})json")
                              << "case 'g': field 'input': no file matches '*.nothing'";
    QTest::newRow("missing file") << QByteArray(R"json({"cases": [{"name": "a", "input": "nope.py"}]})json")
                                  << "case 'a': field 'input': no such file 'nope.py'";
    QTest::newRow("unnamed") << QByteArray(R"json({"cases": [{"input": "k.py"}]})json")
                             << "case #1: missing field 'name'";
  }
  void malformedManifests() {
    QFETCH(QByteArray, manifest);
    QFETCH(QString, message);
    QTemporaryDir tmp;
    Write(tmp.filePath("k.py"), kKernel);
    Write(tmp.filePath("m.json"), manifest);
    Run r = Workbench({tmp.filePath("m.json")});
    QCOMPARE(r.code, 2);
    QVERIFY2(r.err.contains(message), qPrintable(r.err));
  }

  void checksPassAndFailOnPurpose() {
    QTemporaryDir tmp;
    Write(tmp.filePath("k.py"), kKernel);
    Write(tmp.filePath("good.py"), QByteArray(kKernel));
    Write(tmp.filePath("bad.py"), QByteArray(kKernel).replace("T.float32(1.0)", "T.float32(2.0)"));
    Write(tmp.filePath("m.json"), R"json({"cases": [
      {"name": "same", "input": "k.py", "checks": {"ir_golden": "good.py"}},
      {"name": "differs", "input": "k.py", "checks": {"ir_golden": "bad.py"}},
      {"name": "missing-golden", "input": "k.py", "checks": {"ir_golden": "absent.py"}},
      {"name": "pass-not-run", "input": "k.py", "pipeline": "RemoveNoOp",
       "checks": {"pass_goldens": {"LowerOpaqueBlock": "x.py"}}},
      {"name": "pipeline-fails", "input": "k.py", "pipeline": "LowerOpaqueBlock"}
    ]})json");
    QString json = tmp.filePath("r.json");
    Run r = Workbench({tmp.filePath("m.json"), "--json", json, "-j", "2"});
    QCOMPARE(r.code, 1);
    QJsonObject report = ReadJson(json);
    QCOMPARE(CaseNamed(report, "same")["status"].toString(), QString("passed"));
    QJsonObject differs = CaseNamed(report, "differs");
    QCOMPARE(differs["status"].toString(), QString("failed"));
    QString diff = differs["checks"].toArray()[0].toObject()["diff"].toString();
    QVERIFY2(diff.contains("-                B[vi] = A[vi] + T.float32(2.0)") &&
                 diff.contains("+                B[vi] = A[vi] + T.float32(1.0)"),
             qPrintable(diff));
    QVERIFY(CaseNamed(report, "missing-golden")["checks"].toArray()[0].toObject()["message"]
                .toString().contains("--update-goldens"));
    QVERIFY(CaseNamed(report, "pass-not-run")["checks"].toArray()[0].toObject()["message"]
                .toString().contains("pass 'LowerOpaqueBlock' did not run"));
    QVERIFY(CaseNamed(report, "pipeline-fails")["message"].toString().contains("not opaque"));
    QCOMPARE(report["passed"].toInt(), 1);
    QVERIFY(r.out.contains("1 passed, 4 failed"));
  }

  void crashingAndHangingCasesFailAlone() {
    QTemporaryDir tmp;
    Write(tmp.filePath("k.py"), kKernel);
    Write(tmp.filePath("m.json"), R"json({"cases": [
      {"name": "crash", "input": "k.py", "pipeline": "TestingAbort"},
      {"name": "hang", "input": "k.py", "pipeline": "TestingSleep(seconds=60)", "timeout_s": 1},
      {"name": "fine", "input": "k.py", "pipeline": "RemoveNoOp"}
    ]})json");
    QString json = tmp.filePath("r.json");
    Run r = Workbench({tmp.filePath("m.json"), "--json", json, "-j", "3"});
    QCOMPARE(r.code, 1);
    QJsonObject report = ReadJson(json);
    QCOMPARE(CaseNamed(report, "crash")["status"].toString(), QString("crashed"));
    QCOMPARE(CaseNamed(report, "hang")["status"].toString(), QString("timeout"));
    QCOMPARE(CaseNamed(report, "fine")["status"].toString(), QString("passed"));
  }

  void updateGoldensRewritesAndReports() {
    QTemporaryDir tmp;
    Write(tmp.filePath("k.py"), kKernel);
    Write(tmp.filePath("m.json"), R"json({"defaults": {"pipeline": "ConvertBlocksToOpaque"},
      "cases": [{"name": "k", "input": "k.py", "checks": {"ir_golden": "goldens/{name}.out.py"}}]})json");
    Run first = Workbench({tmp.filePath("m.json"), "--update-goldens"});
    QCOMPARE(first.code, 0);
    QVERIFY2(first.out.contains("updated " + tmp.filePath("goldens/k.out.py")), qPrintable(first.out));
    Run again = Workbench({tmp.filePath("m.json"), "--update-goldens"});
    QVERIFY(!again.out.contains("updated"));
    QCOMPARE(Workbench({tmp.filePath("m.json")}).code, 0);
  }

  void filterSelectsCases() {
    QTemporaryDir tmp;
    Write(tmp.filePath("k.py"), kKernel);
    Write(tmp.filePath("m.json"), R"json({"cases": [
      {"name": "alpha", "input": "k.py"}, {"name": "beta", "input": "k.py"}]})json");
    Run r = Workbench({tmp.filePath("m.json"), "--filter", "bet"});
    QCOMPARE(r.code, 0);
    QVERIFY(r.out.contains("beta") && !r.out.contains("alpha"));
    QVERIFY(r.out.contains("1 passed, 0 failed"));
    // With a wildcard the pattern matches the whole name.
    Run wild = Workbench({tmp.filePath("m.json"), "--filter", "?lph*"});
    QVERIFY(wild.out.contains("alpha") && !wild.out.contains("beta"));
    QVERIFY(Workbench({tmp.filePath("m.json"), "--filter", "lph*"}).out.contains("0 passed, 0 failed"));
  }

  void junitEscapesFailureText() {
    QTemporaryDir tmp;
    Write(tmp.filePath("k.py"), kKernel);
    Write(tmp.filePath("bad.py"), QByteArray(kKernel).replace("T.float32(1.0)", "T.float32(2.0) < 3 & \"x\""));
    Write(tmp.filePath("m.json"), R"json({"cases": [{"name": "a<b>&c", "input": "k.py", "checks": {"ir_golden": "bad.py"}}]})json");
    Run r = Workbench({tmp.filePath("m.json"), "--junit", tmp.filePath("r.xml")});
    QCOMPARE(r.code, 1);
    QFile xml(tmp.filePath("r.xml"));
    QVERIFY(xml.open(QIODevice::ReadOnly));
    QXmlStreamReader reader(&xml);
    bool failure = false;
    while (!reader.atEnd()) {
      if (reader.readNext() == QXmlStreamReader::StartElement && reader.name() == QLatin1String("failure")) {
        failure = true;
      }
    }
    QVERIFY2(!reader.hasError(), qPrintable(reader.errorString()));
    QVERIFY(failure);
  }
};

QTEST_APPLESS_MAIN(TestManifest)
#include "tst_manifest.moc"
