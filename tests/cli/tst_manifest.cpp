// `workbench --batch MANIFEST.json`: manifest errors name the case and field; each check passes
// and fails on purpose; a crashing or hanging case fails alone; goldens update; reports are
// deterministic JSON and well-formed JUnit XML.
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
    QTest::newRow("unsupported") << QByteArray(R"json({"cases": [{"name": "a", "input": "k.py", "checks": {"numeric": {}}}]})json")
                                 << "case 'a': check 'checks.numeric' is not supported yet";
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
  }

  void reportsAreDeterministicAndJUnitIsWellFormed() {
    QTemporaryDir tmp;
    QString manifest =
        QString::fromUtf8(qgetenv("WB_SOURCE_DIR")) + "/resources/examples/manifest.json";
    auto strip = [](QJsonObject report) {
      QJsonArray cases;
      for (auto c : report["cases"].toArray()) {
        QJsonObject o = c.toObject();
        o.remove("seconds");
        cases.append(o);
      }
      report["cases"] = cases;
      return QJsonDocument(report).toJson();
    };
    Run a = Workbench({manifest, "-j", "2", "--json", tmp.filePath("a.json"), "--junit",
                       tmp.filePath("a.xml")});
    QVERIFY2(a.code == 0, qPrintable(a.out + a.err));
    Run b = Workbench({manifest, "-j", "1", "--json", tmp.filePath("b.json")});
    QCOMPARE(b.code, 0);
    QCOMPARE(strip(ReadJson(tmp.filePath("a.json"))), strip(ReadJson(tmp.filePath("b.json"))));

    QFile xml(tmp.filePath("a.xml"));
    QVERIFY(xml.open(QIODevice::ReadOnly));
    QXmlStreamReader reader(&xml);
    int suites = 0, testcases = 0;
    while (!reader.atEnd()) {
      if (reader.readNext() != QXmlStreamReader::StartElement) continue;
      if (reader.name() == QLatin1String("testsuite")) {
        ++suites;
        QVERIFY(reader.attributes().hasAttribute("tests"));
        QVERIFY(reader.attributes().hasAttribute("failures"));
      }
      if (reader.name() == QLatin1String("testcase")) {
        ++testcases;
        QVERIFY(reader.attributes().hasAttribute("name"));
        QVERIFY(reader.attributes().hasAttribute("classname"));
      }
    }
    QVERIFY2(!reader.hasError(), qPrintable(reader.errorString()));
    QCOMPARE(suites, 1);
    QCOMPARE(testcases, ReadJson(tmp.filePath("a.json"))["cases"].toArray().size());
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
