// Pass control through the real `workbench --batch` binary: --pass-config, --opt-level,
// --disable-pass and --require-pass change what the pipeline and the build's lowering do (an
// unroll config unrolls, a disabled pass does not run, opt level 0 fuses nothing), with clear
// errors for unknown keys, fields and passes; the same fields in a manifest case; Relax
// well-formedness checked after every pass, naming the pass that broke it at the source line;
// `--emit llvm|llvm-opt|asm` printing what the Build panel shows (one build, workbench::BuildModule);
// edit and resume (`--resume-after K --with FILE`) running only the passes after the K-th; pass
// attribution (`--attribute-passes`) finding the pass a case is built to depend on.
#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>
#include <optional>

#include "manifest_test_util.h"
#include "script/tvmscript.h"
#include "workbench/build_session.h"

namespace {

using manifest_test::Run;
using manifest_test::Workbench;

// The file `name` in `dir` with `text` (manifest_test::Write), by its path.
QString Write(const QTemporaryDir& dir, const QString& name, const QByteArray& text) {
  QString path = dir.filePath(name);
  manifest_test::Write(path, text);
  return path;
}

// A serial loop of 8 with one statement: UnrollLoop leaves it unless auto_max_step >= 8.
const char* kScale = R"(# from tvm.script import tirx as T

@T.prim_func
def scale(A: T.Buffer((8,), "float32"), B: T.Buffer((8,), "float32")):
    for i in range(8):
        B[i] = A[i] * T.float32(2.0)
)";

// The same computation written with a block, for the lowering passes.
const char* kScaleBlock = R"(# from tvm.script import tirx as T

@T.prim_func
def scale(A: T.Buffer((8,), "float32"), B: T.Buffer((8,), "float32")):
    for i in range(8):
        with T.sblock("B"):
            vi = T.axis.spatial(8, i)
            T.reads(A[vi])
            T.writes(B[vi])
            B[vi] = A[vi] * T.float32(2.0)
)";

const char* kLowering = "ConvertBlocksToOpaque, LowerOpaqueBlock, UnrollLoop, RemoveNoOp";

QString ReadText(const QString& path) {
  QFile f(path);
  if (!f.open(QIODevice::ReadOnly)) return {};
  return QString::fromUtf8(f.readAll());
}

const char* kUnroll16 = R"(tirx.UnrollLoop={"auto_max_step": 16})";

// Two elementwise ops: FuseOps fuses them at opt level 2 (the default), not at 0.
const char* kTwoOps = R"(# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((4,), dtype="float32")) -> R.Tensor((4,), dtype="float32"):
        with R.dataflow():
            lv = R.add(x, x)
            gv = R.multiply(lv, lv)
            R.output(gv)
        return gv
)";

// A function that kills its input's storage is impure, as it says; TestingMarkPure declares it
// pure, which the check after the pass must refuse.
const char* kImpure = R"(# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function(pure=False)
    def main(x: R.Tensor((4,), dtype="float32")) -> R.Tensor((4,), dtype="float32"):
        y = R.add(x, x)
        z = R.memory.kill_tensor(x)
        return y
)";

const char* kFuse = "LegalizeOps, AnnotateTIROpPattern, FuseOps, FuseTIR";

QJsonArray DumpedPasses(const QString& dir) {
  QFile json(dir + "/passes.json");
  if (!json.open(QIODevice::ReadOnly)) return {};
  return QJsonDocument::fromJson(json.readAll()).object()["passes"].toArray();
}

QStringList Names(const QJsonArray& passes) {
  QStringList out;
  for (const auto& p : passes) out << p.toObject()["name"].toString();
  return out;
}

}  // namespace

class TestCliPassControl : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  void anUnrollConfigUnrollsAndKeepsTheMeaning() {
    QTemporaryDir tmp;
    QString src = Write(tmp, "scale.py", kScale);
    Run plain = Workbench({src, "--pipeline", "UnrollLoop"});
    QVERIFY2(plain.code == 0, qPrintable(plain.err));
    QVERIFY2(plain.out.contains("for i in range(8):"), qPrintable(plain.out));
    Run unrolled = Workbench({src, "--pipeline", "UnrollLoop", "--pass-config", kUnroll16, "--check"});
    QVERIFY2(unrolled.code == 0, qPrintable(unrolled.err));
    QVERIFY2(!unrolled.out.contains("for i"), qPrintable(unrolled.out));
    QVERIFY(unrolled.out.contains("B[0] = A[0] * T.float32(2.0)"));
    QVERIFY(unrolled.out.contains("B[7] = A[7] * T.float32(2.0)"));
    QVERIFY2(unrolled.err.contains("check scale: equal"), qPrintable(unrolled.err));
    // Below the loop's 8 steps the config leaves it; a second --pass-config of the same key
    // merges its fields into the first's (the later wins).
    Run small = Workbench({src, "--pipeline", "UnrollLoop", "--pass-config",
                           R"(tirx.UnrollLoop={"auto_max_step": 4})"});
    QVERIFY(small.out.contains("for i in range(8):"));
    Run merged = Workbench({src, "--pipeline", "UnrollLoop", "--pass-config",
                            R"(tirx.UnrollLoop={"auto_max_step": 4})", "--pass-config",
                            R"(tirx.UnrollLoop={"auto_max_depth": 8, "auto_max_step": 8})"});
    QVERIFY2(merged.code == 0, qPrintable(merged.err));
    QVERIFY(!merged.out.contains("for i"));
  }

  void theConfigAndDisabledPassesReachTheBuildsLowering() {
    QTemporaryDir tmp;
    QString src = Write(tmp, "scale.py", kScale);
    // The LLVM IR before LLVM's own optimization still has the loop TIR had.
    Run loop = Workbench({src, "--emit", "llvm"});
    QVERIFY2(loop.code == 0, qPrintable(loop.err));
    QVERIFY2(loop.out.contains("for_body"), qPrintable(loop.out.left(2000)));
    Run unrolled = Workbench({src, "--emit", "llvm", "--pass-config", kUnroll16});
    QVERIFY2(unrolled.code == 0, qPrintable(unrolled.err));
    QVERIFY2(!unrolled.out.contains("for_body"), qPrintable(unrolled.out.left(2000)));
    Run disabled = Workbench({src, "--emit", "llvm", "--pass-config", kUnroll16, "--disable-pass", "UnrollLoop"});
    QVERIFY2(disabled.code == 0, qPrintable(disabled.err));
    QVERIFY(disabled.out.contains("for_body"));
    // And the unrolled build still computes what the module says.
    Run run = Workbench({src, "--run", "--reference", "interpreter", "--pass-config", kUnroll16});
    QVERIFY2(run.code == 0, qPrintable(run.out + run.err));
    QVERIFY(run.out.contains("ok      scale  matches the interpreter"));
  }

  void aDisabledPassDoesNotRun() {
    QTemporaryDir tmp;
    QString src = Write(tmp, "scale.py", kScale);
    QString all = tmp.filePath("all"), some = tmp.filePath("some");
    const char* pipeline = "UnrollLoop, RemoveNoOp, Simplify";
    Run r = Workbench({src, "--pipeline", pipeline, "--dump-dir", all});
    QVERIFY2(r.code == 0, qPrintable(r.err));
    QCOMPARE(Names(DumpedPasses(all)), (QStringList{"UnrollLoop", "RemoveNoOp", "Simplify"}));
    r = Workbench({src, "--pipeline", pipeline, "--dump-dir", some, "--disable-pass", "RemoveNoOp",
                   "--disable-pass", "Simplify"});
    QVERIFY2(r.code == 0, qPrintable(r.err));
    QCOMPARE(Names(DumpedPasses(some)), QStringList{"UnrollLoop"});
    QVERIFY(!r.err.contains("RemoveNoOp"));
  }

  void optLevelZeroFusesNothing() {
    QTemporaryDir tmp;
    QString src = Write(tmp, "two_ops.py", kTwoOps);
    Run fused = Workbench({src, "--pipeline", kFuse, "--check"});
    QVERIFY2(fused.code == 0, qPrintable(fused.err));
    QVERIFY2(fused.out.contains("fused_add_multiply"), qPrintable(fused.out));
    Run none = Workbench({src, "--pipeline", kFuse, "--opt-level", "0", "--check"});
    QVERIFY2(none.code == 0, qPrintable(none.err));
    QVERIFY2(!none.out.contains("fused_"), qPrintable(none.out));
    QVERIFY(none.out.contains("cls.add"));
    QVERIFY(none.out.contains("cls.multiply"));
    Run range = Workbench({src, "--pipeline", kFuse, "--opt-level", "9"});
    QCOMPARE(range.code, 2);
    QVERIFY2(range.err.contains("--opt-level"), qPrintable(range.err));
  }

  void mistakesAreNamedWithTheKnownNames() {
    QTemporaryDir tmp;
    QString src = Write(tmp, "scale.py", kScale);
    Run key = Workbench({src, "--pipeline", "UnrollLoop", "--pass-config", R"(tirx.Unroll={"auto_max_step": 4})"});
    QCOMPARE(key.code, 2);
    QVERIFY2(key.err.contains("unknown pass config key 'tirx.Unroll' (did you mean tirx.UnrollLoop?)"),
             qPrintable(key.err));
    QVERIFY(key.err.contains("the registered keys are: ") && key.err.contains("relax.FuseOps"));
    Run field = Workbench({src, "--pipeline", "UnrollLoop", "--pass-config", R"(tirx.UnrollLoop={"max_step": 4})"});
    QCOMPARE(field.code, 2);
    QVERIFY2(field.err.contains("pass config 'tirx.UnrollLoop' has no field 'max_step'"), qPrintable(field.err));
    QVERIFY(field.err.contains("auto_max_step"));
    Run type = Workbench({src, "--pipeline", "UnrollLoop", "--pass-config", R"(tirx.UnrollLoop={"auto_max_step": "many"})"});
    QCOMPARE(type.code, 2);
    QVERIFY2(type.err.contains("field 'auto_max_step' expects an int, got \"many\""), qPrintable(type.err));
    Run json = Workbench({src, "--pipeline", "UnrollLoop", "--pass-config", "tirx.UnrollLoop={auto_max_step: 4}"});
    QCOMPARE(json.code, 2);
    QVERIFY2(json.err.contains("is not valid JSON"), qPrintable(json.err));
    Run form = Workbench({src, "--pipeline", "UnrollLoop", "--pass-config", "tirx.UnrollLoop"});
    QCOMPARE(form.code, 2);
    QVERIFY2(form.err.contains("is not KEY=JSON"), qPrintable(form.err));
    Run pass = Workbench({src, "--pipeline", "UnrollLoop", "--disable-pass", "RemoveNoop"});
    QCOMPARE(pass.code, 2);
    QVERIFY2(pass.err.contains("cannot disable unknown pass 'RemoveNoop' (did you mean RemoveNoOp?)"),
             qPrintable(pass.err));
    Run far = Workbench({src, "--pipeline", "UnrollLoop", "--require-pass", "Zzzzzzzz"});
    QCOMPARE(far.code, 2);
    QVERIFY2(far.err.contains("cannot require unknown pass 'Zzzzzzzz' (--list-passes lists the passes)"),
             qPrintable(far.err));
    // A FILE after a repeatable option is still the FILE.
    Run order = Workbench({"--disable-pass", "RemoveNoOp", src, "--pipeline", "UnrollLoop"});
    QVERIFY2(order.code == 0, qPrintable(order.err));
  }

  void listPassesShowsTheConfigKeys() {
    Run r = Workbench({"--list-passes"});
    QCOMPARE(r.code, 0);
    QVERIFY(r.out.contains("pass config keys (--pass-config KEY=JSON):"));
    QVERIFY(r.out.contains("  tirx.UnrollLoop  -- "));
    QVERIFY2(r.out.contains("    auto_max_step: an int, default 0  -- "), qPrintable(r.out));
    QVERIFY(r.out.contains("  relax.FuseOps  -- "));
  }

  void aManifestCaseSetsItsPassControl() {
    QTemporaryDir tmp;
    Write(tmp, "scale.py", kScale);
    Write(tmp, "manifest.json", R"({
  "cases": [
    {"name": "unrolled", "input": "scale.py", "pipeline": "UnrollLoop, RemoveNoOp",
     "pass_config": {"tirx.UnrollLoop": {"auto_max_step": 16}},
     "checks": {"ir_golden": "unrolled.golden.py", "numeric": {"reference": "interpreter"}}},
    {"name": "disabled", "input": "scale.py", "pipeline": "UnrollLoop, RemoveNoOp",
     "disabled_passes": ["RemoveNoOp"], "opt_level": 1,
     "checks": {"pass_goldens": {"RemoveNoOp": "never.golden.py"}}}
  ]
})");
    QString report = tmp.filePath("report.json");
    Run r = Workbench({tmp.filePath("manifest.json"), "--update-goldens", "--json", report});
    QFile golden(tmp.filePath("unrolled.golden.py"));
    QVERIFY2(golden.open(QIODevice::ReadOnly), qPrintable(r.out + r.err));
    QString text = QString::fromUtf8(golden.readAll());
    QVERIFY2(!text.contains("for i") && text.contains("B[7] = A[7]"), qPrintable(text));
    // The disabled pass never ran, so its golden cannot be checked.
    QCOMPARE(r.code, 1);
    QVERIFY2(r.err.contains("disabled: pass_golden RemoveNoOp: pass 'RemoveNoOp' did not run"), qPrintable(r.err));
    QVERIFY(!QFile::exists(tmp.filePath("never.golden.py")));

    Write(tmp, "bad.json", R"({"cases": [
    {"name": "bad", "input": "scale.py", "pass_config": {"tirx.UnrollLoop": {"auto_max_stp": 1}},
     "disabled_passes": ["NoSuchPass"], "opt_level": "high"}]})");
    Run bad = Workbench({tmp.filePath("bad.json")});
    QCOMPARE(bad.code, 2);
    QVERIFY2(bad.err.contains("case 'bad': field 'pass_config': pass config 'tirx.UnrollLoop' has no field "
                              "'auto_max_stp' (did you mean auto_max_step?)"),
             qPrintable(bad.err));
    QVERIFY(bad.err.contains("case 'bad': field 'disabled_passes': cannot disable unknown pass 'NoSuchPass'"));
    QVERIFY(bad.err.contains("case 'bad': field 'opt_level' must be an integer from 0 to 4"));
    // Batch options do not silently override a manifest's cases.
    Run mixed = Workbench({tmp.filePath("manifest.json"), "--opt-level", "1"});
    QCOMPARE(mixed.code, 2);
    QVERIFY(mixed.err.contains("a manifest sets them per case"));
  }

  void relaxWellFormednessIsCheckedAfterEveryPass() {
    QTemporaryDir tmp;
    QString src = Write(tmp, "impure.py", kImpure);
    Run ok = Workbench({src, "--pipeline", "RemoveNoOp"});
    QVERIFY2(ok.code == 0, qPrintable(ok.err));
    Run broken = Workbench({src, "--pipeline", "RemoveNoOp, TestingMarkPure, RemoveNoOp"});
    QCOMPARE(broken.code, 1);
    // At the call the finding is about, in the file as the user wrote it.
    QVERIFY2(broken.err.contains(src + ":9:13: error: pass 'TestingMarkPure' produced ill-formed IR: "
                                       "impure call to relax.memory.kill_tensor inside a function "
                                       "annotated pure"),
             qPrintable(broken.err));
  }

  void resumeAfterRunsOnlyTheRemainingPasses() {
    QTemporaryDir tmp;
    QString src = Write(tmp, "scale.py", kScaleBlock);
    QString all = tmp.filePath("all");
    Run whole = Workbench({src, "--pipeline", kLowering, "--dump-dir", all});
    QVERIFY2(whole.code == 0, qPrintable(whole.err));
    QString after2 = ReadText(all + "/02-LowerOpaqueBlock.after.py");
    QVERIFY(after2.contains("B[i] = A[i] * T.float32(2.0)"));
    // Unedited, resuming gives what the whole run gave.
    QString same = Write(tmp, "same.py", after2.toUtf8());
    QString resumed = tmp.filePath("resumed");
    Run r = Workbench({src, "--pipeline", kLowering, "--resume-after", "2", "--with", same,
                       "--dump-dir", resumed, "--check", "--pass-config", kUnroll16});
    QVERIFY2(r.code == 0, qPrintable(r.err));
    QCOMPARE(Names(DumpedPasses(resumed)), (QStringList{"UnrollLoop", "RemoveNoOp"}));
    QCOMPARE(DumpedPasses(resumed)[0].toObject()["index"].toInt(), 3);
    QVERIFY(QFile::exists(resumed + "/03-UnrollLoop.before.py"));
    QVERIFY(r.err.contains("resumed after pass 2 on " + same));
    QVERIFY2(r.err.contains("check scale: equal"), qPrintable(r.err));
    QVERIFY(r.out.contains("B[7] = A[7] * T.float32(2.0)"));
    // An edit that changes the numbers is caught by --check against the input.
    QString edited = Write(tmp, "edited.py", QString(after2).replace("2.0", "3.0").toUtf8());
    Run changed = Workbench({src, "--pipeline", kLowering, "--resume-after", "2", "--with", edited, "--check"});
    QCOMPARE(changed.code, 1);
    QVERIFY2(changed.err.contains("the pipeline changed what the module computes"), qPrintable(changed.err));
    QVERIFY(changed.out.isEmpty());
    // An edit that does not parse is reported where it is, nothing runs.
    QString broken = Write(tmp, "broken.py", QString(after2).replace("A[i] *", "A[j] *").toUtf8());
    Run bad = Workbench({src, "--pipeline", kLowering, "--resume-after", "2", "--with", broken});
    QCOMPARE(bad.code, 1);
    QVERIFY2(bad.err.contains(broken + ":") && bad.err.contains("error: undefined name 'j'"), qPrintable(bad.err));
    QVERIFY(!bad.err.contains("UnrollLoop"));
    Run far = Workbench({src, "--pipeline", kLowering, "--resume-after", "4", "--with", same});
    QCOMPARE(far.code, 2);
    QVERIFY2(far.err.contains("the pipeline has 4 passes, so at most 3 can be skipped"), qPrintable(far.err));
    Run alone = Workbench({src, "--pipeline", kLowering, "--resume-after", "1"});
    QCOMPARE(alone.code, 2);
    QVERIFY(alone.err.contains("--resume-after K and --with FILE go together"));
  }

  void attributionFindsTheDefaultSchedule() {
    // A matmul big enough that its default schedule (tiling, vectorizing, threads) matters many
    // times over the naive loop nest the build makes without ApplyDefaultSchedule.
    QTemporaryDir tmp;
    QString src = Write(tmp, "matmul.py", R"(# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(a: R.Tensor((256, 256), dtype="float32"), b: R.Tensor((256, 256), dtype="float32")) -> R.Tensor((256, 256), dtype="float32"):
        with R.dataflow():
            gv = R.matmul(a, b)
            R.output(gv)
        return gv
)");
    QString report = tmp.filePath("report.json");
    Run r = Workbench({src, "--run", "--profile", "--attribute-passes", "--reference", "compiled",
                       "--number", "2", "--repeat", "5", "--json", report});
    QVERIFY2(r.code == 0, qPrintable(r.out + r.err));
    QVERIFY2(r.out.contains("pass attribution (sum of the functions' medians, rebuilt without each pass):"),
             qPrintable(r.out));
    QFile f(report);
    QVERIFY(f.open(QIODevice::ReadOnly));
    QJsonArray passes = QJsonDocument::fromJson(f.readAll()).object()["attribution"].toObject()["passes"].toArray();
    QVERIFY2(passes.size() > 10, qPrintable(r.out));
    // The default schedule's effect is tens of times the kernel's time; the other passes' are
    // noise on a shared machine, so only its own figure is asserted (it was once not the top of
    // a run whose noise gave another pass more).
    std::optional<double> schedule_change;
    QStringList names;
    for (const auto& p : passes) {
      QJsonObject o = p.toObject();
      names << o["pass"].toString();
      if (o["pass"].toString() == "ApplyDefaultSchedule" && o["outcome"].toString() == "timed") {
        schedule_change = o["change_percent"].toDouble();
      }
      if (o["outcome"].toString() != "timed") QVERIFY(!o["message"].toString().isEmpty());
    }
    QVERIFY2(names.contains("LegalizeOps") && names.contains("UnrollLoop"), qPrintable(names.join(", ")));
    QVERIFY2(schedule_change && *schedule_change > 100, qPrintable(r.out));
    // Without --profile there is nothing to attribute.
    Run usage = Workbench({src, "--run", "--attribute-passes"});
    QCOMPARE(usage.code, 2);
    QVERIFY(usage.err.contains("--attribute-passes goes with --run --profile"));
  }

  void emitLlvmAndAsmAreTheBuildPanelsViews() {
    QTemporaryDir tmp;
    QString src = Write(tmp, "scale.py", kScale);
    wb::workbench::BuildRequest request;
    request.module = wb::script::Parse(kScale, src.toStdString()).module;
    request.original = request.module;
    wb::workbench::BuildOutcome built = wb::workbench::BuildModule(request);
    QVERIFY(built.ok());
    const std::pair<const char*, const std::string*> views[] = {
        {"llvm", &built.llvm_ir}, {"llvm-opt", &built.llvm_ir_opt}, {"asm", &built.assembly}};
    for (const auto& [emit, view] : views) {
      Run r = Workbench({src, "--emit", emit});
      QVERIFY2(r.code == 0, qPrintable(r.err));
      QVERIFY2(!view->empty(), emit);
      QCOMPARE(r.out.toStdString(), *view + (view->back() == '\n' ? "" : "\n"));
    }
    QVERIFY(built.llvm_ir.find("define") != std::string::npos);
    QVERIFY(built.assembly.find("scale") != std::string::npos);
    // A build that fails says why, with the target.
    Run bad = Workbench({src, "--emit", "asm", "--target", "nonsense"});
    QCOMPARE(bad.code, 2);
    QVERIFY2(bad.err.contains("nonsense"), qPrintable(bad.err));
  }
};

QTEST_MAIN(TestCliPassControl)
#include "tst_cli_pass_control.moc"
