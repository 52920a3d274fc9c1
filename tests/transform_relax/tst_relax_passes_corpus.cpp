// Every general Relax pass on every program of the Relax corpus (tests/script/corpus/relax):
// no pass fails, the result is well-formed when the input is, prints to text that parses back,
// and, after all of them, every function the interpreter can run computes the same as before.
#include <QDir>
#include <QTest>

#include <fstream>
#include <sstream>

#include "relax/well_formed.h"
#include "relax_pass_test.h"

using namespace relax_pass_test;
using namespace wb;

namespace {

std::vector<std::pair<std::string, std::string>> Corpus() {
  std::vector<std::pair<std::string, std::string>> files;
  QDir dir(QString::fromUtf8(qgetenv("WB_SOURCE_DIR")) + "/tests/script/corpus/relax");
  for (const QString& name : dir.entryList({"*.py"}, QDir::Files, QDir::Name)) {
    std::ifstream in(dir.filePath(name).toStdString(), std::ios::binary);
    std::ostringstream buf;
    buf << in.rdbuf();
    files.emplace_back(name.toStdString(), buf.str());
  }
  return files;
}

}  // namespace

class TestRelaxPassesCorpus : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  void everyPassOnTheCorpus_data() {
    QTest::addColumn<QString>("pipeline");
    QTest::addColumn<bool>("semantic");
    // Each pass alone for the structural checks; the results are compared once, after all of
    // them (the interpreter legalizes every op call it meets, which is slow).
    for (const char* p : {"Normalize", "CanonicalizeBindings", "DeadCodeElimination", "FoldConstant",
                          "EliminateCommonSubexpr", "ToNonDataflow", "RemovePurityChecking",
                          "RemovePurityChecking, ToNonDataflow, CallTIRRewrite", "AttachGlobalSymbol"}) {
      QTest::newRow(p) << p << false;
    }
    QTest::newRow("all") << "Normalize, CanonicalizeBindings, EliminateCommonSubexpr, FoldConstant, "
                            "DeadCodeElimination, RemovePurityChecking, ToNonDataflow, CallTIRRewrite"
                         << true;
  }
  void everyPassOnTheCorpus() {
    QFETCH(QString, pipeline);
    QFETCH(bool, semantic);
    auto files = Corpus();
    QVERIFY(files.size() >= 40);
    int modules = 0, compared = 0;
    QStringList problems;
    for (const auto& [name, text] : files) {
      std::string error;
      ir::IRModule in = ParseModule(text, &error);
      if (!in.defined()) continue;  // programs that need what the IR does not have yet
      ++modules;
      bool well_formed = !relax::VerifyWellFormed(in).HasErrors();
      ir::IRModule out = RunPasses(pipeline.toStdString(), in, &error);
      if (!out.defined()) {
        problems << QString::fromStdString(name + ": " + error);
        continue;
      }
      DiagnosticList wf = relax::VerifyWellFormed(out);
      if (well_formed && wf.HasErrors()) {
        problems << QString::fromStdString(name + ": not well-formed after: " + wf[0].message);
      }
      if (!ParseModule(script::PrintModule(out), &error).defined()) {
        problems << QString::fromStdString(name + ": the printed result does not parse: " + error);
      }
      if (!semantic) continue;
      for (const auto& c : transform::CheckRelaxEquivalence(in, out)) {
        using O = transform::RelaxFunctionCheck::Outcome;
        if (c.outcome == O::kEqual) ++compared;
        if (c.outcome == O::kDifferent || c.outcome == O::kFailed) {
          problems << QString::fromStdString(name + ": " + c.name + ": " + c.detail);
        }
      }
    }
    qInfo("%d modules, %d functions compared", modules, compared);
    QVERIFY2(problems.isEmpty(), qPrintable(problems.join("\n")));
    QVERIFY(modules >= 40);
    // Most corpus functions run (ops legalized through LegalizeOps); the rest call what the
    // interpreter cannot evaluate (packed functions, ops without a legalization).
    QVERIFY2(!semantic || compared >= 40, qPrintable(QString::number(compared)));
  }
};

QTEST_APPLESS_MAIN(TestRelaxPassesCorpus)
#include "tst_relax_passes_corpus.moc"
