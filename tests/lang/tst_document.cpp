// The Document under the LSP server and the GUI: UTF-16 positions over UTF-8 text, incremental
// edits, clamping, and the symbol index's resolution of names to definitions.
#include <QTest>

#include "lang/analysis.h"
#include "lang/analysis_index.h"
#include "lang/document.h"

using wb::lang::Document;
using wb::lang::TextPosition;
using wb::lang::TextRange;

class TestDocument : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  void utf16PositionsOverUtf8() {
    // "é" is 2 bytes and 1 UTF-16 unit; "𝄞" is 4 bytes and 2 units (a surrogate pair).
    Document doc("file:///a.py", "aé𝄞b\nx", 1);
    QCOMPARE(doc.OffsetOf({0, 0}), 0u);
    QCOMPARE(doc.OffsetOf({0, 1}), 1u);
    QCOMPARE(doc.OffsetOf({0, 2}), 3u);
    QCOMPARE(doc.OffsetOf({0, 4}), 7u);  // after the pair
    QCOMPARE(doc.OffsetOf({0, 3}), 3u);  // inside the pair: the character's start
    QCOMPARE(doc.OffsetOf({0, 5}), 8u);  // end of line
    QCOMPARE(doc.OffsetOf({0, 99}), 8u);  // clamped to the line
    QCOMPARE(doc.OffsetOf({1, 1}), 10u);
    QCOMPARE(doc.OffsetOf({7, 0}), 10u);  // past the end: the end
    QVERIFY((doc.PositionOf(7) == TextPosition{0, 4}));
    QVERIFY((doc.PositionOf(9) == TextPosition{1, 0}));
  }

  void incrementalEdits() {
    Document doc("file:///a.py", "line one\nline two\n", 1);
    doc.ApplyChange(TextRange{{1, 5}, {1, 8}}, "2", 2);
    QCOMPARE(doc.text(), std::string("line one\nline 2\n"));
    doc.ApplyChange(TextRange{{0, 4}, {1, 4}}, "", 3);  // across lines
    QCOMPARE(doc.text(), std::string("line 2\n"));
    doc.ApplyChange(TextRange{{5, 0}, {9, 9}}, "end", 4);  // past the end appends
    QCOMPARE(doc.text(), std::string("line 2\nend"));
    doc.ApplyChange(std::nullopt, "whole", 5);
    QCOMPARE(doc.text(), std::string("whole"));
    QCOMPARE(doc.version(), int64_t(5));
  }

  void parseFollowsEdits() {
    Document doc("file:///a.py", "@T.prim_func\ndef f(A: T.Buffer((4,), \"float32\")):\n    A[0] = T.float32(1)\n", 1);
    QVERIFY(doc.Parsed().ok());
    doc.ApplyChange(TextRange{{2, 11}, {2, 23}}, "zz", 2);
    QVERIFY(!doc.Parsed().ok());
    QCOMPARE(wb::lang::ComputeDiagnostics(doc).size(), size_t(1));
  }

  void innermostDefinitionWins() {
    // Two blocks each define vi: each use resolves to its own block's iter var.
    const char* text = R"(@T.prim_func
def f(A: T.Buffer((4,), "float32"), B: T.Buffer((4,), "float32")):
    for i in range(4):
        with T.sblock("a"):
            vi = T.axis.spatial(4, i)
            A[vi] = T.float32(0)
    for i in range(4):
        with T.sblock("b"):
            vi = T.axis.spatial(4, i)
            B[vi] = A[vi]
)";
    Document doc("file:///a.py", text, 1);
    QVERIFY(doc.Parsed().ok());
    wb::lang::SymbolIndex index(doc);
    std::string s = text;
    auto occurrence = [&](const std::string& needle, int shift) {
      const wb::lang::Occurrence* o = index.At(static_cast<uint32_t>(s.find(needle) + shift));
      return o ? o->symbol : -1;
    };
    int first = occurrence("A[vi] =", 2), second = occurrence("B[vi] =", 2);
    QVERIFY(first >= 0 && second >= 0 && first != second);
    QCOMPARE(occurrence("A[vi]\n", 2), second);
    QCOMPARE(index.symbols()[first].def_begin, static_cast<uint32_t>(s.find("vi = T.axis")));
    QCOMPARE(index.symbols()[second].def_begin, static_cast<uint32_t>(s.rfind("vi = T.axis")));
    // `T.axis` is not a use of anything; the string "a" is the block's definition.
    QCOMPARE(occurrence("axis", 0), -1);
    int block = occurrence("\"a\"", 1);
    QVERIFY(block >= 0);
    QCOMPARE(int(index.symbols()[block].role), int(wb::lang::SymbolRole::kBlock));
  }
};

QTEST_APPLESS_MAIN(TestDocument)
#include "tst_document.moc"
