// The build-and-run checks of `workbench --batch MANIFEST.json`, each passing and failing on
// purpose: schedule recipes (file and inline), numeric checks against the interpreters (PrimFunc
// and Relax through the VM) and against saved .npy outputs (with the worst element reported),
// and timing checks against a baseline (a missing entry, a slowdown, --update-goldens writing
// the .npy files and the baseline).
#include <QTemporaryDir>
#include <QTest>

#include "manifest_test_util.h"
#include "runtime/ndarray.h"

using namespace manifest_test;

class TestManifestChecks : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  void numericAgainstInterpreterPasses() {
    QTemporaryDir tmp;
    Write(tmp.filePath("k.py"), kAddOne);
    Write(tmp.filePath("r.py"), kRelax);
    Write(tmp.filePath("m.json"), R"json({"cases": [
      {"name": "tir", "input": "k.py", "pipeline": "LowerInitBlock, ConvertBlocksToOpaque, LowerOpaqueBlock",
       "checks": {"numeric": {"reference": "interpreter", "seed": 3}}},
      {"name": "relax", "input": "r.py", "checks": {"numeric": {}}}
    ]})json");
    QString json = tmp.filePath("r.json");
    Run r = Workbench({tmp.filePath("m.json"), "--json", json});
    QVERIFY2(r.code == 0, qPrintable(r.out + r.err));
    QJsonObject tir = CheckOf(CaseNamed(ReadJson(json), "tir"), "numeric", "main");
    QVERIFY(tir["passed"].toBool());
    QCOMPARE(tir["max_abs_error"].toDouble(), 0.0);
    QVERIFY(tir["worst"].toString().startsWith("B["));
    QJsonObject relax = CaseNamed(ReadJson(json), "relax");
    // The Relax function through the VM, and its kernel on its own.
    QVERIFY(CheckOf(relax, "numeric", "main")["passed"].toBool());
    QVERIFY(CheckOf(relax, "numeric", "double")["passed"].toBool());
    QVERIFY(CheckOf(relax, "numeric", "main")["worst"].toString().startsWith("output["));
  }

  void savedOutputsUpdateThenCatchAChange() {
    QTemporaryDir tmp;
    Write(tmp.filePath("k.py"), kAddOne);
    Write(tmp.filePath("m.json"), R"json({"cases": [
      {"name": "k", "input": "k.py", "checks": {"numeric": {"reference": "saved/{name}"}}}]})json");
    QString json = tmp.filePath("r.json");
    Run missing = Workbench({tmp.filePath("m.json"), "--json", json});
    QCOMPARE(missing.code, 1);
    QVERIFY(CheckOf(CaseNamed(ReadJson(json), "k"), "numeric")["message"].toString().contains(
        "no saved output '" + tmp.filePath("saved/k/main/B.npy") + "' (run with --update-goldens)"));

    Run update = Workbench({tmp.filePath("m.json"), "--update-goldens"});
    QCOMPARE(update.code, 0);
    QVERIFY2(update.out.contains("updated " + tmp.filePath("saved/k/main/B.npy")), qPrintable(update.out));
    QVERIFY(!Workbench({tmp.filePath("m.json"), "--update-goldens"}).out.contains("updated"));
    QCOMPARE(Workbench({tmp.filePath("m.json")}).code, 0);

    // Change one saved element: the check fails at that element, with the error.
    std::string error;
    wb::runtime::NDArray saved = wb::runtime::LoadNpy(tmp.filePath("saved/k/main/B.npy").toStdString(), &error);
    QVERIFY2(saved.defined(), error.c_str());
    saved.SetDouble(5, saved.GetDouble(5) + 0.25);
    QVERIFY(wb::runtime::SaveNpy(tmp.filePath("saved/k/main/B.npy").toStdString(), saved, &error));
    Run changed = Workbench({tmp.filePath("m.json"), "--json", json});
    QCOMPARE(changed.code, 1);
    QJsonObject check = CheckOf(CaseNamed(ReadJson(json), "k"), "numeric");
    QVERIFY(!check["passed"].toBool());
    QCOMPARE(check["worst"].toString(), QString("B[5]"));
    QVERIFY(qAbs(check["max_abs_error"].toDouble() - 0.25) < 1e-6);
    QVERIFY2(check["message"].toString().contains("1 of 8 elements of B differ (worst B[5]"),
             qPrintable(check["message"].toString()));

    // A tolerance that covers the change makes it pass.
    Write(tmp.filePath("m.json"), R"json({"cases": [
      {"name": "k", "input": "k.py", "checks": {"numeric": {"reference": "saved/{name}", "atol": 0.5}}}]})json");
    QCOMPARE(Workbench({tmp.filePath("m.json")}).code, 0);
  }

  void numericInputsFromNpy() {
    QTemporaryDir tmp;
    Write(tmp.filePath("k.py"), kAddOne);
    wb::runtime::NDArray a = wb::runtime::NDArray::Empty({8}, wb::runtime::Float(32));
    for (int i = 0; i < 8; ++i) a.SetDouble(i, i * 10);
    std::string error;
    QVERIFY(QDir().mkpath(tmp.filePath("in")));
    QVERIFY2(wb::runtime::SaveNpy(tmp.filePath("in/A.npy").toStdString(), a, &error), error.c_str());
    Write(tmp.filePath("m.json"), R"json({"cases": [
      {"name": "k", "input": "k.py", "checks": {"numeric": {"inputs": "in", "reference": "out"}}}]})json");
    QCOMPARE(Workbench({tmp.filePath("m.json"), "--update-goldens"}).code, 0);
    wb::runtime::NDArray b = wb::runtime::LoadNpy(tmp.filePath("out/main/B.npy").toStdString(), &error);
    QVERIFY2(b.defined(), error.c_str());
    QCOMPARE(b.GetDouble(7), 71.0);

    // An input that cannot be read is exit code 2, naming the file.
    Write(tmp.filePath("in/A.npy"), "not an npy file");
    Run bad = Workbench({tmp.filePath("m.json")});
    QCOMPARE(bad.code, 2);
    QVERIFY2(bad.out.contains("cannot read input '" + tmp.filePath("in/main/A.npy")) ||
                 bad.out.contains("cannot read input '" + tmp.filePath("in/A.npy")),
             qPrintable(bad.out));
  }

  void scheduleRecipesApplyOrFailWithPosition() {
    QTemporaryDir tmp;
    Write(tmp.filePath("k.py"), kAddOne);
    Write(tmp.filePath("split.py"), "b0 = sch.get_sblock(name=\"B\", func_name=\"main\")\n"
                                    "l1, = sch.get_loops(block=b0)\n"
                                    "l2, l3 = sch.split(loop=l1, factors=[None, 4])\n");
    Write(tmp.filePath("bad.py"), "b0 = sch.get_sblock(name=\"B\", func_name=\"main\")\n"
                                  "l1, = sch.get_loops(block=b0)\n"
                                  "sch.parallel(loop=l9)\n");
    QJsonArray cases;
    cases.append(QJsonObject{{"name", "file"}, {"input", "k.py"}, {"schedule", QJsonObject{{"main", "split.py"}}},
                             {"checks", QJsonObject{{"ir_golden", "g/file.py"}, {"numeric", QJsonObject{}}}}});
    QString inline_recipe = "b0 = sch.get_sblock(name=\"B\", func_name=\"main\")\n"
                            "l1, = sch.get_loops(block=b0)\nsch.parallel(loop=l1)\n";
    cases.append(QJsonObject{{"name", "inline"}, {"input", "k.py"}, {"schedule", QJsonObject{{"main", inline_recipe}}},
                             {"checks", QJsonObject{{"numeric", QJsonObject{}}}}});
    cases.append(QJsonObject{{"name", "bad"}, {"input", "k.py"}, {"schedule", QJsonObject{{"main", "bad.py"}}},
                             {"checks", QJsonObject{{"numeric", QJsonObject{}}}}});
    Write(tmp.filePath("m.json"), QJsonDocument(QJsonObject{{"cases", cases}}).toJson());
    QCOMPARE(Workbench({tmp.filePath("m.json"), "--update-goldens", "--filter", "file"}).code, 0);
    QVERIFY(ReadAll(tmp.filePath("g/file.py")).contains("for i_0, i_1 in T.grid(2, 4):") ||
            ReadAll(tmp.filePath("g/file.py")).contains("i_1 in range(4)"));
    QString json = tmp.filePath("r.json");
    Run r = Workbench({tmp.filePath("m.json"), "--json", json});
    QCOMPARE(r.code, 1);
    QJsonObject report = ReadJson(json);
    QCOMPARE(CaseNamed(report, "file")["status"].toString(), QString("passed"));
    QCOMPARE(CaseNamed(report, "inline")["status"].toString(), QString("passed"));
    QJsonObject bad = CaseNamed(report, "bad");
    QCOMPARE(bad["status"].toString(), QString("failed"));
    QString message = CheckOf(bad, "schedule", "main")["message"].toString();
    QVERIFY2(message.contains(tmp.filePath("bad.py") + ":3:"), qPrintable(message));
  }

  void timingAgainstBaseline() {
    QTemporaryDir tmp;
    Write(tmp.filePath("k.py"), kAddOne);
    Write(tmp.filePath("m.json"), R"json({"cases": [
      {"name": "k", "input": "k.py",
       "checks": {"timing": {"baseline": "base.json", "max_slowdown": 1000, "number": 5, "repeat": 3}}}]})json");
    QString json = tmp.filePath("r.json");
    // No baseline yet: a clear failure naming the case and the function.
    Run none = Workbench({tmp.filePath("m.json"), "--json", json});
    QCOMPARE(none.code, 1);
    QString message = CheckOf(CaseNamed(ReadJson(json), "k"), "timing", "main")["message"].toString();
    QVERIFY2(message.contains("case 'k': function 'main' has no entry in the baseline '" +
                              tmp.filePath("base.json") + "' (run with --update-goldens)"),
             qPrintable(message));

    Run update = Workbench({tmp.filePath("m.json"), "--update-goldens"});
    QCOMPARE(update.code, 0);
    QVERIFY2(update.out.contains("updated " + tmp.filePath("base.json") + ": k/main: added "), qPrintable(update.out));
    QJsonObject baseline = ReadJson(tmp.filePath("base.json"));
    QVERIFY(baseline["k"].toObject()["main"].toDouble() > 0);

    Run pass = Workbench({tmp.filePath("m.json"), "--json", json});
    QVERIFY2(pass.code == 0, qPrintable(pass.out + pass.err));
    QJsonObject check = CheckOf(CaseNamed(ReadJson(json), "k"), "timing", "main");
    QVERIFY(check["ratio"].toDouble() > 0);
    QVERIFY(check["seconds"].toDouble() > 0);

    // A baseline no machine can meet.
    Write(tmp.filePath("base.json"), R"json({"k": {"main": 1e-15}})json");
    Run slow = Workbench({tmp.filePath("m.json"), "--json", json});
    QCOMPARE(slow.code, 1);
    check = CheckOf(CaseNamed(ReadJson(json), "k"), "timing", "main");
    QVERIFY(!check["passed"].toBool());
    QVERIFY2(check["message"].toString().startsWith("slower than the baseline: median "),
             qPrintable(check["message"].toString()));
    QVERIFY(check["message"].toString().contains("(allowed 1000x)"));

    // --update-goldens says which entry changed.
    Run again = Workbench({tmp.filePath("m.json"), "--update-goldens"});
    QVERIFY2(again.out.contains("updated " + tmp.filePath("base.json") + ": k/main: 1e-12 ms -> "),
             qPrintable(again.out));
  }
};

QTEST_APPLESS_MAIN(TestManifestChecks)
#include "tst_manifest_checks.moc"
