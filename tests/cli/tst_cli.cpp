// End-to-end tests of `workbench --batch`: start the real binary, check exit codes, output and
// reports, as CI scripts will use it.
#include <QDir>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QRegularExpression>
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
  p.waitForFinished(120000);
  return {p.exitCode(), QString::fromUtf8(p.readAllStandardOutput()),
          QString::fromUtf8(p.readAllStandardError())};
}

// The binary without --batch: the GUI's command line.
Run Gui(const QStringList& args) {
  QProcess p;
  p.start(QStringLiteral(WB_WORKBENCH_BIN), args);
  p.waitForFinished(120000);
  return {p.exitCode(), QString::fromUtf8(p.readAllStandardOutput()),
          QString::fromUtf8(p.readAllStandardError())};
}

QString Write(const QTemporaryDir& dir, const QString& name, const QByteArray& text) {
  QString path = dir.filePath(name);
  QFile f(path);
  f.open(QIODevice::WriteOnly);
  f.write(text);
  return path;
}

const char* kScale = R"(# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis

@T.prim_func
def scale(A: T.Buffer((8,), "float32"), B: T.Buffer((8,), "float32")):
    # with T.sblock("root"):
    for i in range(8):
        with T.sblock("B"):
            vi = T.axis.spatial(8, i)
            T.reads(A[vi])
            T.writes(B[vi])
            B[vi] = A[vi] * T.float32(2.0))";

// A Relax module whose kernel `clobber` writes its input although it is called through the pure
// R.call_tir: removing its unused result (DeadCodeElimination) changes what `main` returns, which
// --check must catch.
const char* kRelaxClobber = R"(@I.ir_module
class Module:
    @T.prim_func(private=True)
    def add(x: T.Buffer((4,), "float32"), y: T.Buffer((4,), "float32"), out: T.Buffer((4,), "float32")):
        for i in range(4):
            out[i] = x[i] + y[i]

    @T.prim_func(private=True)
    def clobber(x: T.Buffer((4,), "float32"), out: T.Buffer((4,), "float32")):
        x[0] = T.float32(100.0)
        for i in range(4):
            out[i] = x[i]

    @R.function
    def main(x: R.Tensor((4,), dtype="float32")) -> R.Tensor((4,), dtype="float32"):
        cls = Module
        with R.dataflow():
            unused = R.call_tir(cls.clobber, (x,), out_ty=R.Tensor((4,), dtype="float32"))
            lv = R.call_tir(cls.add, (x, x), out_ty=R.Tensor((4,), dtype="float32"))
            gv = lv
            R.output(gv)
        return gv)";

}  // namespace

class TestCli : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  void roundTripOfExamplesPassesAndWritesJson() {
    QTemporaryDir tmp;
    QDir examples(QString::fromUtf8(qgetenv("WB_SOURCE_DIR")) + "/resources/examples");
    QStringList files;
    for (const QString& name : examples.entryList({"*.py"}, QDir::Files, QDir::Name)) {
      files << examples.filePath(name);
    }
    QVERIFY(files.size() >= 4);
    QString json = tmp.filePath("report.json");
    Run r = Workbench(files + QStringList{"--roundtrip", "--json", json});
    QVERIFY2(r.code == 0, qPrintable(r.out + r.err));
    QVERIFY(r.out.contains(QString("%1 passed, 0 failed").arg(files.size())));
    QFile f(json);
    QVERIFY(f.open(QIODevice::ReadOnly));
    QJsonArray entries = QJsonDocument::fromJson(f.readAll()).object()["files"].toArray();
    QCOMPARE(entries.size(), files.size());
    for (const auto& e : entries) QCOMPARE(e.toObject()["status"].toString(), QString("ok"));
  }

  void syntaxErrorIsReportedClangStyle() {
    QTemporaryDir tmp;
    QString bad = Write(tmp, "bad.py",
                        "@T.prim_func\ndef f(A: T.Buffer((4,), \"float32\")):\n"
                        "    for i in range(4):\n        A[i] = B[i]\n");
    Run r = Workbench({bad, "--roundtrip"});
    QCOMPARE(r.code, 1);
    QVERIFY2(r.err.contains(bad + ":4:16: error: undefined name 'B'"), qPrintable(r.err));
    QVERIFY(r.err.contains("^"));
    QVERIFY(r.out.contains("FAILED"));
  }

  void missingFileExitsWithTwo() {
    Run r = Workbench({"/nonexistent/x.py", "--roundtrip"});
    QCOMPARE(r.code, 2);
    QVERIFY(r.err.contains("cannot read file"));
  }

  void badUsageExitsWithTwo() {
    QCOMPARE(Workbench({}).code, 2);
    Run r = Workbench({"x.py", "--frobnicate"});
    QCOMPARE(r.code, 2);
    // The message and a one-line hint, not the whole usage burying it.
    QCOMPARE(r.err,
             QString("workbench: unknown option '--frobnicate'\n"
                     "workbench: run with --help (workbench --batch --help) for the usage\n"));
    // The same for a bad value and for a bad combination of options.
    for (const QStringList& args :
         {QStringList{"x.py", "--number", "many"}, QStringList{"x.py", "--source-map"}}) {
      Run bad = Workbench(args);
      QCOMPARE(bad.code, 2);
      QVERIFY2(
          bad.err.endsWith("workbench: run with --help (workbench --batch --help) for the usage\n"),
          qPrintable(bad.err));
      QVERIFY2(bad.err.count('\n') <= 3 && !bad.err.contains("usage: workbench"),
               qPrintable(bad.err));
    }
    // A bad number says what was expected (not CLI11's range of doubles).
    QCOMPARE(Workbench({"x.py", "--number", "many"}).err.section('\n', 0, 0),
             QString("workbench: --number: expected a positive integer, got 'many'"));
    QCOMPARE(Workbench({"x.py", "--repeat", "0"}).err.section('\n', 0, 0),
             QString("workbench: --repeat: must be positive, got 0"));
    QCOMPARE(Workbench({"x.py", "--min-repeat-ms", "-3"}).err.section('\n', 0, 0),
             QString("workbench: --min-repeat-ms: must be zero or more, got -3"));
  }

  void emitPrintsCanonicalForm() {
    QTemporaryDir tmp;
    // Legacy handle + match_buffer, omitted reads/writes, untyped literal.
    QString src = Write(tmp, "legacy.py",
                        "from tvm.script import tirx as T\n"
                        "@T.prim_func\ndef scale(a: T.handle, b: T.handle):\n"
                        "    A = T.match_buffer(a, (8,))\n    B = T.match_buffer(b, [8])\n"
                        "    for i in T.serial(0, 8):\n        with T.sblock(\"B\"):\n"
                        "            vi = T.axis.S(8, i)\n            B[vi] = A[vi] * 2.0\n");
    Run r = Workbench({src, "--emit", "tvmscript"});
    QVERIFY2(r.code == 0, qPrintable(r.err));
    QCOMPARE(r.out.trimmed(), QString(kScale));
  }

  void compareEqualAndDifferent() {
    QTemporaryDir tmp;
    QString a = Write(tmp, "a.py", kScale);
    QByteArray renamed = QByteArray(kScale).replace("vi", "v0").replace("for i", "for k")
                             .replace(", i)", ", k)");
    QString b = Write(tmp, "b.py", renamed);
    Run same = Workbench({a, "--compare", b});
    QVERIFY2(same.code == 0, qPrintable(same.out + same.err));
    QVERIFY(same.out.contains("structurally equal"));

    QString c = Write(tmp, "c.py", QByteArray(kScale).replace("T.float32(2.0)", "T.float32(3.0)"));
    Run diff = Workbench({a, "--compare", c});
    QCOMPARE(diff.code, 1);
    QVERIFY(diff.out.contains("not structurally equal"));
    QVERIFY2(diff.out.contains(".value"), qPrintable(diff.out));
    // The mismatching literal is underlined in both sources.
    QVERIFY2(diff.out.contains("T.float32(3.0)") && diff.out.contains("^~"), qPrintable(diff.out));
  }

  // A module of three functions: each that differs is listed (aligned by name, a consistent
  // renaming of loop and block variables is no difference), not only the first.
  void compareListsEveryFunctionThatDiffers() {
    auto func = [](const QByteArray& name, const QByteArray& factor, const QByteArray& var) {
      return "    @T.prim_func\n    def " + name + "(A: T.Buffer((8,), \"float32\"), B: T.Buffer((8,), \"float32\")):\n"
             "        for " + var + " in range(8):\n"
             "            with T.sblock(\"B\"):\n"
             "                v" + var + " = T.axis.spatial(8, " + var + ")\n"
             "                T.reads(A[v" + var + "])\n"
             "                T.writes(B[v" + var + "])\n"
             "                B[v" + var + "] = A[v" + var + "] * T.float32(" + factor + ")\n";
    };
    QByteArray head = "# from tvm.script import ir as I\n# from tvm.script import tirx as T\n\n@I.ir_module\nclass Module:\n";
    QByteArray a = head + func("f", "2.0", "i") + func("g", "2.0", "i") + func("h", "2.0", "i");
    // f: only renamed; g and h: a different literal.
    QByteArray b = head + func("f", "2.0", "k") + func("g", "3.0", "k") + func("h", "4.0", "i");
    QTemporaryDir tmp;
    Run r = Workbench({Write(tmp, "a.py", a), "--compare", Write(tmp, "b.py", b)});
    QCOMPARE(r.code, 1);
    QVERIFY2(r.out.contains("2 function(s) differ"), qPrintable(r.out));
    QVERIFY2(r.out.contains("function g: ") && r.out.contains("function h: "), qPrintable(r.out));
    QVERIFY2(!r.out.contains("function f:"), qPrintable(r.out));
    QVERIFY2(r.out.contains("T.float32(3.0)") && r.out.contains("T.float32(4.0)"), qPrintable(r.out));
    // A function on one side only is named with its side.
    QByteArray c = head + func("f", "2.0", "i") + func("g", "2.0", "i");
    Run only = Workbench({Write(tmp, "a2.py", a), "--compare", Write(tmp, "c.py", c)});
    QCOMPARE(only.code, 1);
    QVERIFY2(only.out.contains("function h: only in"), qPrintable(only.out));
    QVERIFY2(only.out.contains("1 function(s) differ"), qPrintable(only.out));
  }

  // Inside one function, every place it differs is listed and underlined, not only the first; a
  // renamed variable is still no difference.
  void compareListsEveryMismatchInsideAFunction() {
    QByteArray two = QByteArray(kScale).replace("T.float32(2.0)", "T.float32(3.0)");
    // A second change: the loop's extent; and the loop renamed, which is no change.
    two.replace("range(8)", "range(7)").replace("for i", "for k").replace(", i)", ", k)");
    QVERIFY(two.contains("range(7)") && two.contains("T.float32(3.0)"));
    QTemporaryDir tmp;
    Run r = Workbench({Write(tmp, "a.py", kScale), "--compare", Write(tmp, "b.py", two)});
    QCOMPARE(r.code, 1);
    QVERIFY2(r.out.contains("function scale: 2 mismatches"), qPrintable(r.out));
    QVERIFY2(r.out.contains(": 8 vs 7"), qPrintable(r.out));
    QVERIFY2(r.out.contains(": 2 vs 3"), qPrintable(r.out));
    QVERIFY2(r.out.contains("range(7)") && r.out.contains("T.float32(3.0)"), qPrintable(r.out));
    QCOMPARE(r.out.count(QRegularExpression("^  at root\\.", QRegularExpression::MultilineOption)),
             2);
    // The literal extent has no span of its own: its loop's line is underlined instead.
    QVERIFY2(!r.out.contains("no source location"), qPrintable(r.out));
    QVERIFY2(r.out.contains("(within the tirx.For here)"), qPrintable(r.out));
    QVERIFY2(r.out.contains("b.py:") && r.out.contains("for k in range(7):\n        ^"), qPrintable(r.out));
  }

  void pipelineWithDumpDir() {
    QTemporaryDir tmp;
    QString src = Write(tmp, "scale.py", kScale);
    QString dump = tmp.filePath("dump");
    Run r = Workbench({src, "--pipeline", "ConvertBlocksToOpaque, LowerOpaqueBlock, RemoveNoOp",
                       "--dump-dir", dump, "--check"});
    QVERIFY2(r.code == 0, qPrintable(r.err));
    QVERIFY2(r.err.contains("check scale: equal"), qPrintable(r.err));
    QVERIFY2(!r.out.contains("T.sblock"), qPrintable(r.out));
    QVERIFY(r.out.contains("B[i] = A[i] * T.float32(2.0)"));
    QVERIFY(QFile::exists(dump + "/01-ConvertBlocksToOpaque.before.py"));
    QVERIFY(QFile::exists(dump + "/02-LowerOpaqueBlock.after.py"));
    QFile json(dump + "/passes.json");
    QVERIFY(json.open(QIODevice::ReadOnly));
    QJsonArray passes = QJsonDocument::fromJson(json.readAll()).object()["passes"].toArray();
    QCOMPARE(passes.size(), 3);
    QCOMPARE(passes[1].toObject()["name"].toString(), QString("LowerOpaqueBlock"));
    QCOMPARE(passes[1].toObject()["changed"].toBool(), true);
    QCOMPARE(passes[2].toObject()["changed"].toBool(), false);
  }

  void pipelineErrors() {
    QTemporaryDir tmp;
    QString src = Write(tmp, "scale.py", kScale);
    Run unknown = Workbench({src, "--pipeline", "RemoveNoOp, Bogus"});
    QCOMPARE(unknown.code, 2);
    QVERIFY2(unknown.err.contains("unknown pass 'Bogus'"), qPrintable(unknown.err));
    // A pass that cannot apply is named, with the reason.
    Run refused = Workbench({src, "--pipeline", "LowerOpaqueBlock"});
    QCOMPARE(refused.code, 1);
    QVERIFY2(refused.err.contains("pass 'LowerOpaqueBlock' failed: block 'B' is not opaque"),
             qPrintable(refused.err));
    Run listed = Workbench({"--list-passes"});
    QCOMPARE(listed.code, 0);
    QVERIFY(listed.out.contains("LowerInitBlock"));
  }

  void relaxCheckRunsRelaxFunctions() {
    QTemporaryDir tmp;
    QString src = Write(tmp, "relax.py", kRelaxClobber);
    Run same = Workbench({src, "--pipeline", "ToNonDataflow, CanonicalizeBindings", "--check"});
    QVERIFY2(same.code == 0, qPrintable(same.err));
    QVERIFY2(same.err.contains("check main: equal"), qPrintable(same.err));
    QVERIFY2(same.out.contains("return lv") && !same.out.contains("R.dataflow"), qPrintable(same.out));
    // The kernel-level check passes for every PrimFunc, the Relax-level one does not.
    Run changed = Workbench({src, "--pipeline", "DeadCodeElimination", "--check"});
    QCOMPARE(changed.code, 1);
    QVERIFY2(changed.err.contains("check main: different"), qPrintable(changed.err));
    QVERIFY2(changed.err.contains("the pipeline changed what the module computes"),
             qPrintable(changed.err));
    QVERIFY2(changed.err.contains("Relax function main:") &&
                 changed.err.contains("max abs error"),
             qPrintable(changed.err));
  }

  void relaxCheckEvaluatesOpsThroughLegalization() {
    QTemporaryDir tmp;
    QString src = Write(tmp, "mlp.py", R"(@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2, 8), dtype="float32"), w: R.Tensor((8, 4), dtype="float32"), b: R.Tensor((4,), dtype="float32")) -> R.Tensor((2, 4), dtype="float32"):
        with R.dataflow():
            lv = R.matmul(x, w)
            lv1 = R.add(lv, b)
            gv = R.nn.relu(lv1)
            R.output(gv)
        return gv)");
    Run r = Workbench({src, "--pipeline", "default_build_pipeline", "--check"});
    QVERIFY2(r.code == 0, qPrintable(r.err));
    QVERIFY2(r.err.contains("check main: equal"), qPrintable(r.err));
    QVERIFY2(r.out.contains("R.builtin.alloc_tensor("), qPrintable(r.out));
  }

  void ignoreGlobalSymbol() {
    QTemporaryDir tmp;
    QString a = Write(tmp, "a.py", kScale);
    QString b = Write(tmp, "b.py", QByteArray(kScale).replace("def scale", "def other"));
    QCOMPARE(Workbench({a, "--compare", b}).code, 1);
    Run r = Workbench({a, "--compare", b, "--ignore-global-symbol"});
    QVERIFY2(r.code == 0, qPrintable(r.out + r.err));
  }
  void helpAndVersion() {
    Run help = Workbench({"--help"});
    QVERIFY2(help.code == 0, qPrintable(help.err));
    QVERIFY2(help.out.startsWith("The workbench without a window"), qPrintable(help.out));
    QVERIFY(help.out.contains("usage: workbench --batch"));
    for (const char* option : {"--reference", "--check-each", "--number", "--flush-cache", "--jobs", "--list-passes"}) {
      QVERIFY2(help.out.contains(option), option);
    }
    Run version = Workbench({"--version"});
    QCOMPARE(version.code, 0);
    QVERIFY2(version.out.startsWith("workbench 0."), qPrintable(version.out));
    // The GUI's own, answered without a display.
    Run gui_help = Gui({"--help"});
    QVERIFY2(gui_help.code == 0, qPrintable(gui_help.err));
    QVERIFY(gui_help.out.contains("--screenshot") && gui_help.out.contains("workbench --batch --help"));
    Run gui_version = Gui({"--version"});
    QCOMPARE(gui_version.code, 0);
    QCOMPARE(gui_version.out, version.out);
  }

  void numbersAreValidated() {
    QTemporaryDir tmp;
    QString src = Write(tmp, "scale.py", kScale);
    for (const QStringList& bad : {QStringList{"--number", "5x"}, QStringList{"--repeat", "0"},
                                   QStringList{"--number", "-3"}}) {
      Run r = Workbench(QStringList{src, "--run", "--profile"} + bad);
      QVERIFY2(r.code == 2, qPrintable(bad.join(' ')));
      QVERIFY2(r.err.contains("--" + bad[0].mid(2)), qPrintable(r.err));
    }
    Run reference = Workbench({src, "--run", "--reference", "oracle"});
    QCOMPARE(reference.code, 2);
    QVERIFY2(reference.err.contains("--reference"), qPrintable(reference.err));
  }

  void guiTakesQtOptions() {
    QTemporaryDir tmp;
    QString src = Write(tmp, "scale.py", kScale);
    QString png = tmp.filePath("shot.png");
    Run r = Gui({"-platform", "offscreen", src, "--screenshot", png});
    QVERIFY2(r.code == 0, qPrintable(r.err));
    QVERIFY(QFile::exists(png));
    Run unknown = Gui({"-platform", "offscreen", "--frobnicate"});
    QCOMPARE(unknown.code, 2);
    QVERIFY2(unknown.err.contains("frobnicate"), qPrintable(unknown.err));
  }

  void theReferenceIsChosenAndReported() {
    QTemporaryDir tmp;
    QString src = Write(tmp, "scale.py", kScale);
    QString json = tmp.filePath("run.json");
    Run r = Workbench({src, "--run", "--reference", "compiled", "--json", json});
    QVERIFY2(r.code == 0, qPrintable(r.out + r.err));
    QVERIFY2(r.out.contains("reference: compiled\n"), qPrintable(r.out));
    QVERIFY2(r.out.contains("ok      scale  matches the compiled reference"), qPrintable(r.out));
    QFile f(json);
    QVERIFY(f.open(QIODevice::ReadOnly));
    QJsonObject report = QJsonDocument::fromJson(f.readAll()).object();
    QCOMPARE(report["reference"].toString(), QString("compiled"));
    QCOMPARE(report["functions"].toArray()[0].toObject()["reference"].toString(), QString("compiled"));
    Run none = Workbench({src, "--run", "--reference", "none"});
    QVERIFY2(none.out.contains("ok      scale  ran"), qPrintable(none.out));
    Run automatic = Workbench({src, "--run"});
    QVERIFY2(automatic.out.contains("reference: auto (the interpreter up to"), qPrintable(automatic.out));
    QVERIFY2(automatic.out.contains("matches the interpreter"), qPrintable(automatic.out));
  }

  void runBuildsChecksAndProfiles() {
    QTemporaryDir tmp;
    QString src = Write(tmp, "scale.py", kScale);
    QString json = tmp.filePath("run.json");
    Run r = Workbench({src, "--target", "llvm", "--run", "--inputs", "random", "--profile", "--number", "2",
                       "--repeat", "3", "--json", json});
    QVERIFY2(r.code == 0, qPrintable(r.out + r.err));
    QVERIFY2(r.out.contains("ok      scale  matches the interpreter  median "), qPrintable(r.out));
    QVERIFY2(r.out.contains("3 x 2 calls") && r.out.contains("GFLOP/s"), qPrintable(r.out));
    QVERIFY2(r.out.contains("1 passed, 0 failed"), qPrintable(r.out));
    QFile f(json);
    QVERIFY(f.open(QIODevice::ReadOnly));
    QJsonObject report = QJsonDocument::fromJson(f.readAll()).object();
    QVERIFY(report["target"].toString().startsWith("llvm -mcpu="));
    QJsonObject fn = report["functions"].toArray()[0].toObject();
    QCOMPARE(fn["name"].toString(), QString("scale"));
    QCOMPARE(fn["status"].toString(), QString("ok"));
    QCOMPARE(fn["checked"].toBool(), true);
    QCOMPARE(fn["samples_s"].toArray().size(), 3);
    QCOMPARE(fn["flops"].toDouble(), 8.0);  // one multiply per element
    QVERIFY(fn["gflops_per_s"].toDouble() > 0);
  }

  void runErrorsAreClear() {
    QTemporaryDir tmp;
    QString src = Write(tmp, "scale.py", kScale);
    Run target = Workbench({src, "--target", "cuda", "--run"});
    // The kernel is not bound to GPU threads: the build fails naming the block and its line.
    QCOMPARE(target.code, 1);
    QVERIFY2(target.err.contains("scale.py:") && target.err.contains("is not bound to GPU threads"),
             qPrintable(target.err));
    Run unknown = Workbench({src, "--target", "rocm", "--run"});
    QCOMPARE(unknown.code, 2);
    QVERIFY2(unknown.err.contains("--target: unknown target kind 'rocm'"), qPrintable(unknown.err));
    Run orphan = Workbench({src, "--profile"});
    QCOMPARE(orphan.code, 2);
    QVERIFY2(orphan.err.contains("--target, --inputs and --profile go with --run"), qPrintable(orphan.err));
    // Symbolic shapes cannot be made up: the function is reported, the run fails.
    QString sym = Write(tmp, "sym.py", R"(from tvm.script import tirx as T

@T.prim_func
def neg(a: T.handle, b: T.handle):
    n = T.int32()
    A = T.match_buffer(a, (n,), "float32")
    B = T.match_buffer(b, (n,), "float32")
    for i in range(n):
        B[i] = T.float32(0.0) - A[i]
)");
    Run symbolic = Workbench({sym, "--run"});
    QCOMPARE(symbolic.code, 1);
    QVERIFY2(symbolic.out.contains("FAILED  neg: failed: the shape of A is symbolic"), qPrintable(symbolic.out));
    // An input file binds n; the output is made with that shape.
    QDir(tmp.path()).mkdir("inputs");
    QByteArray header = "{'descr': '<f4', 'fortran_order': False, 'shape': (5,), }";
    while ((10 + header.size() + 1) % 64 != 0) header += ' ';
    header += '\n';
    QByteArray npy("\x93NUMPY\x01\x00", 8);
    npy += char(header.size() & 0xff);
    npy += char(header.size() >> 8);
    npy += header;
    for (float v : {1.0f, -2.0f, 3.5f, 0.0f, 8.0f}) npy.append(reinterpret_cast<const char*>(&v), 4);
    Write(tmp, "inputs/A.npy", npy);
    Run with_inputs = Workbench({sym, "--run", "--inputs", tmp.filePath("inputs")});
    QVERIFY2(with_inputs.code == 0, qPrintable(with_inputs.out + with_inputs.err));
    QVERIFY2(with_inputs.out.contains("ok      neg  matches the interpreter"), qPrintable(with_inputs.out));
  }

  // --- --schedule (a recipe applied onto a PrimFunc) -------------------------------------------

  void scheduleAppliesRecipeAndChecks() {
    QTemporaryDir tmp;
    QString src = Write(tmp, "scale.py", kScale);
    QString recipe = Write(tmp, "recipe.py",
                           "# tile the loop by 4\n"
                           "b = sch.get_sblock(\"B\")\n"
                           "l, = sch.get_loops(b)\n"
                           "outer, inner = sch.split(l, factors=[None, 4])\n"
                           "sch.annotate(outer, \"note\", \"tiled\")\n");
    Run r = Workbench({src, "--schedule", recipe, "--emit", "tvmscript", "--check"});
    QVERIFY2(r.code == 0, qPrintable(r.err));
    QVERIFY2(r.out.contains("for i_0 in T.serial(2, annotations={\"note\": \"tiled\"}):"),
             qPrintable(r.out));
    QVERIFY2(r.out.contains("vi = T.axis.spatial(8, i_0 * 4 + i_1)"), qPrintable(r.out));
    QVERIFY2(r.err.contains("check scale: equal"), qPrintable(r.err));
    // --emit is the default output of --schedule.
    Run plain = Workbench({src, "--schedule", recipe});
    QCOMPARE(plain.code, 0);
    QCOMPARE(plain.out, r.out);
  }

  void scheduleRecipeErrorHasPosition() {
    QTemporaryDir tmp;
    QString src = Write(tmp, "scale.py", kScale);
    QString recipe = Write(tmp, "recipe.py",
                           "b = sch.get_sblock(\"B\")\n"
                           "sch.split(l, factors=[None, 4])\n");
    Run r = Workbench({src, "--schedule", recipe});
    QCOMPARE(r.code, 1);
    QVERIFY2(r.err.contains(recipe + ":2:11: error: name 'l' is not defined"), qPrintable(r.err));
    // A primitive that does not apply is reported at its statement.
    QString refused = Write(tmp, "refused.py",
                            "b = sch.get_sblock(\"B\")\n"
                            "sch.unannotate(b, \"missing\")\n");
    Run r2 = Workbench({src, "--schedule", refused});
    QCOMPARE(r2.code, 1);
    QVERIFY2(r2.err.contains(refused + ":2:1: error: ScheduleError: An error occurred in the "
                                       "schedule primitive 'unannotate'"),
             qPrintable(r2.err));
    QVERIFY2(r2.err.contains("Cannot find annotation key: missing"), qPrintable(r2.err));
  }

  void scheduleCheckReportsMismatch() {
    // The block reads the transposed element of what it writes: TVM's checks allow reordering
    // its data-parallel loops, but the order of the element updates changes the result.
    QTemporaryDir tmp;
    QString src = Write(tmp, "transpose_acc.py", R"(@T.prim_func
def main(A: T.Buffer((4, 4), "float32"), B: T.Buffer((4, 4), "float32")):
    for i, j in T.grid(4, 4):
        with T.sblock("B"):
            vi, vj = T.axis.remap("SS", [i, j])
            T.reads(B[vj, vi], A[vi, vj])
            T.writes(B[vi, vj])
            B[vi, vj] = B[vj, vi] + A[vi, vj]
)");
    QString recipe = Write(tmp, "recipe.py",
                           "i, j = sch.get_loops(\"B\")\n"
                           "sch.reorder(j, i)\n");
    Run unchecked = Workbench({src, "--schedule", recipe});
    QCOMPARE(unchecked.code, 0);
    Run r = Workbench({src, "--schedule", recipe, "--check"});
    QCOMPARE(r.code, 1);
    QVERIFY2(r.err.contains("function `main` computes differently after the schedule"),
             qPrintable(r.err));
    QVERIFY2(r.err.contains("max abs error"), qPrintable(r.err));
    QVERIFY(r.out.isEmpty());
  }

  void scheduleChoosesFunction() {
    QTemporaryDir tmp;
    QString src = Write(tmp, "two.py", R"(@I.ir_module
class Module:
    @T.prim_func
    def first(A: T.Buffer((8,), "float32"), B: T.Buffer((8,), "float32")):
        for i in range(8):
            with T.sblock("B"):
                vi = T.axis.spatial(8, i)
                T.reads(A[vi])
                T.writes(B[vi])
                B[vi] = A[vi] * T.float32(2.0)

    @T.prim_func
    def second(A: T.Buffer((8,), "float32"), B: T.Buffer((8,), "float32")):
        for i in range(8):
            with T.sblock("B"):
                vi = T.axis.spatial(8, i)
                T.reads(A[vi])
                T.writes(B[vi])
                B[vi] = A[vi] + T.float32(1.0)
)");
    QString recipe = Write(tmp, "recipe.py", "l, = sch.get_loops(\"B\")\nsch.parallel(l)\n");
    // Two functions and none named main: the recipe needs --func.
    Run none = Workbench({src, "--schedule", recipe});
    QCOMPARE(none.code, 1);
    QVERIFY2(none.err.contains("does not know which function"), qPrintable(none.err));
    Run r = Workbench({src, "--schedule", recipe, "--func", "second", "--check"});
    QVERIFY2(r.code == 0, qPrintable(r.err));
    int first = r.out.indexOf("def first");
    int second = r.out.indexOf("def second");
    QVERIFY(first >= 0 && second > first);
    QVERIFY2(r.out.indexOf("T.parallel(8)") > second, qPrintable(r.out));
    QVERIFY(!r.out.mid(first, second - first).contains("T.parallel"));
    Run unknown = Workbench({src, "--schedule", recipe, "--func", "third"});
    QCOMPARE(unknown.code, 2);
    QVERIFY2(unknown.err.contains("the module has no PrimFunc named \"third\""),
             qPrintable(unknown.err));
    Run usage = Workbench({src, "--emit", "tvmscript", "--func", "second"});
    QCOMPARE(usage.code, 2);
    QVERIFY(usage.err.contains("--func needs --schedule"));
    Run missing = Workbench({src, "--schedule", tmp.filePath("nope.py")});
    QCOMPARE(missing.code, 2);
    QVERIFY(missing.err.contains("cannot read file"));
  }
};

QTEST_APPLESS_MAIN(TestCli)
#include "tst_cli.moc"
