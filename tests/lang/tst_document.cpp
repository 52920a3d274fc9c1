// The Document under the LSP server and the GUI: UTF-16 positions over UTF-8 text, incremental
// edits, clamping, and the symbol index's resolution of names to definitions.
#include <QTest>

#include "lang/analysis.h"
#include "lang/analysis_index.h"
#include "lang/document.h"
#include "relax/expr.h"

using wb::lang::Document;
using wb::lang::TextPosition;
using wb::lang::TextRange;

namespace {

// A PrimFunc and a Relax function calling it, as TVM prints them.
const char* kRelaxModule = R"(@I.ir_module
class Module:
    @T.prim_func
    def bias_relu(x: T.Buffer((8, 64), "float32"), b: T.Buffer((64,), "float32"), y: T.Buffer((8, 64), "float32")):
        for i, j in T.grid(8, 64):
            with T.sblock("bias_relu"):
                vi, vj = T.axis.remap("SS", [i, j])
                y[vi, vj] = T.max(x[vi, vj] + b[vj], T.float32(0.0))

    @R.function
    def main(x: R.Tensor((8, 32), dtype="float32"), w0: R.Tensor((32, 64), dtype="float32"), b0: R.Tensor((64,), dtype="float32")) -> R.Tensor((8, 64), dtype="float32"):
        cls = Module
        with R.dataflow():
            lv = R.matmul(x, w0, out_dtype="void")
            lv1 = R.call_tir(cls.bias_relu, (lv, b0), out_ty=R.Tensor((8, 64), dtype="float32"))
            gv = R.add(lv1, lv)
            R.output(gv)
        return gv
)";

std::string Replaced(std::string text, const std::string& from, const std::string& to) {
  size_t at = text.find(from);
  if (at == std::string::npos) return {};
  return text.replace(at, from.size(), to);
}

}  // namespace

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

  // The names of a Relax function resolve like a PrimFunc's: parameters in the function, a
  // binding after its value, a dataflow var inside its block, `cls.f` to the module's function;
  // and they still do when a function of the module (the Relax one or a PrimFunc) has a
  // semantic error: the index answers from what parsed.
  void relaxNamesResolveWithAndWithoutErrors_data() {
    QTest::addColumn<QString>("from");
    QTest::addColumn<QString>("to");
    QTest::addColumn<QString>("error");
    QTest::newRow("healthy") << "" << "" << "";
    QTest::newRow("call_tir to an unknown function")
        << "lv1 = R.call_tir(cls.bias_relu, (lv, b0)" << "lv1 = R.call_tir(cls.nope, (lv, b0)" << "nope";
    QTest::newRow("op with a wrong argument type") << "gv = R.add(lv1, lv)" << "gv = R.add(lv1, x)" << "broadcast";
    QTest::newRow("buffer indexed with the wrong rank in the PrimFunc")
        << "y[vi, vj] = T.max" << "y[vi, vj, 0] = T.max" << "has 2 dimensions but is indexed with 3";
    QTest::newRow("mismatched return type")
        << "-> R.Tensor((8, 64), dtype=\"float32\"):" << "-> R.Tensor((8, 10), dtype=\"float32\"):" << "does not fit";
  }

  void relaxNamesResolveWithAndWithoutErrors() {
    QFETCH(QString, from);
    QFETCH(QString, to);
    QFETCH(QString, error);
    std::string text = from.isEmpty() ? kRelaxModule : Replaced(kRelaxModule, from.toStdString(), to.toStdString());
    QVERIFY(!text.empty());
    Document doc("file:///m.py", text, 1);
    std::vector<wb::lang::DocumentDiagnostic> diags = wb::lang::ComputeDiagnostics(doc);
    if (error.isEmpty()) {
      QVERIFY2(diags.empty(), diags.empty() ? "" : diags[0].message.c_str());
    } else {
      QVERIFY(!diags.empty());
      QVERIFY2(diags[0].message.find(error.toStdString()) != std::string::npos, diags[0].message.c_str());
    }
    wb::lang::SymbolIndex index(doc);
    auto symbol_at = [&](const std::string& needle, int shift = 0, int nth = 0) -> const wb::lang::IndexedSymbol* {
      size_t at = text.find(needle);
      for (int i = 0; i < nth && at != std::string::npos; ++i) at = text.find(needle, at + 1);
      if (at == std::string::npos) return nullptr;
      const wb::lang::Occurrence* o = index.At(static_cast<uint32_t>(at + shift));
      return o ? &index.symbols()[o->symbol] : nullptr;
    };
    auto defined_at = [&](const wb::lang::IndexedSymbol* s, const std::string& needle, int shift = 0) {
      return s && s->def_begin == static_cast<uint32_t>(text.find(needle) + shift);
    };
    // A Relax parameter used in a binding goes to the signature.
    const wb::lang::IndexedSymbol* x = symbol_at("R.matmul(x", 9);
    QVERIFY(defined_at(x, "x: R.Tensor((8, 32)"));
    QCOMPARE(int(x->role), int(wb::lang::SymbolRole::kParam));
    QVERIFY(wb::ir::IsInstance<wb::relax::VarNode>(x->node));
    // A dataflow var, used two bindings later, goes to its binding; its scope ends with the block.
    const wb::lang::IndexedSymbol* lv = symbol_at("(lv, b0)", 1);
    QVERIFY(defined_at(lv, "lv = R.matmul"));
    QVERIFY(wb::ir::IsInstance<wb::relax::DataflowVarNode>(lv->node));
    QVERIFY(lv->scope_end > text.find("R.output") && lv->scope_end < text.find("return"));
    QCOMPARE(symbol_at("lv = R.matmul"), lv);  // the definition itself
    // The output var, used by the return (when that statement is intact).
    {
      const wb::lang::IndexedSymbol* gv = symbol_at("return gv", 7);
      QVERIFY(defined_at(gv, "gv = R.add"));
      QVERIFY(!wb::ir::IsInstance<wb::relax::DataflowVarNode>(gv->node));
      QVERIFY(symbol_at("R.output(gv)", 9) == gv);
    }
    // `cls.bias_relu`: the PrimFunc, healthy or not.
    if (from != "lv1 = R.call_tir(cls.bias_relu, (lv, b0)") {
      const wb::lang::IndexedSymbol* f = symbol_at("cls.bias_relu", 4);
      QVERIFY(defined_at(f, "bias_relu(x: T.Buffer"));
      QCOMPARE(int(f->role), int(wb::lang::SymbolRole::kFunction));
    }
    // The Relax function itself, and a name in the PrimFunc.
    const wb::lang::IndexedSymbol* main = symbol_at("def main", 4);
    QVERIFY(main && main->role == wb::lang::SymbolRole::kFunction);
    const wb::lang::IndexedSymbol* b = symbol_at("+ b[vj]", 2);
    QVERIFY(defined_at(b, "b: T.Buffer"));
    // The PrimFunc's `x` and the Relax function's `x` are different symbols.
    QVERIFY(symbol_at("x[vi, vj] + b") != x);
    // Hover, completion and the outline answer in the Relax function.
    auto hover = wb::lang::ComputeHover(doc, doc.PositionOf(static_cast<uint32_t>(text.find("R.matmul(x") + 9)));
    QVERIFY(hover.has_value());
    QVERIFY2(hover->markdown.find("R.Tensor((8, 32)") != std::string::npos &&
                 hover->markdown.find("parameter") != std::string::npos,
             hover->markdown.c_str());
    auto lv_hover = wb::lang::ComputeHover(doc, doc.PositionOf(static_cast<uint32_t>(text.find("(lv, b0)") + 1)));
    QVERIFY(lv_hover.has_value());
    QVERIFY2(lv_hover->markdown.find("R.Tensor((8, 64)") != std::string::npos &&
                 lv_hover->markdown.find("dataflow variable") != std::string::npos,
             lv_hover->markdown.c_str());
    // The name a failed binding bound: there, untyped, and said to be so.
    if (from == "lv1 = R.call_tir(cls.bias_relu, (lv, b0)") {
      const wb::lang::IndexedSymbol* lv1 = symbol_at("R.add(lv1", 6);
      QVERIFY(defined_at(lv1, "lv1 = R.call_tir"));
      auto h = wb::lang::ComputeHover(doc, doc.PositionOf(static_cast<uint32_t>(text.find("R.add(lv1") + 6)));
      QVERIFY(h.has_value());
      QVERIFY2(h->markdown.find("type is unknown") != std::string::npos, h->markdown.c_str());
    }
    std::vector<std::string> labels;
    // In the last binding's arguments: the parameters, the earlier bindings, the functions; not
    // the name being bound, nor the PrimFunc's buffers.
    size_t last = text.find("R.add(lv1");
    if (last == std::string::npos) last = text.find("R.add(lv1, x)");
    for (const auto& item : wb::lang::ComputeCompletion(doc, doc.PositionOf(static_cast<uint32_t>(last + 6)))) {
      labels.push_back(item.label);
    }
    for (const char* name : {"x", "w0", "b0", "lv", "lv1", "main", "bias_relu", "R"}) {
      QVERIFY2(std::find(labels.begin(), labels.end(), name) != labels.end(), name);
    }
    for (const char* name : {"gv", "vi", "b"}) QVERIFY2(std::find(labels.begin(), labels.end(), name) == labels.end(), name);
    std::vector<wb::lang::DocumentSymbol> outline = wb::lang::ComputeDocumentSymbols(doc);
    QCOMPARE(outline.size(), size_t(1));
    QCOMPARE(outline[0].children.size(), size_t(2));
    QCOMPARE(outline[0].children[1].name, std::string("main"));
    QVERIFY2(outline[0].children[1].detail.find("def main(x: R.Tensor((8, 32)") == 0,
             outline[0].children[1].detail.c_str());
    QCOMPARE(outline[0].children[1].children.size(), size_t(3));  // x, w0, b0
  }

  // Names rebound in a Relax function: the left-hand name is the new binding, the right-hand
  // uses the earlier one; an if's result is named by its branches.
  void relaxRebindingAndIf() {
    const char* text = R"(@R.function
def f(x: R.Tensor((4,), "float32"), c: R.Tensor((), "bool")) -> R.Tensor((4,), "float32"):
    x = R.add(x, x)
    if c:
        y = R.multiply(x, x)
    else:
        y = R.subtract(x, x)
    return y
)";
    Document doc("file:///f.py", text, 1);
    QVERIFY2(doc.Parsed().ok(), doc.Parsed().diagnostics.empty() ? "" : doc.Parsed().diagnostics.begin()->message.c_str());
    wb::lang::SymbolIndex index(doc);
    std::string s = text;
    auto def_of = [&](size_t at) -> int64_t {
      const wb::lang::Occurrence* o = index.At(static_cast<uint32_t>(at));
      return o ? int64_t(index.symbols()[o->symbol].def_begin) : -1;
    };
    size_t param = s.find("x: R.Tensor");
    size_t rebound = s.find("x = R.add");
    QCOMPARE(def_of(rebound), int64_t(rebound));
    QCOMPARE(def_of(s.find("R.add(x") + 6), int64_t(param));
    QCOMPARE(def_of(s.find("R.multiply(x") + 11), int64_t(rebound));
    QCOMPARE(def_of(s.find("return y") + 7), int64_t(s.find("y = R.multiply")));
  }
};

QTEST_APPLESS_MAIN(TestDocument)
#include "tst_document.moc"
