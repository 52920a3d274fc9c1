// Source positions, clang-style diagnostic rendering, and data type spelling.
#include <QTest>

#include "ir/dtype.h"
#include "support/diagnostic.h"

using wb::Diagnostic;
using wb::SourceFile;
using wb::Span;
using wb::ir::DataType;

class TestSupport : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  void positionsAreOneBased() {
    auto file = std::make_shared<SourceFile>("f.py", "ab\ncde\n\nx");
    QCOMPARE(file->line_count(), 4u);
    auto p = file->PositionOf(4);  // 'd'
    QCOMPARE(p.line, 2u);
    QCOMPARE(p.column, 2u);
    QCOMPARE(file->OffsetOf(2, 2), 4u);
    QCOMPARE(QString::fromStdString(std::string(file->LineText(2))), QString("cde"));
    QCOMPARE(file->PositionOf(9).line, 4u);
    Span span(file, 3, 6);
    QCOMPARE(QString::fromStdString(span.ToString()), QString("f.py:2:1"));
    QCOMPARE(QString::fromStdString(std::string(span.text())), QString("cde"));
  }

  void rendersClangStyleWithCaret() {
    auto file = std::make_shared<SourceFile>("k.py", "def f():\n    C[vi] = A[vk]\n");
    Diagnostic d = Diagnostic::Error("undefined name 'vk'", Span(file, 23, 25));
    d.Note("did you mean 'vi'?", Span(file, 15, 17));
    std::string text = wb::RenderDiagnostic(d);
    QCOMPARE(QString::fromStdString(text),
             QString("k.py:2:15: error: undefined name 'vk'\n"
                     "        C[vi] = A[vk]\n"
                     "                  ^~\n"
                     "k.py:2:7: note: did you mean 'vi'?\n"
                     "        C[vi] = A[vk]\n"
                     "          ^~\n"));
  }

  void diagnosticWithoutSpan() {
    std::string text = wb::RenderDiagnostic(Diagnostic::Error("cannot read file 'x'"));
    QCOMPARE(QString::fromStdString(text), QString("<unknown>: error: cannot read file 'x'\n"));
  }

  void listCountsErrorsAndSorts() {
    auto file = std::make_shared<SourceFile>("k.py", "abcdef");
    wb::DiagnosticList list;
    list.Error("second", Span(file, 4, 5));
    list.Add(Diagnostic::Warning("first", Span(file, 1, 2)));
    QVERIFY(list.HasErrors());
    QCOMPARE(list.ErrorCount(), size_t(1));
    list.SortByPosition();
    QCOMPARE(QString::fromStdString(list[0].message), QString("first"));
  }

  void dtypeSpellings_data() {
    QTest::addColumn<QString>("in");
    QTest::addColumn<QString>("out");
    QTest::newRow("int") << "int" << "int32";
    QTest::newRow("uint") << "uint" << "uint32";
    QTest::newRow("float") << "float" << "float32";
    QTest::newRow("bfloat") << "bfloat" << "bfloat16";
    QTest::newRow("vector") << "float16x4" << "float16x4";
    QTest::newRow("scalable") << "float32xvscalex4" << "float32xvscalex4";
    QTest::newRow("bool") << "bool" << "bool";
    QTest::newRow("handle") << "handle" << "handle";
    QTest::newRow("void") << "" << "void";
    QTest::newRow("fp8") << "float8_e4m3fn" << "float8_e4m3fn";
    QTest::newRow("fp4x2") << "float4_e2m1fnx2" << "float4_e2m1fnx2";
    QTest::newRow("int64") << "int64" << "int64";
    QTest::newRow("uint1") << "uint1" << "uint1";
  }
  void dtypeSpellings() {
    QFETCH(QString, in);
    QFETCH(QString, out);
    auto t = DataType::Parse(in.toStdString());
    QVERIFY(t.has_value());
    QCOMPARE(QString::fromStdString(t->ToString()), out);
    QCOMPARE(DataType::Unpack(t->Pack()), *t);
  }

  void dtypeRejects() {
    for (const char* bad : {"flaot32", "float13", "int0", "intx", "float32x", "x4", "float32x0"}) {
      QVERIFY2(!DataType::Parse(bad).has_value(), bad);
    }
  }
};

QTEST_APPLESS_MAIN(TestSupport)
#include "tst_support.moc"
