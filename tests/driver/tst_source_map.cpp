// Source maps (`--emit llvm|llvm-opt|asm --source-map`, in process through driver::RunBatch): the
// build of the printed module carries debug lines, and each line of the views names the line of
// that printed module (FILE.scheduled.py) it came from. The hot loop's vector arithmetic points
// at its block's BufferStore; the debug lines change no instruction, and both builds run and check
// against the reference.
#include <QFile>
#include <QRegularExpression>
#include <QStringList>
#include <QTemporaryDir>
#include <QTest>
#include <sstream>

#include "codegen/source_map.h"
#include "driver/driver.h"
#include "script/tvmscript.h"
#include "transform/registry.h"
#include "workbench/build_session.h"
#include "workbench/source_links.h"

namespace {

using namespace wb;

// A 64x64x64 matmul; the recipe tiles it by 32, runs the tile rows in parallel and vectorizes the
// innermost 32 columns (resources/examples/recipes/matmul_tile.py on a smaller size).
const char* kMatmul = R"(# from tvm.script import ir as I
# from tvm.script import tirx as T

@I.ir_module
class Module:
    @T.prim_func
    def main(A: T.Buffer((64, 64), "float32"), B: T.Buffer((64, 64), "float32"), C: T.Buffer((64, 64), "float32")):
        T.func_attr({"tirx.noalias": True})
        for i, j, k in T.grid(64, 64, 64):
            with T.sblock("C"):
                vi, vj, vk = T.axis.remap("SSR", [i, j, k])
                T.reads(A[vi, vk], B[vk, vj])
                T.writes(C[vi, vj])
                with T.init():
                    C[vi, vj] = T.float32(0.0)
                C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj]
)";

const char* kTile = R"(b0 = sch.get_sblock(name="C", func_name="main")
l1, l2, l3 = sch.get_loops(block=b0)
l4, l5 = sch.split(loop=l1, factors=[None, 32])
l6, l7 = sch.split(loop=l2, factors=[None, 32])
sch.reorder(l4, l6, l5, l3, l7)
sch.parallel(loop=l4)
sch.vectorize(loop=l7)
)";

// A vector add: 1024 elements, the inner 8 vectorized.
const char* kAdd = R"(# from tvm.script import ir as I
# from tvm.script import tirx as T

@I.ir_module
class Module:
    @T.prim_func
    def main(A: T.Buffer((1024,), "float32"), B: T.Buffer((1024,), "float32"), C: T.Buffer((1024,), "float32")):
        T.func_attr({"tirx.noalias": True})
        for i in range(1024):
            with T.sblock("C"):
                vi = T.axis.spatial(1024, i)
                T.reads(A[vi], B[vi])
                T.writes(C[vi])
                C[vi] = A[vi] + B[vi]
)";

const char* kAddVectorize = R"(b0 = sch.get_sblock(name="C", func_name="main")
l1, = sch.get_loops(block=b0)
l2, l3 = sch.split(loop=l1, factors=[None, 8])
sch.vectorize(loop=l3)
)";

// A Relax model: a matmul and an add, both legalized into PrimFuncs by the build, and a kernel
// written in the module called by call_tir.
const char* kRelax = R"(# from tvm.script import ir as I
# from tvm.script import tirx as T
# from tvm.script import relax as R

@I.ir_module
class Module:
    @T.prim_func
    def relu(x: T.Buffer((64, 64), "float32"), y: T.Buffer((64, 64), "float32")):
        for i, j in T.grid(64, 64):
            with T.sblock("relu"):
                vi, vj = T.axis.remap("SS", [i, j])
                T.reads(x[vi, vj])
                T.writes(y[vi, vj])
                y[vi, vj] = T.max(x[vi, vj], T.float32(0.0))

    @R.function
    def main(x: R.Tensor((64, 64), dtype="float32"), w: R.Tensor((64, 64), dtype="float32")) -> R.Tensor((64, 64), dtype="float32"):
        cls = Module
        with R.dataflow():
            lv: R.Tensor((64, 64), dtype="float32") = R.matmul(x, w, out_dtype="void")
            lv1 = R.call_tir(cls.relu, (lv,), out_ty=R.Tensor((64, 64), dtype="float32"))
            gv: R.Tensor((64, 64), dtype="float32") = R.add(lv1, x)
            R.output(gv)
        return gv
)";
constexpr int kRelaxMatmulLine = 20;  // the R.matmul binding
constexpr int kRelaxCallTirLine = 21;
constexpr int kRelaxReluStoreLine = 14;

// An elementwise chain that FuseOps groups into one function and FuseTIR into one PrimFunc, and a
// matmul left alone.
const char* kFusable = R"(# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((64, 64), dtype="float32"), b: R.Tensor((64,), dtype="float32")) -> R.Tensor((64, 64), dtype="float32"):
        with R.dataflow():
            lv = R.add(x, b)
            lv1 = R.nn.relu(lv)
            lv2 = R.multiply(lv1, lv1)
            gv = R.matmul(lv2, x)
            R.output(gv)
        return gv
)";
constexpr int kFusableAddLine = 9;  // add, relu and multiply fuse
constexpr int kFusableMatmulLine = 12;

QString Write(const QTemporaryDir& dir, const QString& name, const char* text) {
  QString path = dir.filePath(name);
  QFile f(path);
  f.open(QIODevice::WriteOnly);
  f.write(text);
  return path;
}

QStringList ReadLines(const QString& path) {
  QFile f(path);
  if (!f.open(QIODevice::ReadOnly)) return {};
  return QString::fromUtf8(f.readAll()).split('\n');
}

struct Batch {
  int code;
  QString out, err;
};

Batch RunBatch(const QStringList& args) {
  std::vector<std::string> argv;
  for (const auto& a : args) argv.push_back(a.toStdString());
  std::ostringstream out, err;
  int code = driver::RunBatch(argv, out, err);
  return {code, QString::fromStdString(out.str()), QString::fromStdString(err.str())};
}

// The lines of `text` matching `instruction`, each with the source line of its trailing
// annotation `<marker> FILE:LINE` (0 when it has none).
std::vector<std::pair<QString, int>> Annotated(const QString& text, const QRegularExpression& instruction,
                                               const QString& file, const QString& marker) {
  std::vector<std::pair<QString, int>> out;
  QRegularExpression tail(QRegularExpression::escape(marker + " " + file + ":") + "(\\d+)$");
  for (const QString& line : text.split('\n')) {
    if (!instruction.match(line).hasMatch()) continue;
    auto m = tail.match(line);
    out.emplace_back(line, m.hasMatch() ? m.captured(1).toInt() : 0);
  }
  return out;
}

// The instructions of an assembly listing without comments: what the code is, without the
// debug directives, labels and sections that debug info adds.
QStringList Instructions(const std::string& assembly) {
  QStringList out;
  for (QString line : QString::fromStdString(assembly).split('\n')) {
    if (!line.startsWith('\t') && !line.startsWith(' ')) continue;
    int hash = line.indexOf('#');
    if (hash >= 0) line.truncate(hash);
    line = line.trimmed();
    if (line.isEmpty() || line.startsWith('.')) continue;
    out << line;
  }
  return out;
}

class TestSourceMap : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  void assemblyFmaMapsToTheBufferStore() {
    QTemporaryDir tmp;
    QString src = Write(tmp, "matmul.py", kMatmul);
    QString recipe = Write(tmp, "tile.py", kTile);
    Batch r = RunBatch({src, "--schedule", recipe, "--emit", "asm", "--source-map"});
    QVERIFY2(r.code == 0, qPrintable(r.err));
    QString printed = src + ".scheduled.py";
    QStringList lines = ReadLines(printed);
    QVERIFY2(lines.size() > 10, qPrintable(printed));
    // The hot loop: vector FMAs (x86 vfmadd*, AArch64 fmla), or multiply and add where the CPU
    // has no FMA.
    QRegularExpression fma("^\\s+(vfmadd\\w*|vfnmadd\\w*|fmla|vmulps|mulps)\\s");
    auto hits = Annotated(r.out, fma, printed, "#");
    if (hits.empty()) hits = Annotated(r.out, fma, printed, "//");
    QVERIFY2(!hits.empty(), qPrintable(r.out));
    for (const auto& [line, at] : hits) {
      QVERIFY2(at > 0 && at <= lines.size(), qPrintable(line));
      QString source = lines[at - 1];
      // The block body's store, not the init's and not a loop header.
      QVERIFY2(source.contains(QRegularExpression("C\\[.*\\] = C\\[.*\\] \\+ A\\[.*\\] \\* B\\[")),
               qPrintable(line + "  ->  " + source));
    }
    // Every instruction of the kernel's loops maps somewhere in the printed module.
    int mapped = 0;
    for (const QString& line : r.out.split('\n')) {
      if (line.contains(QRegularExpression("# " + QRegularExpression::escape(printed) + ":\\d+$"))) ++mapped;
    }
    QVERIFY2(mapped > 10, qPrintable(r.out));
  }

  void llvmIrAddMapsToTheBufferStore() {
    QTemporaryDir tmp;
    QString src = Write(tmp, "add.py", kAdd);
    QString recipe = Write(tmp, "vec.py", kAddVectorize);
    QString dump = tmp.filePath("dump");
    for (const char* emit : {"llvm", "llvm-opt"}) {
      Batch r = RunBatch({src, "--schedule", recipe, "--emit", emit, "--source-map", "--dump-dir", dump});
      QVERIFY2(r.code == 0, qPrintable(r.err));
      // --dump-dir: the printed module goes there, not beside the input.
      QString printed = dump + "/add.py.scheduled.py";
      QVERIFY(QFile::exists(printed));
      QStringList lines = ReadLines(printed);
      auto hits = Annotated(r.out, QRegularExpression("= fadd (fast )?<8 x float>"), printed, ";");
      QVERIFY2(!hits.empty(), qPrintable(r.out));
      for (const auto& [line, at] : hits) {
        QVERIFY2(at > 0 && at <= lines.size(), qPrintable(line));
        QVERIFY2(lines[at - 1].contains(QRegularExpression("C\\[.*\\] = A\\[.*\\] \\+ B\\[")),
                 qPrintable(line + "  ->  " + lines[at - 1]));
      }
      // The store of the sum too.
      auto stores = Annotated(r.out, QRegularExpression("^\\s+store <8 x float>"), printed, ";");
      QVERIFY(!stores.empty());
      for (const auto& [line, at] : stores) QVERIFY2(at > 0 && lines[at - 1].contains("C["), qPrintable(line));
    }
    QVERIFY(!QFile::exists(src + ".scheduled.py"));
  }

  // The same module built with and without debug lines: the same instructions, and both run and
  // check against the reference.
  void debugLinesChangeNoInstructionAndBothBuildsRun() {
    script::ParseResult parsed = script::Parse(kMatmul, "matmul.py");
    QVERIFY(parsed.module.defined());
    QTemporaryDir tmp;
    QString src = Write(tmp, "matmul.py", kMatmul);
    QString recipe = Write(tmp, "tile.py", kTile);
    Batch scheduled = RunBatch({src, "--schedule", recipe, "--emit", "tvmscript"});
    QVERIFY2(scheduled.code == 0, qPrintable(scheduled.err));
    script::ParseResult module = script::Parse(scheduled.out.toStdString(), "scheduled.py");
    QVERIFY(module.module.defined() && !module.diagnostics.HasErrors());
    std::vector<QStringList> code;
    for (bool debug : {false, true}) {
      workbench::BuildRequest request;
      request.module = module.module;
      request.original = parsed.module;
      request.debug_lines = debug;
      workbench::BuildOutcome built = workbench::BuildModule(request);
      QVERIFY2(built.ok(), RenderDiagnostics(built.diagnostics).c_str());
      QCOMPARE(built.llvm_ir.find("!DILocation") != std::string::npos, debug);
      QCOMPARE(built.assembly.find("\t.loc\t") != std::string::npos, debug);
      code.push_back(Instructions(built.assembly));
      workbench::RunRequest run;
      run.number = 1;
      run.repeat = 1;
      workbench::RunOutcome ran = workbench::RunBuilt(built, run);
      QCOMPARE(ran.functions.size(), size_t(1));
      QVERIFY2(ran.functions[0].status == workbench::RunStatus::kOk, ran.functions[0].message.c_str());
      QVERIFY(ran.functions[0].checked());
    }
    QVERIFY(code[0].size() > 20);
    QCOMPARE(code[1], code[0]);
  }

  // A Relax module: the VM build's kernels carry debug lines too, pointing at the printed
  // legalized module, whose matmul PrimFunc (made by LegalizeOps) holds the FMA's store.
  void relaxModuleAssemblyMapsToItsLegalizedKernels() {
    QTemporaryDir tmp;
    QString src = Write(tmp, "model.py", kRelax);
    Batch r = RunBatch({src, "--emit", "asm", "--source-map"});
    QVERIFY2(r.code == 0, qPrintable(r.err));
    QString printed = src + ".scheduled.py";
    QStringList lines = ReadLines(printed);
    QVERIFY2(lines.join('\n').contains("R.call_tir(cls.matmul"), qPrintable(lines.join('\n')));
    QRegularExpression fma("^\\s+(vfmadd\\w*|fmla|vmulps|mulps|vmulss|mulss)\\s");
    auto hits = Annotated(r.out, fma, printed, "#");
    if (hits.empty()) hits = Annotated(r.out, fma, printed, "//");
    QVERIFY2(!hits.empty(), qPrintable(r.out));
    int def = lines.indexOf(QRegularExpression("^\\s+def matmul\\(.*")) + 1;
    QVERIFY(def > 0);
    for (const auto& [line, at] : hits) {
      QVERIFY2(at > def && at <= lines.size(), qPrintable(line));
      QVERIFY2(lines[at - 1].contains(QRegularExpression("\\] = .*\\+ .*\\*")),
               qPrintable(line + "  ->  " + lines[at - 1]));
    }
  }

  // The links of a Relax build (workbench/source_links.h): a binding's kernel and its view lines,
  // and back from a view line to the printed statement and the bindings.
  void relaxBindingsLinkToTheirKernelsLines() {
    script::ParseResult parsed = script::Parse(kRelax, "model.py");
    QVERIFY(parsed.module.defined() && !parsed.diagnostics.HasErrors());
    workbench::BuildRequest request;
    request.module = parsed.module;
    request.original = parsed.module;
    request.link_path = "model.py.scheduled.py";
    workbench::BuildOutcome built = workbench::BuildModule(request);
    QVERIFY2(built.ok(), RenderDiagnostics(built.diagnostics).c_str());
    QVERIFY(built.links);
    const workbench::SourceLinks& links = *built.links;
    QCOMPARE(QString::fromStdString(links.KernelAtDocumentLine(kRelaxMatmulLine)),
             QString("matmul"));
    QCOMPARE(QString::fromStdString(links.KernelAtDocumentLine(kRelaxCallTirLine)),
             QString("relu"));
    QCOMPARE(QString::fromStdString(links.KernelAtDocumentLine(kRelaxReluStoreLine)),
             QString("relu"));
    QVERIFY(links.KernelAtDocumentLine(2).empty());
    QStringList printed = QString::fromStdString(links.printed().text).split('\n');
    QStringList assembly = QString::fromStdString(built.assembly).split('\n');
    for (const char* kernel : {"matmul", "relu", "add"}) {
      std::vector<int> lines = links.ViewLines(kernel, codegen::SourceMapFormat::kAssembly);
      QVERIFY2(!lines.empty(), kernel);
      auto [first, last] = links.PrintedRange(kernel);
      QVERIFY(first > 0 && last > first);
      for (int line : lines) {
        auto origin = links.OriginOfViewLine(line, codegen::SourceMapFormat::kAssembly);
        QVERIFY(origin);
        QCOMPARE(QString::fromStdString(origin->kernel), QString(kernel));
        QVERIFY(origin->printed_line >= first && origin->printed_line <= last);
      }
      QVERIFY(!links.ViewLines(kernel, codegen::SourceMapFormat::kLLVMIR).empty());
    }
    // The relu kernel's max: back at its store in the printed module, and at both its call and its
    // definition in the document.
    bool found = false;
    for (int line : links.ViewLines("relu", codegen::SourceMapFormat::kAssembly)) {
      if (!assembly[line].contains(QRegularExpression("max"))) continue;
      auto origin = links.OriginOfViewLine(line, codegen::SourceMapFormat::kAssembly);
      QVERIFY2(printed[origin->printed_line - 1].contains("T.max("),
               qPrintable(printed[origin->printed_line - 1]));
      QCOMPARE(origin->bindings, std::vector<int>{kRelaxCallTirLine});
      QVERIFY(origin->document_range.first >= 7 && origin->document_range.first <= 8);
      QVERIFY(origin->document_range.second >= kRelaxReluStoreLine);
      found = true;
    }
    QVERIFY2(found, built.assembly.c_str());
  }

  // FuseTIR's PrimFunc knows the bindings it was fused from: FuseOps' call spans them.
  void fusedKernelLinksToEveryBindingItFused() {
    script::ParseResult parsed = script::Parse(kFusable, "fuse.py");
    QVERIFY(parsed.module.defined() && !parsed.diagnostics.HasErrors());
    DiagnosticList diags;
    auto pipeline =
        transform::BuildPipeline("LegalizeOps, AnnotateTIROpPattern, FuseOps, FuseTIR", diags);
    QVERIFY(pipeline);
    workbench::BuildRequest request;
    request.module = pipeline->Run(parsed.module, ir::PassContext::Current());
    request.original = parsed.module;
    request.link_path = "fuse.py.scheduled.py";
    workbench::BuildOutcome built = workbench::BuildModule(request);
    QVERIFY2(built.ok(), RenderDiagnostics(built.diagnostics).c_str());
    QVERIFY(built.links);
    std::string fused = built.links->KernelAtDocumentLine(kFusableAddLine);
    QVERIFY2(QString::fromStdString(fused).startsWith("fused_"), fused.c_str());
    QCOMPARE(built.links->KernelAtDocumentLine(kFusableAddLine + 1), fused);
    QCOMPARE(built.links->KernelAtDocumentLine(kFusableAddLine + 2), fused);
    std::string matmul = built.links->KernelAtDocumentLine(kFusableMatmulLine);
    QVERIFY(!matmul.empty() && matmul != fused);
    std::vector<int> lines = built.links->ViewLines(fused, codegen::SourceMapFormat::kAssembly);
    QVERIFY(!lines.empty());
    auto origin = built.links->OriginOfViewLine(lines.front(), codegen::SourceMapFormat::kAssembly);
    QVERIFY(origin);
    QCOMPARE(origin->bindings,
             (std::vector<int>{kFusableAddLine, kFusableAddLine + 1, kFusableAddLine + 2}));
  }

  void sourceMapNeedsAnLlvmOrAsmView() {
    QTemporaryDir tmp;
    QString src = Write(tmp, "add.py", kAdd);
    Batch r = RunBatch({src, "--emit", "tvmscript", "--source-map"});
    QCOMPARE(r.code, 2);
    QVERIFY2(r.err.contains("--source-map goes with --emit llvm, llvm-opt or asm"), qPrintable(r.err));
  }

  // The annotator on its own: directives, labels and metadata map to nothing.
  void annotatorReadsLocAndDbg() {
    std::string assembly = "\t.file\t1 \"/dir\" \"k.py\"\nmain:\n\t.loc\t1 7 3\n\tvaddps\t%ymm0, %ymm1, %ymm2\n"
                           "\t.loc\t1 0 0\n\tretq\n";
    std::string annotated = codegen::AnnotateSourceLines(assembly, codegen::SourceMapFormat::kAssembly);
    QCOMPARE(QString::fromStdString(annotated),
             QString("\t.file\t1 \"/dir\" \"k.py\"\nmain:\n\t.loc\t1 7 3\n\tvaddps\t%ymm0, %ymm1, %ymm2\t# /dir/k.py:7\n"
                     "\t.loc\t1 0 0\n\tretq\n"));
    std::string ir = "define i32 @f() !dbg !4 {\n  %a = fadd float 1.0, 2.0, !dbg !9\n  ret i32 0\n}\n"
                     "!3 = !DIFile(filename: \"k.py\", directory: \"\")\n"
                     "!4 = distinct !DISubprogram(name: \"f\", scope: !3, file: !3, line: 2)\n"
                     "!9 = !DILocation(line: 5, column: 9, scope: !4)\n";
    std::vector<codegen::SourceLine> map = codegen::MapSourceLines(ir, codegen::SourceMapFormat::kLLVMIR);
    QCOMPARE(map.size(), size_t(7));
    QCOMPARE(map[1].line, 5);
    QCOMPARE(QString::fromStdString(map[1].file), QString("k.py"));
    for (size_t i : {0, 2, 3, 4, 5, 6}) QCOMPARE(map[i].line, 0);
  }
};

}  // namespace

QTEST_MAIN(TestSourceMap)
#include "tst_source_map.moc"
