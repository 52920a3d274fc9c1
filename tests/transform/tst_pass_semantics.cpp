// Every TIR pass keeps the program's meaning: each corpus program and bundled example runs
// through the reference interpreter before and after the pass on seeded random inputs, and every
// buffer must come out the same.
#include <QDir>
#include <QTest>

#include <fstream>
#include <sstream>

#include "script/tvmscript.h"
#include "transform/instrument.h"
#include "transform/registry.h"
#include "workbench/equivalence.h"

using namespace wb;

namespace {

std::vector<std::string> Programs() {
  std::vector<std::string> paths;
  QString root = QString::fromUtf8(qgetenv("WB_SOURCE_DIR"));
  for (const char* dir : {"/tests/script/corpus/tir", "/resources/examples"}) {
    QDir d(root + dir);
    for (const QString& name : d.entryList({"*.py"}, QDir::Files, QDir::Name)) {
      paths.push_back(d.filePath(name).toStdString());
    }
  }
  return paths;
}

}  // namespace

class TestPassSemantics : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  void passesKeepMeaning_data() {
    QTest::addColumn<QString>("pipeline");
    QTest::newRow("LowerInitBlock") << "LowerInitBlock";
    QTest::newRow("to opaque") << "LowerInitBlock, ConvertBlocksToOpaque";
    QTest::newRow("no blocks") << "LowerInitBlock, ConvertBlocksToOpaque, LowerOpaqueBlock";
    QTest::newRow("Simplify") << "Simplify";
    QTest::newRow("RemoveNoOp") << "RemoveNoOp";
    QTest::newRow("all") << "LowerInitBlock, ConvertBlocksToOpaque, LowerOpaqueBlock, Simplify, "
                            "RemoveNoOp";
    QTest::newRow("flat") << "LowerInitBlock, ConvertBlocksToOpaque, LowerOpaqueBlock, FlattenBuffer";
    QTest::newRow("tir_lowering") << "tir_lowering";
  }
  void passesKeepMeaning() {
    QFETCH(QString, pipeline);
    DiagnosticList diags;
    auto pass = transform::BuildPipeline(pipeline.toStdString(), diags);
    QVERIFY(pass.has_value());
    int compared = 0, programs = 0;
    QStringList problems;
    for (const auto& path : Programs()) {
      std::ifstream in(path);
      std::stringstream buf;
      buf << in.rdbuf();
      auto parsed = script::Parse(buf.str(), path);
      if (!parsed.ok()) continue;
      auto run = transform::RunPipeline(*pass, parsed.module);
      // A pass may refuse a program it does not handle (match_buffer before LowerMatchBuffer),
      // but it must say so; it must never produce something different.
      if (!run.ok()) continue;
      ++programs;
      workbench::EquivalenceOptions opts;
      opts.seed = 42;
      opts.max_elements = 1 << 18;
      opts.max_iterations = 300'000;
      for (const auto& check : workbench::CheckEquivalence(parsed.module, run.module, opts)) {
        using O = workbench::FunctionCheck::Outcome;
        if (check.outcome == O::kEqual) ++compared;
        if (check.outcome == O::kDifferent || check.outcome == O::kFailed) {
          problems << QString::fromStdString(path + ": " + check.name + ": " + check.detail);
        }
      }
    }
    qInfo("%s: %d functions compared over %d programs", qPrintable(pipeline), compared, programs);
    QVERIFY2(problems.isEmpty(), qPrintable(problems.join('\n')));
    // The check must have real coverage, not vacuously pass.
    QVERIFY2(compared >= 30, qPrintable(QString("only %1 functions compared over %2 programs")
                                            .arg(compared)
                                            .arg(programs)));
  }

  // The oracle itself notices a wrong transformation.
  void equivalenceCatchesAChange() {
    const char* before = R"(# from tvm.script import tirx as T

@T.prim_func
def main(A: T.Buffer((8,), "float32"), B: T.Buffer((8,), "float32")):
    for i in range(8):
        B[i] = A[i] * T.float32(2.0))";
    std::string after = before;
    after.replace(after.find("2.0"), 3, "3.0");
    auto a = script::Parse(before, "a.py");
    auto b = script::Parse(after, "b.py");
    QVERIFY(a.ok() && b.ok());
    auto checks = workbench::CheckEquivalence(a.module, b.module);
    QCOMPARE(checks.size(), size_t(1));
    QCOMPARE(int(checks[0].outcome), int(workbench::FunctionCheck::Outcome::kDifferent));
    QVERIFY2(checks[0].detail.find("buffer 'B' differs") != std::string::npos,
             checks[0].detail.c_str());
    QCOMPARE(int(workbench::CheckEquivalence(a.module, a.module)[0].outcome),
             int(workbench::FunctionCheck::Outcome::kEqual));
  }
};

QTEST_APPLESS_MAIN(TestPassSemantics)
#include "tst_pass_semantics.moc"
