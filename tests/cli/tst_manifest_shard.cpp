// Sharded manifest runs (driver/manifest_shard.h) through the real `workbench --batch`: the
// shards of a split are disjoint and together are the whole run, their merged report equals the
// whole run's (timings aside) and its JUnit validates against tests/cli/junit.xsd; a case keeps
// its shard when cases are added; merging refuses reports that do not belong together.
#include <QJsonArray>
#include <QRegularExpression>
#include <QSet>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>
#include <set>
#include <string>

#include "manifest_test_util.h"
#include "driver/manifest_shard.h"

using namespace manifest_test;

namespace {

QString SourceDir() { return QString::fromUtf8(qgetenv("WB_SOURCE_DIR")); }

// Twelve globbed cases that pass and one that fails (its golden file is absent).
void WriteFixture(const QTemporaryDir& tmp, const QString& manifest = "m.json") {
  for (int i = 0; i < 12; ++i)
    Write(tmp.filePath(QString("k%1.py").arg(i, 2, 10, QChar('0'))), kAddOne);
  Write(tmp.filePath(manifest), R"json({"cases": [
    {"name": "add", "input": "k*.py", "checks": {"numeric": {}}},
    {"name": "golden", "input": "k00.py", "checks": {"ir_golden": "absent.py"}}
  ]})json");
}

QStringList Names(const QJsonObject& report) {
  QStringList out;
  for (const auto& c : report["cases"].toArray()) out << c.toObject()["name"].toString();
  return out;
}

// The cases of a report without what differs between runs (each case's "seconds").
QJsonArray CasesWithoutTimings(const QJsonObject& report) {
  QJsonArray out;
  for (const auto& c : report["cases"].toArray()) {
    QJsonObject o = c.toObject();
    o.remove("seconds");
    out.append(o);
  }
  return out;
}

QByteArray JUnitWithoutTimings(QByteArray xml) {
  return QString::fromUtf8(xml).remove(QRegularExpression(" time=\"[^\"]*\"")).toUtf8();
}

QString ValidateJUnit(const QString& xml) {
  QProcess p;
  p.start("xmllint", {"--noout", "--schema", SourceDir() + "/tests/cli/junit.xsd", xml});
  if (!p.waitForFinished(60000)) return "xmllint did not finish";
  return p.exitCode() == 0 ? QString() : QString::fromUtf8(p.readAllStandardError());
}

// Runs the three shards of m.json, writing s1.json .. s3.json; returns the shards' case names.
QList<QStringList> RunShards(const QTemporaryDir& tmp) {
  QList<QStringList> names;
  for (int k = 1; k <= 3; ++k) {
    QString json = tmp.filePath(QString("s%1.json").arg(k));
    Run r = Workbench(
        {tmp.filePath("m.json"), "-j", "2", "--shard", QString("%1/3").arg(k), "--json", json});
    QStringList shard = Names(ReadJson(json));
    if (r.code != (shard.contains("golden") ? 1 : 0))
      qWarning("shard %d: exit %d: %s", k, r.code, qPrintable(r.err));
    names << shard;
  }
  return names;
}

}  // namespace

class TestManifestShard : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  void initTestCase() {
    if (QStandardPaths::findExecutable("xmllint").isEmpty()) {
      QFAIL("xmllint is missing: scripts/bootstrap installs libxml2-utils");
    }
  }

  void shardsPartitionTheRunAndMergeIntoIt() {
    QTemporaryDir tmp;
    WriteFixture(tmp);
    Run full = Workbench({tmp.filePath("m.json"), "-j", "2", "--json", tmp.filePath("full.json"),
                          "--junit", tmp.filePath("full.xml")});
    QCOMPARE(full.code, 1);
    QJsonObject whole = ReadJson(tmp.filePath("full.json"));
    QCOMPARE(Names(whole).size(), 13);
    QVERIFY(!whole["run"].toObject().contains("shard"));

    QList<QStringList> shards = RunShards(tmp);
    QSet<QString> seen;
    for (const QStringList& shard : shards) {
      for (const QString& name : shard) {
        QVERIFY2(!seen.contains(name), qPrintable(name + " is in two shards"));
        seen.insert(name);
      }
    }
    QStringList all = Names(whole);
    QCOMPARE(seen, QSet<QString>(all.begin(), all.end()));
    QCOMPARE(ReadJson(tmp.filePath("s2.json"))["run"].toObject()["shard"].toString(),
             QString("2/3"));

    Run merge = Workbench({"--merge-reports", tmp.filePath("s3.json"), tmp.filePath("s1.json"),
                           tmp.filePath("s2.json"), "--json", tmp.filePath("merged.json"),
                           "--junit", tmp.filePath("merged.xml")});
    // The golden case failed, as in the whole run.
    QVERIFY2(merge.code == 1, qPrintable(merge.err));
    QVERIFY2(merge.out.contains("12 passed, 1 failed"), qPrintable(merge.out));
    QJsonObject merged = ReadJson(tmp.filePath("merged.json"));
    QCOMPARE(CasesWithoutTimings(merged), CasesWithoutTimings(whole));
    QCOMPARE(merged["passed"].toInt(), 12);
    QCOMPARE(merged["run"].toObject()["merged_shards"].toInt(), 3);
    QCOMPARE(merged["run"].toObject()["manifest_digest"],
             whole["run"].toObject()["manifest_digest"]);
    QString why = ValidateJUnit(tmp.filePath("merged.xml"));
    QVERIFY2(why.isEmpty(), qPrintable(why));
    QCOMPARE(JUnitWithoutTimings(ReadAll(tmp.filePath("merged.xml"))),
             JUnitWithoutTimings(ReadAll(tmp.filePath("full.xml"))));
  }

  void aCaseKeepsItsShardWhenCasesAreAdded() {
    QTemporaryDir tmp;
    WriteFixture(tmp);
    Write(tmp.filePath("more.json"), R"json({"cases": [
      {"name": "first", "input": "k00.py"},
      {"name": "add", "input": "k*.py", "checks": {"numeric": {}}},
      {"name": "middle", "input": "k01.py"},
      {"name": "golden", "input": "k00.py", "checks": {"ir_golden": "absent.py"}},
      {"name": "last", "input": "k02.py"}
    ]})json");
    wb::DiagnosticList diags;
    auto before = wb::driver::LoadManifest(tmp.filePath("m.json").toStdString(), diags);
    auto after = wb::driver::LoadManifest(tmp.filePath("more.json").toStdString(), diags);
    QVERIFY(before && after);
    for (int k = 1; k <= 4; ++k) {
      wb::driver::Shard shard{k, 4};
      std::set<std::string> old_names, new_names;
      for (const auto& c : wb::driver::SelectShard(*before, shard).cases)
        old_names.insert(c.name);
      for (const auto& c : wb::driver::SelectShard(*after, shard).cases)
        new_names.insert(c.name);
      for (const auto& name : old_names) QVERIFY2(new_names.count(name), name.c_str());
      for (const auto& name : new_names) {
        QVERIFY2(old_names.count(name) || name == "first" || name == "middle" || name == "last",
                 name.c_str());
      }
    }
  }

  void shardOptionIsChecked() {
    QTemporaryDir tmp;
    WriteFixture(tmp);
    for (const char* bad : {"0/3", "4/3", "1", "a/3", "1/0", "1/3x"}) {
      Run r = Workbench({tmp.filePath("m.json"), "--shard", bad});
      QCOMPARE(r.code, 2);
      QVERIFY2(r.err.contains("--shard"), qPrintable(r.err));
    }
    Run update = Workbench({tmp.filePath("m.json"), "--shard", "1/2", "--update-goldens"});
    QCOMPARE(update.code, 2);
    QVERIFY2(update.err.contains("without --shard"), qPrintable(update.err));
    QVERIFY(!QFile::exists(tmp.filePath("absent.py")));
  }

  void mergeRefusesReportsThatDoNotBelongTogether() {
    QTemporaryDir tmp;
    WriteFixture(tmp);
    RunShards(tmp);
    auto refused = [&](const QStringList& reports, const QString& why) {
      QStringList args{"--merge-reports"};
      for (const QString& r : reports) args << tmp.filePath(r);
      Run r = Workbench(args);
      if (r.code != 2 || !r.err.contains(why)) {
        qWarning("merging %s: exit %d: %s", qPrintable(reports.join(' ')), r.code,
                 qPrintable(r.err));
        return false;
      }
      return true;
    };
    QVERIFY(refused({"s1.json", "s2.json"}, "shard 3/3 is missing"));
    QVERIFY(refused({"s1.json", "s2.json", "s1.json"}, "shard 1/3 is given twice"));

    // Another manifest (one more case), its shard 3/3 in place of ours.
    Write(
        tmp.filePath("other/m.json"),
        R"json({"cases": [{"name": "add", "input": "../k*.py"}, {"name": "x", "input": "../k00.py"}]})json");
    Workbench(
        {tmp.filePath("other/m.json"), "--shard", "3/3", "--json", tmp.filePath("other3.json")});
    QVERIFY(refused({"s1.json", "s2.json", "other3.json"}, "are reports of different manifests"));

    // The same shard written by another build.
    QJsonObject s3 = ReadJson(tmp.filePath("s3.json"));
    QJsonObject run = s3["run"].toObject();
    run["version"] = "0123456789ab";
    s3["run"] = run;
    Write(tmp.filePath("v3.json"), QJsonDocument(s3).toJson());
    QVERIFY(
        refused({"s1.json", "s2.json", "v3.json"}, "were written by different workbench versions"));

    Workbench({tmp.filePath("m.json"), "--shard", "3/4", "--json", tmp.filePath("q3.json")});
    QVERIFY(refused({"s1.json", "s2.json", "q3.json"}, "are shards of different splits"));
    Workbench({tmp.filePath("m.json"), "--filter", "add", "--shard", "3/3", "--json",
               tmp.filePath("f3.json")});
    QVERIFY(refused({"s1.json", "s2.json", "f3.json"}, "ran different --filter"));
    Workbench({tmp.filePath("m.json"), "--json", tmp.filePath("whole.json")});
    QVERIFY(refused({"whole.json"}, "is the report of a whole run"));
    Write(tmp.filePath("old.json"), R"json({"passed": 1, "failed": 0, "cases": []})json");
    QVERIFY(refused({"old.json"}, "does not say which run wrote it"));
    QVERIFY(refused({"k00.py"}, "is not a JSON report"));
    QVERIFY(refused({"absent.json"}, "cannot read report"));
    QVERIFY(refused({}, "needs the JSON reports"));
  }
};

QTEST_APPLESS_MAIN(TestManifestShard)
#include "tst_manifest_shard.moc"
