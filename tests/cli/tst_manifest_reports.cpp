// The reports of `workbench --batch MANIFEST.json`: JUnit XML that our JUnit schema
// (tests/cli/junit.xsd, checked by `xmllint --schema`) accepts, for passing, failing, crashing
// and timed-out cases; two runs byte-identical once the timings are taken out; the exit codes
// 0 (all passed), 1 (a check failed) and 2 (the manifest or an input could not be read).
#include <algorithm>

#include <QRegularExpression>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>

#include "manifest_test_util.h"

using namespace manifest_test;

namespace {

QString SourceDir() { return QString::fromUtf8(qgetenv("WB_SOURCE_DIR")); }

// Runs xmllint --schema junit.xsd on `xml`; empty when valid, else what xmllint said.
QString ValidateJUnit(const QString& xml) {
  QProcess p;
  p.start("xmllint", {"--noout", "--schema", SourceDir() + "/tests/cli/junit.xsd", xml});
  if (!p.waitForFinished(60000)) return "xmllint did not finish";
  if (p.exitCode() == 0) return {};
  return QString::fromUtf8(p.readAllStandardError());
}

// A report with what differs between runs taken out: every "seconds" (case and check), a
// timing check's baseline, ratio, message and outcome (a kernel near its max_slowdown passes on
// a quiet machine and fails on a loaded one), and so the case outcomes, messages and totals that
// a timing check alone decided.
QByteArray WithoutTimings(const QByteArray& json) {
  QJsonObject report = QJsonDocument::fromJson(json).object();
  QJsonArray cases;
  for (const auto& c : report["cases"].toArray()) {
    QJsonObject o = c.toObject();
    o.remove("seconds");
    QJsonArray checks;
    bool other_failed = false;
    for (const auto& k : o["checks"].toArray()) {
      QJsonObject check = k.toObject();
      check.remove("seconds");
      if (check["kind"].toString() == "timing") {
        check.remove("ratio");
        check.remove("baseline_s");
        check.remove("message");
        check.remove("passed");
      } else {
        other_failed = other_failed || !check["passed"].toBool();
      }
      checks.append(check);
    }
    if (o["status"].toString() == "failed" && !other_failed) {
      o["status"] = "passed";
      o.remove("message");  // "failed: timing <function>"
    }
    o["checks"] = checks;
    cases.append(o);
  }
  report["cases"] = cases;
  report.remove("passed");
  report.remove("failed");
  return QJsonDocument(report).toJson();
}

// Each timing check's outcome, in report order: the JUnit reports of two runs can only be the
// same when these are.
QList<bool> TimingOutcomes(const QByteArray& json) {
  QList<bool> outcomes;
  for (const auto& c : QJsonDocument::fromJson(json).object()["cases"].toArray()) {
    for (const auto& k : c.toObject()["checks"].toArray()) {
      if (k.toObject()["kind"].toString() == "timing") outcomes.append(k.toObject()["passed"].toBool());
    }
  }
  return outcomes;
}

// Empty when `a` and `b` are the same text; else the first line where they differ, with its
// number and both versions (a QCOMPARE of two whole reports cuts the text off before it).
QString FirstDifference(const QByteArray& a, const QByteArray& b) {
  if (a == b) return {};
  QList<QByteArray> la = a.split('\n'), lb = b.split('\n');
  for (qsizetype i = 0; i < std::max(la.size(), lb.size()); ++i) {
    QByteArray x = i < la.size() ? la[i] : "<end>", y = i < lb.size() ? lb[i] : "<end>";
    if (x != y) {
      return QString("line %1 differs:\n  first run:  %2\n  second run: %3")
          .arg(i + 1).arg(QString::fromUtf8(x.trimmed()), QString::fromUtf8(y.trimmed()));
    }
  }
  return "the texts differ";
}

QByteArray JUnitWithoutTimings(QByteArray xml) {
  QString text = QString::fromUtf8(xml);
  text.replace(QRegularExpression(" time=\"[0-9.]+\""), "");
  text.replace(QRegularExpression("; [0-9.e+-]+x the baseline"), "");
  return text.toUtf8();
}

// Empty when the run passed, or failed only timing checks (the bundled baseline comes from
// another machine: on a loaded one a kernel may be slower than its max_slowdown allows, which
// is reported but is no reason for this suite to fail). Otherwise, what went wrong.
QString OnlyTimingFailed(const Run& run, const QString& json) {
  if (run.code == 0) return {};
  if (run.code != 1) return "exit code " + QString::number(run.code) + ":\n" + run.out + run.err;
  for (const auto& c : ReadJson(json)["cases"].toArray()) {
    QJsonObject o = c.toObject();
    if (o["status"].toString() == "passed") continue;
    if (o["status"].toString() != "failed") return o["name"].toString() + ": " + o["message"].toString();
    for (const auto& k : o["checks"].toArray()) {
      QJsonObject check = k.toObject();
      if (!check["passed"].toBool() && !check["message"].toString().startsWith("slower than the baseline")) {
        return o["name"].toString() + ": " + check["kind"].toString() + ": " + check["message"].toString();
      }
    }
  }
  qWarning("timing checks of the bundled manifest were slower than the baseline allows:\n%s", qPrintable(run.err));
  return {};
}

}  // namespace

class TestManifestReports : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  void initTestCase() {
    if (QStandardPaths::findExecutable("xmllint").isEmpty()) {
      QFAIL("xmllint is missing: scripts/bootstrap installs libxml2-utils");
    }
  }

  void schemaRejectsWhatIsNotJUnit() {
    // The schema must be able to fail, or the checks below prove nothing.
    QTemporaryDir tmp;
    Write(tmp.filePath("bad.xml"), "<testsuites tests=\"1\" failures=\"0\" errors=\"0\">"
                                   "<testsuite name=\"x\" tests=\"1\" failures=\"0\" errors=\"0\">"
                                   "<testcase name=\"a\" time=\"-1\"/></testsuite></testsuites>\n");
    QVERIFY(!ValidateJUnit(tmp.filePath("bad.xml")).isEmpty());
  }

  void junitOfEveryOutcomeIsValid() {
    QTemporaryDir tmp;
    Write(tmp.filePath("k.py"), kAddOne);
    Write(tmp.filePath("bad.py"), QByteArray(kAddOne).replace("T.float32(1.0)", "T.float32(2.0) < 3 & \"x\""));
    Write(tmp.filePath("m.json"), R"json({"cases": [
      {"name": "passes", "input": "k.py", "checks": {"numeric": {}}},
      {"name": "a<b>&c", "input": "k.py", "checks": {"ir_golden": "bad.py"}},
      {"name": "crash", "input": "k.py", "pipeline": "TestingAbort"},
      {"name": "hang", "input": "k.py", "pipeline": "TestingSleep(seconds=60)", "timeout_s": 1},
      {"name": "slow", "input": "k.py", "checks": {"timing": {"baseline": "none.json"}}}
    ]})json");
    QString xml = tmp.filePath("r.xml");
    Run r = Workbench({tmp.filePath("m.json"), "-j", "3", "--junit", xml});
    QCOMPARE(r.code, 1);
    QString why = ValidateJUnit(xml);
    QVERIFY2(why.isEmpty(), qPrintable(why + ReadAll(xml)));
    QByteArray text = ReadAll(xml);
    QVERIFY(text.contains("<testsuite name=\"workbench\" tests=\"5\" failures=\"2\" errors=\"2\""));
    QVERIFY(text.contains("name=\"a&lt;b&gt;&amp;c\""));
    QVERIFY(text.contains("numeric main: passed; max abs error 0"));
    QVERIFY(text.contains("has no entry in the baseline"));
  }

  // A CUDA case where there is no GPU (CUDA_VISIBLE_DEVICES="" hides any the machine has): it
  // builds (NVRTC), its run checks are skipped with the reason, the case is "skipped" in the
  // JSON and JUnit's <skipped>, and a run of passed and skipped cases exits 0. A check that
  // fails still fails the case.
  void aCudaCaseWithoutAGpuIsSkipped() {
    QTemporaryDir tmp;
    Write(tmp.filePath("k.py"), kAddOne);
    Write(tmp.filePath("m.json"), R"json({"cases": [
      {"name": "cpu", "input": "k.py", "checks": {"numeric": {}}},
      {"name": "gpu", "input": "k.py", "target": "cuda", "pipeline": "DefaultGPUSchedule", "checks": {"numeric": {}, "timing": {"baseline": "b.json"}}},
      {"name": "gpu-golden-fails", "input": "k.py", "target": "cuda", "pipeline": "DefaultGPUSchedule", "checks": {"numeric": {}, "ir_golden": "absent.py"}}
    ]})json");
    QProcess p;
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert("CUDA_VISIBLE_DEVICES", "");
    p.setProcessEnvironment(env);
    QString json = tmp.filePath("r.json"), xml = tmp.filePath("r.xml");
    p.start(QStringLiteral(WB_WORKBENCH_BIN), {"--batch", tmp.filePath("m.json"), "--json", json, "--junit", xml});
    QVERIFY(p.waitForFinished(300000));
    QString out = QString::fromUtf8(p.readAllStandardOutput()), err = QString::fromUtf8(p.readAllStandardError());
    QCOMPARE(p.exitCode(), 1);  // the failing golden
    QJsonObject report = ReadJson(json);
    QCOMPARE(report["passed"].toInt(), 1);
    QCOMPARE(report["skipped"].toInt(), 1);
    QCOMPARE(report["failed"].toInt(), 1);
    QJsonObject gpu = CaseNamed(report, "gpu");
    QCOMPARE(gpu["status"].toString(), QString("skipped"));
    QVERIFY2(gpu["message"].toString().startsWith("skipped: no CUDA device: "), qPrintable(gpu["message"].toString()));
    for (const char* kind : {"numeric", "timing"}) {
      QJsonObject check = CheckOf(gpu, kind);
      QVERIFY2(check["skipped"].toBool() && !check["passed"].toBool(), kind);
      QVERIFY2(check["message"].toString().contains("kernel(s) for cuda"), qPrintable(check["message"].toString()));
    }
    QJsonObject failing = CaseNamed(report, "gpu-golden-fails");
    QCOMPARE(failing["status"].toString(), QString("failed"));
    QVERIFY(CheckOf(failing, "numeric")["skipped"].toBool());
    QVERIFY2(out.contains("1 passed, 1 failed, 1 skipped"), qPrintable(out));
    QVERIFY2(!err.contains("gpu: numeric"), qPrintable(err));  // a skip is not reported as a failure
    // JUnit: the skip with its reason, counted, and valid.
    QString why = ValidateJUnit(xml);
    QVERIFY2(why.isEmpty(), qPrintable(why + ReadAll(xml)));
    QByteArray text = ReadAll(xml);
    QVERIFY2(text.contains("tests=\"3\" failures=\"1\" errors=\"0\" skipped=\"1\""), text.constData());
    QVERIFY2(text.contains("<skipped message=\"skipped: no CUDA device: "), text.constData());
    // Without the failing case the run exits 0: a skip is not a failure.
    Write(tmp.filePath("m2.json"), R"json({"cases": [
      {"name": "cpu", "input": "k.py", "checks": {"numeric": {}}},
      {"name": "gpu", "input": "k.py", "target": "cuda", "pipeline": "DefaultGPUSchedule", "checks": {"numeric": {}}}
    ]})json");
    p.start(QStringLiteral(WB_WORKBENCH_BIN), {"--batch", tmp.filePath("m2.json")});
    QVERIFY(p.waitForFinished(300000));
    QCOMPARE(p.exitCode(), 0);
  }

  void bundledManifestIsDeterministicAndValid() {
    QTemporaryDir tmp;
    QString manifest = SourceDir() + "/resources/examples/manifest.json";
    Run a = Workbench({manifest, "-j", "2", "--json", tmp.filePath("a.json"), "--junit", tmp.filePath("a.xml")});
    QString why_a = OnlyTimingFailed(a, tmp.filePath("a.json"));
    QVERIFY2(why_a.isEmpty(), qPrintable(why_a));
    Run b = Workbench({manifest, "-j", "1", "--json", tmp.filePath("b.json"), "--junit", tmp.filePath("b.xml")});
    QString why_b = OnlyTimingFailed(b, tmp.filePath("b.json"));
    QVERIFY2(why_b.isEmpty(), qPrintable(why_b));
    QString json_difference = FirstDifference(WithoutTimings(ReadAll(tmp.filePath("a.json"))),
                                              WithoutTimings(ReadAll(tmp.filePath("b.json"))));
    QVERIFY2(json_difference.isEmpty(), qPrintable(json_difference));
    if (TimingOutcomes(ReadAll(tmp.filePath("a.json"))) == TimingOutcomes(ReadAll(tmp.filePath("b.json")))) {
      QString junit_difference = FirstDifference(JUnitWithoutTimings(ReadAll(tmp.filePath("a.xml"))),
                                                 JUnitWithoutTimings(ReadAll(tmp.filePath("b.xml"))));
      QVERIFY2(junit_difference.isEmpty(), qPrintable(junit_difference));
    } else {
      qInfo("a timing check passed in one run and failed in the other: JUnit reports not compared");
    }
    QString why = ValidateJUnit(tmp.filePath("a.xml"));
    QVERIFY2(why.isEmpty(), qPrintable(why));
    // Every kind of check the bundled manifest promises ran.
    QByteArray json = ReadAll(tmp.filePath("a.json"));
    for (const char* kind : {"\"ir_golden\"", "\"pass_golden\"", "\"schedule\"", "\"numeric\"", "\"timing\""}) {
      QVERIFY2(json.contains(kind), kind);
    }
  }

  void exitCodes() {
    QTemporaryDir tmp;
    Write(tmp.filePath("k.py"), kAddOne);
    Write(tmp.filePath("ok.json"), R"json({"cases": [{"name": "k", "input": "k.py", "checks": {"numeric": {}}}]})json");
    QCOMPARE(Workbench({tmp.filePath("ok.json")}).code, 0);
    Write(tmp.filePath("fail.json"), R"json({"cases": [{"name": "k", "input": "k.py", "checks": {"ir_golden": "absent.py"}}]})json");
    QCOMPARE(Workbench({tmp.filePath("fail.json")}).code, 1);
    QCOMPARE(Workbench({tmp.filePath("absent.json")}).code, 2);
    Write(tmp.filePath("bad.json"), R"json({"cases": [{"name": "k", "input": "k.py", "target": "gpu"}]})json");
    QCOMPARE(Workbench({tmp.filePath("bad.json")}).code, 2);
  }
};

QTEST_APPLESS_MAIN(TestManifestReports)
#include "tst_manifest_reports.moc"
