// Highlighting from the compiled-in tree-sitter queries.
#include <QFile>
#include <QTest>

#include "workbench/highlight.h"

using namespace wb::workbench;

namespace {

QByteArray ReadQuery(const char* name) {
  QFile f(QString::fromUtf8(qgetenv("WB_SOURCE_DIR")) + "/grammar/queries/" + name);
  f.open(QIODevice::ReadOnly);
  return f.readAll();
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
        "    for i in range(4):\n        with T.sblock(\"C\"):\n            A[i] = T.float32(1.0)\n";
    auto ranges = Highlight(text);
    QVERIFY(Has(ranges, text, "namespace", "T"));
    QVERIFY(Has(ranges, text, "label", "\"C\""));
    QVERIFY(Has(ranges, text, "type.dtype", "\"float32\""));
    QVERIFY(Has(ranges, text, "keyword", "for"));
    // Predicate helpers never come out.
    for (const auto& r : ranges) QVERIFY(r.capture[0] != '_');
  }

  void survivesGarbage() {
    auto ranges = Highlight("@@@ def (((( \"unterminated\n\t\x01\x02");
    Q_UNUSED(ranges);
  }
};

QTEST_APPLESS_MAIN(TestHighlight)
#include "tst_highlight.moc"
