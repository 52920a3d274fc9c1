// Highlighting from the compiled-in tree-sitter queries, and the incremental reparse after edits.
#include <QFile>
#include <QTest>

#include "highlight.h"

using namespace wb::app;

namespace {

QByteArray ReadQuery(const char* name) {
  QFile f(QString::fromUtf8(qgetenv("WB_SOURCE_DIR")) + "/grammar/queries/" + name);
  f.open(QIODevice::ReadOnly);
  return f.readAll();
}

bool Same(const std::vector<HighlightRange>& a, const std::vector<HighlightRange>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (a[i].begin != b[i].begin || a[i].end != b[i].end || a[i].capture != b[i].capture)
      return false;
  }
  return true;
}

bool Has(const std::vector<HighlightRange>& ranges, std::string_view text, const char* capture,
         const char* snippet) {
  for (const auto& r : ranges) {
    if (r.capture == capture && text.substr(r.begin, r.end - r.begin) == snippet) return true;
  }
  return false;
}

}  // namespace

class TestHighlight : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  void compiledQueriesAreTheGrammarFiles() {
    QCOMPARE(QByteArray(HighlightsQuery().data(), int(HighlightsQuery().size())),
             ReadQuery("highlights.scm"));
    QCOMPARE(QByteArray(LocalsQuery().data(), int(LocalsQuery().size())), ReadQuery("locals.scm"));
    QCOMPARE(QByteArray(FoldsQuery().data(), int(FoldsQuery().size())), ReadQuery("folds.scm"));
  }

  void capturesTVMScriptConstructs() {
    std::string text =
        "@T.prim_func\ndef f(A: T.Buffer((4,), \"float32\")):\n"
        "    for i in range(4):\n        with T.sblock(\"C\"):\n            A[i] = "
        "T.float32(1.0)\n";
    auto ranges = Highlight(text);
    QVERIFY(Has(ranges, text, "namespace", "T"));
    QVERIFY(Has(ranges, text, "label", "\"C\""));
    QVERIFY(Has(ranges, text, "type.dtype", "\"float32\""));
    QVERIFY(Has(ranges, text, "keyword", "for"));
    // Predicate helpers never come out.
    for (const auto& r : ranges) QVERIFY(r.capture[0] != '_');
  }

  // Each edit reparses with the previous tree: the result must be what a parse from scratch
  // gives, whether the edit inserts, deletes, replaces across lines or breaks the syntax.
  void incrementalReparseMatchesAFreshParse() {
    const std::string base =
        "@T.prim_func\ndef f(A: T.Buffer((4,), \"float32\")):\n"
        "    for i in range(4):\n        with T.sblock(\"C\"):\n            A[i] = "
        "T.float32(1.0)\n";
    std::vector<std::string> versions = {base};
    auto edit = [&](size_t at, size_t erase, const std::string& insert) {
      std::string next = versions.back();
      next.replace(at, erase, insert);
      versions.push_back(next);
    };
    edit(base.find("range(4)") + 6, 1, "16");                  // replace a digit
    edit(0, 0, "# a comment line\n");                          // insert a line on top
    edit(versions.back().find("with"), 0, "x = 1\n        ");  // insert a statement
    edit(versions.back().find("(\"C\")"), 5, "(");             // break the syntax
    edit(versions.back().find("T.sblock(") + 9, 0, "\"D\")");  // and mend it
    edit(versions.back().find("def"), versions.back().find("for") - versions.back().find("def"),
         "");                                           // delete across lines
    edit(versions.back().size(), 0, "\ny = \"é𝄞\"\n");  // multi-byte text at the end
    versions.push_back(base);                           // everything at once
    SyntaxTree tree;
    for (const auto& text : versions) {
      tree.Update(text);
      QCOMPARE(tree.text(), text);
      QVERIFY2(Same(tree.Highlight(), Highlight(text)), text.c_str());
    }
    QVERIFY(Has(tree.Highlight(), base, "label", "\"C\""));
  }

  void survivesGarbage() {
    auto ranges = Highlight("@@@ def (((( \"unterminated\n\t\x01\x02");
    Q_UNUSED(ranges);
  }
};

QTEST_APPLESS_MAIN(TestHighlight)
#include "tst_highlight.moc"
