// Round trip of every corpus program (tests/script/corpus) through parser, verifier and printer:
// parse(print(m)) is structurally equal to m, print is a fixed point after one step, canonical
// files print back byte for byte, and the parser survives truncated and mutated input.
#include <QDir>
#include <QTest>

#include <fstream>
#include <map>
#include <random>
#include <sstream>

#include "ir/json.h"
#include "ir/structural_equal.h"
#include "ir/structural_hash.h"
#include "script/tvmscript.h"
#include "driver/roundtrip.h"

namespace {

struct CorpusFile {
  std::string path;
  std::string text;
  bool canonical;  // `*.input.py` files are valid input but not in printed form
};

std::vector<CorpusFile> LoadCorpus() {
  std::vector<CorpusFile> files;
  QDir dir(QString::fromUtf8(qgetenv("WB_SOURCE_DIR")) + "/tests/script/corpus/tir");
  for (const QString& name : dir.entryList({"*.py"}, QDir::Files, QDir::Name)) {
    std::string path = dir.filePath(name).toStdString();
    std::ifstream in(path, std::ios::binary);
    std::ostringstream buf;
    buf << in.rdbuf();
    files.push_back({path, buf.str(), !name.endsWith(".input.py")});
  }
  QDir examples(QString::fromUtf8(qgetenv("WB_SOURCE_DIR")) + "/resources/examples");
  for (const QString& name : examples.entryList({"*.py"}, QDir::Files, QDir::Name)) {
    std::string path = examples.filePath(name).toStdString();
    std::ifstream in(path, std::ios::binary);
    std::ostringstream buf;
    buf << in.rdbuf();
    files.push_back({path, buf.str(), true});
  }
  return files;
}

// Corpus programs that use TVMScript forms we do not handle yet, with the reason. A row listed
// here that starts passing fails the test (XPASS), so this list only ever shrinks.
const std::map<std::string, std::string>& KnownGaps() {
  static const std::map<std::string, std::string> gaps = {};
  return gaps;
}

}  // namespace

class TestRoundTrip : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  void corpusIsLargeEnough() {
    auto corpus = LoadCorpus();
    QVERIFY2(corpus.size() >= 50, qPrintable(QString("only %1 programs").arg(corpus.size())));
  }

  void roundTripIsFixedPointAndEqual_data() {
    QTest::addColumn<int>("index");
    auto corpus = LoadCorpus();
    for (size_t i = 0; i < corpus.size(); ++i) {
      QTest::newRow(QDir(QString::fromStdString(corpus[i].path)).dirName().toUtf8())
          << static_cast<int>(i);
    }
  }
  void roundTripIsFixedPointAndEqual() {
    QFETCH(int, index);
    auto corpus = LoadCorpus();
    const CorpusFile& file = corpus[index];
    wb::driver::RoundTripResult r = wb::driver::RoundTrip(file.path, file.text);
    std::string failure;
    if (r.status != wb::driver::RoundTripResult::Status::kOk) {
      failure = std::string(wb::driver::StatusName(r.status)) + " " + r.detail + "\n" +
                wb::RenderDiagnostics(r.diagnostics);
    } else if (file.canonical && r.printed != file.text) {
      std::istringstream a(file.text), b(r.printed);
      std::string la, lb;
      int line = 1;
      while (std::getline(a, la) && std::getline(b, lb) && la == lb) ++line;
      failure = "canonical file does not print back unchanged; first difference at line " +
                std::to_string(line) + ":\n  file:    " + la + "\n  printed: " + lb;
    }
    std::string name = QDir(QString::fromStdString(file.path)).dirName().toStdString();
    if (auto gap = KnownGaps().find(name); gap != KnownGaps().end()) {
      QEXPECT_FAIL("", gap->second.c_str(), Abort);
    }
    QVERIFY2(failure.empty(), failure.c_str());
  }

  // check_well_formed=False on a function (or the module) skips the verifier inside it only.
  void wellFormednessOptOut() {
    const std::string text =
        "from tvm.script import ir as I\nfrom tvm.script import tirx as T\n\n"
        "@I.ir_module\nclass Module:\n"
        "    @T.prim_func(check_well_formed=False)\n"
        "    def loose():\n"
        "        a = T.int32()\n"
        "        T.evaluate(a + 1)\n\n"
        "    @T.prim_func\n"
        "    def strict():\n"
        "        b = T.int32()\n"
        "        T.evaluate(b + 1)\n";
    auto parsed = wb::script::Parse(text, "optout.py");
    QVERIFY(parsed.ok());
    QCOMPARE(parsed.unchecked.size(), size_t(1));
    auto findings = wb::script::VerifyWellFormed(parsed);
    QCOMPARE(findings.size(), size_t(1));
    const auto& only = *findings.begin();
    QCOMPARE(QString::fromStdString(only.message), QString("variable 'b' is used but not defined"));
    QCOMPARE(only.span.start().line, 14u);

    std::string whole = text;
    whole.replace(whole.find("@I.ir_module\n"), 13, "@I.ir_module(check_well_formed=False)\n");
    auto module_parsed = wb::script::Parse(whole, "optout_module.py");
    QVERIFY(module_parsed.ok());
    QCOMPARE(module_parsed.unchecked.size(), size_t(2));
    QCOMPARE(wb::script::VerifyWellFormed(module_parsed).size(), size_t(0));
  }

  // Equal programs hash equal; JSON round trip keeps structure.
  void hashAndJsonAgreeWithEquality() {
    for (const auto& file : LoadCorpus()) {
      auto first = wb::script::Parse(file.text, file.path);
      if (!first.ok()) continue;
      auto second = wb::script::Parse(wb::script::Print(first), file.path);
      // Rows that do not round-trip are reported by roundTripIsFixedPointAndEqual.
      if (!second.ok() || !wb::ir::StructuralEqual(first.module, second.module)) continue;
      QVERIFY2(wb::ir::StructuralHash(first.module) == wb::ir::StructuralHash(second.module),
               ("equal modules hash differently: " + file.path).c_str());
      std::string error;
      wb::ir::ObjectRef loaded = wb::ir::LoadJSON(wb::ir::SaveJSON(first.module), &error);
      QVERIFY2(loaded.defined(), error.c_str());
      QVERIFY2(wb::ir::StructuralEqual(first.module, loaded), file.path.c_str());
    }
  }

  // The parser returns (IR or diagnostics) on every prefix and on random byte mutations.
  void parserSurvivesTruncationAndMutation() {
    std::mt19937 rng(20261129);
    const char kAlphabet[] = "()[]{}:,.=+-*/%<>\"'#\n \tTRIab0123456789_@";
    size_t runs = 0;
    for (const auto& file : LoadCorpus()) {
      const std::string& text = file.text;
      for (size_t cut = 0; cut < text.size(); cut += std::max<size_t>(1, text.size() / 23)) {
        auto r = wb::script::Parse(text.substr(0, cut), file.path);
        ++runs;
        // A prefix either parses or says why; it never comes back empty-handed and silent
        // unless it holds no code at all.
        bool blank = text.substr(0, cut).find_first_not_of(" \n\t") == std::string::npos;
        QVERIFY(r.module.defined() || r.diagnostics.HasErrors() || blank ||
                text.substr(0, cut).find("def ") == std::string::npos);
      }
      for (int m = 0; m < 12; ++m) {
        std::string mutated = text;
        int edits = 1 + static_cast<int>(rng() % 4);
        for (int e = 0; e < edits && !mutated.empty(); ++e) {
          size_t pos = rng() % mutated.size();
          switch (rng() % 3) {
            case 0:
              mutated.erase(pos, 1 + rng() % 8);
              break;
            case 1:
              mutated.insert(pos, 1, kAlphabet[rng() % (sizeof(kAlphabet) - 1)]);
              break;
            default:
              mutated[pos] = kAlphabet[rng() % (sizeof(kAlphabet) - 1)];
          }
        }
        auto r = wb::script::Parse(mutated, file.path);
        ++runs;
        // Whatever parsed must print without crashing.
        if (r.module.defined()) (void)wb::script::Print(r);
      }
    }
    QVERIFY(runs > 1000);
  }
};

QTEST_APPLESS_MAIN(TestRoundTrip)
#include "tst_roundtrip.moc"
