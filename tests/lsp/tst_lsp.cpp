// End-to-end tests of workbench-lsp: the real binary, spoken to over pipes as an editor does.
#include <QDir>
#include <QFile>
#include <QRandomGenerator>
#include <QTest>

#include "lsp_client.h"

namespace {

std::string ReadExample(const QString& name) {
  QFile f(QString::fromUtf8(qgetenv("WB_SOURCE_DIR")) + "/resources/examples/" + name);
  if (!f.open(QIODevice::ReadOnly)) return {};
  return f.readAll().toStdString();
}

QStringList ExampleNames() {
  QDir dir(QString::fromUtf8(qgetenv("WB_SOURCE_DIR")) + "/resources/examples");
  return dir.entryList({"*.py"}, QDir::Files, QDir::Name);
}

// The LSP position of the `nth` occurrence of `needle` in `text`, `shift` characters into it
// (the examples are ASCII, so UTF-16 columns are byte columns).
json PosOf(const std::string& text, const std::string& needle, int nth = 0, int shift = 0) {
  size_t at = text.find(needle);
  for (int i = 0; i < nth && at != std::string::npos; ++i) at = text.find(needle, at + 1);
  if (at == std::string::npos) return Pos(-1, -1);
  at += shift;
  int line = 0;
  size_t line_start = 0;
  for (size_t i = 0; i < at; ++i) {
    if (text[i] == '\n') {
      ++line;
      line_start = i + 1;
    }
  }
  return Pos(line, static_cast<int>(at - line_start));
}

json TextDoc(const std::string& uri) { return {{"uri", uri}}; }
json At(const std::string& uri, const json& pos) { return {{"textDocument", TextDoc(uri)}, {"position", pos}}; }

std::string HoverText(const json& response) {
  if (!response.contains("result") || response["result"].is_null()) return "";
  return response["result"]["contents"]["value"].get<std::string>();
}

std::vector<std::string> Labels(const json& response) {
  std::vector<std::string> out;
  for (const json& item : response["result"]["items"]) out.push_back(item["label"]);
  return out;
}

bool Has(const std::vector<std::string>& v, const std::string& s) { return std::find(v.begin(), v.end(), s) != v.end(); }

const char* kCallModule = R"(@I.ir_module
class Mod:
    @T.prim_func
    def add_one(A: T.Buffer((8,), "float32"), B: T.Buffer((8,), "float32")):
        for i in range(8):
            B[i] = A[i] + T.float32(1.0)

    @T.prim_func
    def main(X: T.Buffer((8,), "float32"), Y: T.Buffer((8,), "float32")):
        Mod.add_one(X.data, Y.data)
)";

}  // namespace

class TestLsp : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  void initializeAnnouncesCapabilities() {
    LspClient c;
    c.Initialize();
    const json& caps = c.initialize_result()["result"]["capabilities"];
    QCOMPARE(caps["textDocumentSync"]["change"].get<int>(), 2);  // incremental
    for (const char* cap : {"hoverProvider", "definitionProvider", "referencesProvider", "documentSymbolProvider",
                            "documentFormattingProvider", "foldingRangeProvider", "documentHighlightProvider"}) {
      QVERIFY2(caps.value(cap, false), cap);
    }
    QVERIFY(caps.contains("completionProvider"));
    QCOMPARE(c.ShutdownAndExit(), 0);
  }

  void requestsBeforeInitializeAreRefused() {
    LspClient c;
    json r = c.Call("textDocument/hover", At("file:///x.py", Pos(0, 0)));
    QCOMPARE(r["error"]["code"].get<int>(), -32002);
    // Options of the wrong type: refused, and the server is still not initialized.
    json bad = c.Call("initialize", {{"capabilities", json::object()}, {"initializationOptions", {{"diagnosticsDelayMs", "soon"}}}});
    QCOMPARE(bad["error"]["code"].get<int>(), -32602);
    c.Initialize();
    QVERIFY(c.initialize_result().contains("result"));
  }

  void examplesHaveNoDiagnostics() {
    LspClient c;
    c.Initialize();
    for (const QString& name : ExampleNames()) {
      std::string uri = "file:///examples/" + name.toStdString();
      c.Open(uri, ReadExample(name));
      auto d = c.Diagnostics(uri);
      QVERIFY2(d.has_value(), qPrintable(name));
      QVERIFY2(d->empty(), qPrintable(name + ": " + QString::fromStdString(d->dump())));
    }
  }

  void incrementalChangeUpdatesDiagnostics() {
    LspClient c;
    c.Initialize();
    std::string text = ReadExample("matmul.py");
    std::string uri = "file:///matmul.py";
    c.Open(uri, text);
    QVERIFY(c.Diagnostics(uri, 1)->empty());
    // `A[vi, vk]` in the update -> `A[vi, vq]`: an undefined name, reported where it is.
    json pos = PosOf(text, "A[vi, vk] * B", 0, 6);
    int line = pos["line"], col = pos["character"];
    c.Change(uri, 2, Range(line, col, line, col + 2), "vq");
    auto d = c.Diagnostics(uri, 2);
    QVERIFY(d.has_value());
    QVERIFY2(!d->empty(), "an undefined name must be diagnosed");
    QVERIFY2((*d)[0]["message"].get<std::string>().find("vq") != std::string::npos, (*d)[0].dump().c_str());
    QCOMPARE((*d)[0]["range"]["start"]["line"].get<int>(), line);
    QCOMPARE((*d)[0]["range"]["start"]["character"].get<int>(), col);
    QCOMPARE((*d)[0]["severity"].get<int>(), 1);
    // Undo it: clean again.
    c.Change(uri, 3, Range(line, col, line, col + 2), "vk");
    QVERIFY(c.Diagnostics(uri, 3)->empty());
  }

  // A burst of edits gives one publication, for the last version.
  void diagnosticsAreDebounced() {
    LspClient c({"--diagnostics-delay-ms", "1000"});
    c.Initialize();
    std::string text = ReadExample("matmul.py");
    std::string uri = "file:///matmul.py";
    c.Open(uri, text);
    QVERIFY(c.Diagnostics(uri, 1).has_value());
    for (int v = 2; v <= 6; ++v) c.Change(uri, v, Range(0, 0, 0, 0), "#");
    auto d = c.Diagnostics(uri, 6);
    QVERIFY(d.has_value());
    QCOMPARE(c.Count([](const json& m) { return m.value("method", "") == "textDocument/publishDiagnostics"; }),
             size_t(0));
  }

  void wellFormednessErrorsAreDiagnosed() {
    LspClient c;
    c.Initialize();
    // Parses, but the store's index count does not match the buffer: the verifier's finding.
    std::string text = ReadExample("matmul.py");
    std::string uri = "file:///wf.py";
    size_t at = text.find("C[vi, vj] = T.float32(0.0)");
    text.replace(at, 9, "C[vi]");
    c.Open(uri, text);
    auto d = c.Diagnostics(uri);
    QVERIFY(d.has_value());
    QVERIFY2(!d->empty(), "a wrong index count must be diagnosed");
  }

  void relaxText() {
    LspClient c;
    c.Initialize();
    std::string uri = "file:///relax.py";
    std::string text = "@I.ir_module\nclass Module:\n    @R.function\n    def main(x: R.Tensor((4,), \"float32\")) -> R.Tensor((4,), \"float32\"):\n        return x\n";
    c.Open(uri, text);
    auto d = c.Diagnostics(uri);
    QVERIFY2(d.has_value() && d->empty(), d ? d->dump().c_str() : "no diagnostics published");
    std::string broken = "file:///relax_broken.py";
    c.Open(broken, "@I.ir_module\nclass Module:\n    @R.function\n    def main(x: R.Tensor((4,), \"float32\")) -> R.Tensor((4,), \"float32\"):\n        y = R.add(x, z)\n        return y\n");
    auto bd = c.Diagnostics(broken);
    QVERIFY(bd.has_value() && !bd->empty());
    QVERIFY2((*bd)[0]["message"].get<std::string>().find("'z'") != std::string::npos, bd->dump().c_str());
    // Every feature still answers.
    QVERIFY(c.Call("textDocument/hover", At(uri, Pos(3, 13))).contains("result"));
    QVERIFY(c.Call("textDocument/documentSymbol", {{"textDocument", TextDoc(uri)}}).contains("result"));
    QVERIFY(c.Call("textDocument/completion", At(uri, Pos(4, 15))).contains("result"));
    QVERIFY(c.Call("textDocument/foldingRange", {{"textDocument", TextDoc(uri)}}).contains("result"));
  }

  void hover() {
    LspClient c;
    c.Initialize();
    std::string text = ReadExample("matmul.py");
    std::string uri = "file:///matmul.py";
    c.Open(uri, text);
    std::string buffer = HoverText(c.Call("textDocument/hover", At(uri, PosOf(text, "A[vi, vk] * B", 0, 0))));
    QVERIFY2(buffer.find("(256, 256)") != std::string::npos && buffer.find("float32") != std::string::npos &&
                 buffer.find("global") != std::string::npos,
             buffer.c_str());
    std::string loop = HoverText(c.Call("textDocument/hover", At(uri, PosOf(text, "for i", 0, 4))));
    QVERIFY2(loop.find("serial") != std::string::npos && loop.find("256") != std::string::npos, loop.c_str());
    std::string iter = HoverText(c.Call("textDocument/hover", At(uri, PosOf(text, "B[vk, vj])", 0, 2))));
    QVERIFY2(iter.find("reduce") != std::string::npos, iter.c_str());
    std::string block = HoverText(c.Call("textDocument/hover", At(uri, PosOf(text, "\"C\"", 0, 1))));
    QVERIFY2(block.find("iter vars") != std::string::npos && block.find("A[vi, vk]") != std::string::npos &&
                 block.find("writes") != std::string::npos,
             block.c_str());
    std::string grid = HoverText(c.Call("textDocument/hover", At(uri, PosOf(text, "T.grid", 0, 3))));
    QVERIFY2(grid.find("T.grid(") != std::string::npos, grid.c_str());
    // Nothing to say on a keyword.
    QVERIFY(c.Call("textDocument/hover", At(uri, PosOf(text, "for i", 0, 1)))["result"].is_null());

    std::string softmax = ReadExample("softmax.py");
    c.Open("file:///softmax.py", softmax);
    std::string op = HoverText(c.Call("textDocument/hover", At("file:///softmax.py", PosOf(softmax, "T.exp(", 0, 3))));
    QVERIFY2(op.find("T.exp(a)") != std::string::npos && op.find("tirx.exp") != std::string::npos, op.c_str());
    std::string local = HoverText(c.Call("textDocument/hover", At("file:///softmax.py", PosOf(softmax, "row_max[vi] = T.max", 0, 1))));
    QVERIFY2(local.find("(16,)") != std::string::npos, local.c_str());
  }

  void definitionAndReferences() {
    LspClient c;
    c.Initialize();
    std::string text = ReadExample("matmul.py");
    std::string uri = "file:///matmul.py";
    c.Open(uri, text);
    json def = c.Call("textDocument/definition", At(uri, PosOf(text, "B[vk, vj])", 0, 2)))["result"];
    QCOMPARE(def.size(), size_t(1));
    QVERIFY2(def[0]["range"]["start"] == PosOf(text, "vk = T.axis"), def[0]["range"]["start"].dump().c_str());
    QCOMPARE(def[0]["uri"].get<std::string>(), uri);

    // Buffer A: the parameter, then reads and the update.
    json refs = c.Call("textDocument/references",
                       {{"textDocument", TextDoc(uri)}, {"position", PosOf(text, "A[vi, vk] * B")},
                        {"context", {{"includeDeclaration", true}}}})["result"];
    QCOMPARE(refs.size(), size_t(3));
    QVERIFY2(refs[0]["range"]["start"] == PosOf(text, "A: T.Buffer"), refs[0]["range"]["start"].dump().c_str());
    // Highlights: the same occurrences, the definition marked as a write.
    json hl = c.Call("textDocument/documentHighlight", At(uri, PosOf(text, "A: T.Buffer")))["result"];
    QCOMPARE(hl.size(), size_t(3));

    // Softmax: `exp` the buffer vs T.exp and the block "exp".
    std::string sm = ReadExample("softmax.py");
    c.Open("file:///softmax.py", sm);
    json exp_refs = c.Call("textDocument/references",
                           {{"textDocument", TextDoc("file:///softmax.py")}, {"position", PosOf(sm, "exp = T.sblock")},
                            {"context", {{"includeDeclaration", false}}}})["result"];
    QCOMPARE(exp_refs.size(), size_t(6));  // writes, store, and four reads; not T.exp, not "exp"

    // Symbolic shape var n.
    std::string dyn = ReadExample("dynamic_shape.py");
    c.Open("file:///dyn.py", dyn);
    json n_refs = c.Call("textDocument/references",
                         {{"textDocument", TextDoc("file:///dyn.py")}, {"position", PosOf(dyn, "T.grid(n", 0, 7)},
                          {"context", {{"includeDeclaration", true}}}})["result"];
    QVERIFY2(n_refs.size() >= 3, n_refs.dump().c_str());  // "n", (n,), n = T.int32(), T.grid(n

    // Module.f goes to the function.
    c.Open("file:///call.py", kCallModule);
    json fdef = c.Call("textDocument/definition", At("file:///call.py", PosOf(kCallModule, "Mod.add_one", 0, 5)))["result"];
    QCOMPARE(fdef.size(), size_t(1));
    QVERIFY2(fdef[0]["range"]["start"] == PosOf(kCallModule, "add_one"), fdef[0]["range"]["start"].dump().c_str());
  }

  // While the function being edited does not parse, hover and navigation answer from the
  // last version that did, outside the edited text.
  void navigationSurvivesAnEditThatBreaksTheFunction() {
    LspClient c;
    c.Initialize();
    std::string text = ReadExample("matmul.py");
    std::string uri = "file:///matmul.py";
    c.Open(uri, text);
    QVERIFY(c.Diagnostics(uri, 1)->empty());
    json pos = PosOf(text, "A[vi, vk] * B", 0, 6);
    int line = pos["line"], col = pos["character"];
    c.Change(uri, 2, Range(line, col, line, col + 2), "vq + ");  // now `A[vi, vq + ]`
    QVERIFY(!c.Diagnostics(uri, 2)->empty());
    // Hover on A of the broken statement, left of the edit.
    std::string hover = HoverText(c.Call("textDocument/hover", At(uri, Pos(line, col - 6))));
    QVERIFY2(hover.find("(256, 256)") != std::string::npos, hover.c_str());
    // B, right of the edit (shifted by it), still goes to its parameter.
    json b = Pos(line, col + 9);  // `A[vi, vq + ] * B`: B sits 3 further than before
    std::string b_hover = HoverText(c.Call("textDocument/hover", At(uri, b)));
    QVERIFY2(b_hover.find("B: T.Buffer") != std::string::npos, b_hover.c_str());
    json def = c.Call("textDocument/definition", At(uri, b))["result"];
    QCOMPARE(def.size(), size_t(1));
    QVERIFY2(def[0]["range"]["start"] == PosOf(text, "B: T.Buffer"), def.dump().c_str());
    // The range of the hovered name is in the new text.
    json r = c.Call("textDocument/hover", At(uri, b))["result"]["range"];
    QVERIFY2(r["start"] == b, r.dump().c_str());
  }

  // A file whose only error is semantic, opened as is (no earlier version parsed): hover,
  // definition, references and the outline answer from what did parse, as clangd does.
  void navigationInAFunctionWithASemanticError() {
    LspClient c;
    c.Initialize();
    std::string text = ReadExample("matmul.py");
    text.replace(text.find("A[vi, vk] * B"), 9, "A[vi, vk, vj]");
    std::string uri = "file:///semantic.py";
    c.Open(uri, text);
    auto d = c.Diagnostics(uri);
    QVERIFY(d.has_value());
    QCOMPARE(d->size(), size_t(1));
    QVERIFY2((*d)[0]["message"].get<std::string>().find("has 2 dimensions but is indexed with 3") != std::string::npos,
             d->dump().c_str());
    // A in the very statement that failed.
    std::string a = HoverText(c.Call("textDocument/hover", At(uri, PosOf(text, "A[vi, vk, vj]"))));
    QVERIFY2(a.find("(256, 256)") != std::string::npos && a.find("float32") != std::string::npos, a.c_str());
    json a_def = c.Call("textDocument/definition", At(uri, PosOf(text, "A[vi, vk, vj]")))["result"];
    QCOMPARE(a_def.size(), size_t(1));
    QVERIFY2(a_def[0]["range"]["start"] == PosOf(text, "A: T.Buffer"), a_def.dump().c_str());
    // An iter var used there goes to its definition.
    json vk = c.Call("textDocument/definition", At(uri, PosOf(text, "A[vi, vk, vj]", 0, 6)))["result"];
    QCOMPARE(vk.size(), size_t(1));
    QVERIFY2(vk[0]["range"]["start"] == PosOf(text, "vk = T.axis"), vk.dump().c_str());
    std::string iter = HoverText(c.Call("textDocument/hover", At(uri, PosOf(text, "A[vi, vk, vj]", 0, 6))));
    QVERIFY2(iter.find("reduce") != std::string::npos, iter.c_str());
    // Elsewhere in the function: the block, a loop, C's references.
    std::string block = HoverText(c.Call("textDocument/hover", At(uri, PosOf(text, "\"C\"", 0, 1))));
    QVERIFY2(block.find("iter vars") != std::string::npos, block.c_str());
    std::string loop = HoverText(c.Call("textDocument/hover", At(uri, PosOf(text, "for i", 0, 4))));
    QVERIFY2(loop.find("serial") != std::string::npos, loop.c_str());
    json refs = c.Call("textDocument/references",
                       {{"textDocument", TextDoc(uri)}, {"position", PosOf(text, "A: T.Buffer")},
                        {"context", {{"includeDeclaration", true}}}})["result"];
    QCOMPARE(refs.size(), size_t(3));  // the parameter, T.reads, the failing statement
    // The outline still lists the function.
    json symbols = c.Call("textDocument/documentSymbol", {{"textDocument", TextDoc(uri)}})["result"];
    QVERIFY2(symbols.dump().find("\"main\"") != std::string::npos, symbols.dump().c_str());

    // A top-level function (no module at all) with the same error.
    const char* lone = R"(@T.prim_func
def f(A: T.Buffer((4, 4), "float32"), B: T.Buffer((4,), "float32")):
    for i in range(4):
        B[i] = A[i, 0, 0]
)";
    c.Open("file:///lone.py", lone);
    QCOMPARE(c.Diagnostics("file:///lone.py")->size(), size_t(1));
    std::string la = HoverText(c.Call("textDocument/hover", At("file:///lone.py", PosOf(lone, "A[i, 0, 0]"))));
    QVERIFY2(la.find("(4, 4)") != std::string::npos, la.c_str());
    json lb = c.Call("textDocument/definition", At("file:///lone.py", PosOf(lone, "B[i] =")))["result"];
    QCOMPARE(lb.size(), size_t(1));
    QVERIFY2(lb[0]["range"]["start"] == PosOf(lone, "B: T.Buffer"), lb.dump().c_str());
  }

  // An IRModule of a PrimFunc and a Relax function calling it, where one function (the Relax
  // one or the PrimFunc) has a semantic error: hover, definition, references, completion and the
  // outline still answer in the other function and in the healthy parts of the failing one.
  void navigationInRelaxWithASemanticError_data() {
    QTest::addColumn<QString>("from");
    QTest::addColumn<QString>("to");
    QTest::addColumn<QString>("error");
    QTest::newRow("R.call_tir to an unknown function")
        << "R.call_tir(cls.bias_relu," << "R.call_tir(cls.bias_reluu," << "bias_reluu";
    QTest::newRow("an op with wrong argument types")
        << "R.matmul(lv1, w1, " << "R.matmul(lv1, w0, " << "matmul";
    QTest::newRow("a PrimFunc's buffer indexed with the wrong rank")
        << "+ b[vj]" << "+ b[vi, vj]" << "has 1 dimension but is indexed with 2";
  }

  void navigationInRelaxWithASemanticError() {
    QFETCH(QString, from);
    QFETCH(QString, to);
    QFETCH(QString, error);
    std::string text = ReadExample("mlp.py");
    size_t at = text.find(from.toStdString());
    QVERIFY(at != std::string::npos);
    text.replace(at, from.size(), to.toStdString());
    LspClient c;
    c.Initialize();
    std::string uri = "file:///relax_semantic.py";
    c.Open(uri, text);
    auto d = c.Diagnostics(uri);
    QVERIFY(d.has_value());
    QCOMPARE(d->size(), size_t(1));
    QVERIFY2((*d)[0]["message"].get<std::string>().find(error.toStdString()) != std::string::npos, d->dump().c_str());
    auto definition = [&](const json& pos) { return c.Call("textDocument/definition", At(uri, pos))["result"]; };
    auto starts_at = [&](const json& locations, const json& pos) {
      return locations.is_array() && locations.size() == 1 && locations[0]["range"]["start"] == pos &&
             locations[0]["uri"] == uri;
    };

    // The Relax function: a parameter, a dataflow var, an output var, the module alias.
    std::string x = HoverText(c.Call("textDocument/hover", At(uri, PosOf(text, "R.matmul(x", 0, 9))));
    QVERIFY2(x.find("x: R.Tensor((8, 32)") != std::string::npos && x.find("parameter") != std::string::npos, x.c_str());
    json x_def = definition(PosOf(text, "R.matmul(x", 0, 9));
    QVERIFY2(starts_at(x_def, PosOf(text, "x: R.Tensor")), x_def.dump().c_str());
    std::string lv = HoverText(c.Call("textDocument/hover", At(uri, PosOf(text, "(lv, b0)", 0, 1))));
    QVERIFY2(lv.find("R.Tensor((8, 64)") != std::string::npos && lv.find("dataflow variable") != std::string::npos,
             lv.c_str());
    json lv_def = definition(PosOf(text, "(lv, b0)", 0, 1));
    QVERIFY2(starts_at(lv_def, PosOf(text, "lv: R.Tensor")), lv_def.dump().c_str());
    json gv_refs = c.Call("textDocument/references",
                          {{"textDocument", TextDoc(uri)}, {"position", PosOf(text, "return gv", 0, 7)},
                           {"context", {{"includeDeclaration", true}}}})["result"];
    QCOMPARE(gv_refs.size(), size_t(3));  // the binding, R.output, the return
    QVERIFY2(gv_refs[0]["range"]["start"] == PosOf(text, "gv: R.Tensor"), gv_refs.dump().c_str());
    json w1_refs = c.Call("textDocument/references",
                          {{"textDocument", TextDoc(uri)}, {"position", PosOf(text, "w1: R.Tensor")},
                           {"context", {{"includeDeclaration", true}}}})["result"];
    QCOMPARE(w1_refs.size(), size_t(from.startsWith("R.matmul") ? 1 : 2));
    // The call_tir target goes to its PrimFunc (when the call names one).
    if (!from.startsWith("R.call_tir")) {
      json target = definition(PosOf(text, "cls.bias_relu", 0, 4));
      QVERIFY2(starts_at(target, PosOf(text, "bias_relu(x: T.Buffer")), target.dump().c_str());
      std::string f = HoverText(c.Call("textDocument/hover", At(uri, PosOf(text, "cls.bias_relu", 0, 4))));
      QVERIFY2(f.find("@T.prim_func") != std::string::npos && f.find("def bias_relu(x: T.Buffer((8, 64)") != std::string::npos,
               f.c_str());
    }
    // Completion in the last binding: parameters, earlier bindings, functions.
    auto names = Labels(c.Call("textDocument/completion", At(uri, PosOf(text, "R.add(lv2", 0, 6))));
    for (const char* l : {"x", "w0", "b1", "lv", "lv1", "lv2", "main", "bias_relu", "R"}) QVERIFY2(Has(names, l), l);
    QVERIFY(!Has(names, "vi"));

    // The PrimFunc: a buffer, an iter var, the block.
    std::string y = HoverText(c.Call("textDocument/hover", At(uri, PosOf(text, "y[vi, vj] = T.max"))));
    QVERIFY2(y.find("(8, 64)") != std::string::npos && y.find("float32") != std::string::npos, y.c_str());
    json vj = definition(PosOf(text, "y[vi, vj] = T.max", 0, 6));
    QVERIFY2(starts_at(vj, PosOf(text, "vi, vj = T.axis", 0, 4)), vj.dump().c_str());
    std::string block = HoverText(c.Call("textDocument/hover", At(uri, PosOf(text, "\"bias_relu\"", 0, 1))));
    QVERIFY2(block.find("iter vars") != std::string::npos, block.c_str());

    // The outline: both functions, main with its parameters.
    json symbols = c.Call("textDocument/documentSymbol", {{"textDocument", TextDoc(uri)}})["result"];
    QCOMPARE(symbols.size(), size_t(1));
    std::vector<std::string> functions;
    for (const json& f : symbols[0]["children"]) functions.push_back(f["name"]);
    QVERIFY2(Has(functions, "bias_relu") && Has(functions, "main"), symbols.dump().c_str());
    for (const json& f : symbols[0]["children"]) {
      if (f["name"] != "main") continue;
      QVERIFY2(f["detail"].get<std::string>().find("def main(x: R.Tensor((8, 32)") == 0, f.dump().c_str());
      QCOMPARE(f["children"].size(), size_t(5));
    }
  }

  void documentSymbols() {
    LspClient c;
    c.Initialize();
    std::string text = ReadExample("softmax.py");
    c.Open("file:///softmax.py", text);
    json syms = c.Call("textDocument/documentSymbol", {{"textDocument", TextDoc("file:///softmax.py")}})["result"];
    QCOMPARE(syms.size(), size_t(1));
    QCOMPARE(syms[0]["name"].get<std::string>(), std::string("Module"));
    QCOMPARE(syms[0]["kind"].get<int>(), 2);
    const json& main = syms[0]["children"][0];
    QCOMPARE(main["name"].get<std::string>(), std::string("main"));
    std::vector<std::string> names;
    for (const json& child : main["children"]) names.push_back(child["name"]);
    for (const char* n : {"logits", "probs", "row_max", "exp", "row_sum", "normalize"}) QVERIFY2(Has(names, n), n);
    // Blocks are Structs and buffers Arrays.
    for (const json& child : main["children"]) {
      if (child["name"] == "normalize") QCOMPARE(child["kind"].get<int>(), 23);
      if (child["name"] == "logits") QCOMPARE(child["kind"].get<int>(), 18);
    }
  }

  void completion() {
    LspClient c;
    c.Initialize();
    std::string text = ReadExample("matmul.py");
    std::string uri = "file:///matmul.py";
    c.Open(uri, text);
    // After `T.`
    auto t = Labels(c.Call("textDocument/completion", At(uri, PosOf(text, "T.grid", 0, 2))));
    for (const char* l : {"grid", "sblock", "exp", "float32", "Buffer"}) QVERIFY2(Has(t, l), l);
    // Names in scope inside the block.
    auto names = Labels(c.Call("textDocument/completion", At(uri, PosOf(text, "C[vi, vj] = C", 0, 0))));
    for (const char* l : {"A", "B", "C", "vi", "vk", "i", "T"}) QVERIFY2(Has(names, l), l);
    // dtype strings inside a string literal.
    auto dtypes = Labels(c.Call("textDocument/completion", At(uri, PosOf(text, "\"float32\"", 0, 1))));
    QVERIFY(Has(dtypes, "float16"));
    // T.axis. members
    auto axis = Labels(c.Call("textDocument/completion", At(uri, PosOf(text, "T.axis.remap", 0, 7))));
    QVERIFY(Has(axis, "remap") && Has(axis, "spatial"));
  }

  void formatting() {
    LspClient c;
    c.Initialize();
    std::string text = ReadExample("matmul.py");
    // Non-canonical spacing gets one whole-document edit with the canonical text.
    std::string messy = text;
    messy.replace(messy.find("T.grid(256, 256, 256)"), 21, "T.grid(256,256,  256)");
    c.Open("file:///m.py", messy);
    json edits = c.Call("textDocument/formatting",
                        {{"textDocument", TextDoc("file:///m.py")}, {"options", {{"tabSize", 4}, {"insertSpaces", true}}}})["result"];
    QCOMPARE(edits.size(), size_t(1));
    std::string formatted = edits[0]["newText"];
    QVERIFY2(formatted.find("T.grid(256, 256, 256)") != std::string::npos, formatted.c_str());
    // A file that does not parse is refused with a message.
    c.Open("file:///bad.py", "@T.prim_func\ndef f(A: T.Buffer((4,), \"float32\")):\n    A[0] = = 1\n");
    json r = c.Call("textDocument/formatting", {{"textDocument", TextDoc("file:///bad.py")}, {"options", json::object()}});
    QCOMPARE(r["error"]["code"].get<int>(), -32803);
    QVERIFY(r["error"]["message"].get<std::string>().find("does not parse") != std::string::npos);
  }

  void folding() {
    LspClient c;
    c.Initialize();
    std::string text = ReadExample("matmul.py");
    c.Open("file:///matmul.py", text);
    json ranges = c.Call("textDocument/foldingRange", {{"textDocument", TextDoc("file:///matmul.py")}})["result"];
    int def_line = PosOf(text, "def main")["line"];
    int block_line = PosOf(text, "with T.sblock(\"C\")")["line"];
    bool def_found = false, block_found = false, comment_found = false;
    for (const json& r : ranges) {
      if (r["startLine"] == def_line && r["endLine"] == 17) def_found = true;
      if (r["startLine"] == block_line && r["endLine"] == 17) block_found = true;
      if (r.value("kind", "") == "comment" && r["startLine"] == 0 && r["endLine"] == 2) comment_found = true;
    }
    QVERIFY2(def_found && block_found && comment_found, ranges.dump().c_str());
  }

  void protocolErrors() {
    LspClient c;
    c.Initialize();
    c.SendRaw("{not json");
    auto parse_error = c.WaitFor([](const json& m) { return m.contains("error"); });
    QVERIFY(parse_error.has_value());
    QCOMPARE((*parse_error)["error"]["code"].get<int>(), -32700);
    QCOMPARE(c.Call("no/such/method", json::object())["error"]["code"].get<int>(), -32601);
    QCOMPARE(c.Call("textDocument/hover", {{"textDocument", 3}})["error"]["code"].get<int>(), -32602);
    QCOMPARE(c.Call("textDocument/hover", At("file:///never-opened.py", Pos(0, 0)))["error"]["code"].get<int>(), -32602);
    c.Send({{"jsonrpc", "2.0"}, {"id", 99}, {"params", json::object()}});
    auto invalid = c.Response(99);
    QVERIFY(invalid.has_value());
    QCOMPARE((*invalid)["error"]["code"].get<int>(), -32600);
    // Still serving.
    QVERIFY(c.Call("textDocument/foldingRange", {{"textDocument", TextDoc("file:///x.py")}}).contains("error"));
    QCOMPARE(c.ShutdownAndExit(), 0);
  }

  void malformedFraming() {
    LspClient c;
    c.Initialize();
    // A header block without Content-Length is skipped; the next message is served.
    c.process().write("X-Nonsense: 1\r\n\r\n");
    QVERIFY(c.Call("textDocument/foldingRange", {{"textDocument", TextDoc("file:///x.py")}}).contains("error"));
    // An absurd length cannot be framed: the server says so and stops cleanly (no crash).
    c.process().write("Content-Length: 99999999999\r\n\r\n{}");
    auto log = c.WaitFor([](const json& m) { return m.value("method", "") == "window/logMessage"; });
    QVERIFY(log.has_value());
    QVERIFY2((*log)["params"]["message"].get<std::string>().find("exceeds") != std::string::npos, log->dump().c_str());
    QVERIFY(c.process().waitForFinished(10000));
    QCOMPARE(c.process().exitStatus(), QProcess::NormalExit);
    QCOMPARE(c.process().exitCode(), 1);
  }

  void cancelledRequestIsAnsweredWithRequestCancelled() {
    LspClient c;
    c.Initialize();
    // A large document keeps the server busy with the first request while the cancellation of
    // the second arrives.
    std::string one = ReadExample("matmul.py");
    std::string body = one.substr(one.find("    @T.prim_func"));
    std::string big = one;
    for (int i = 0; i < 400; ++i) {
      std::string copy = body;
      copy.replace(copy.find("def main"), 8, "def main_" + std::to_string(i));
      big += "\n\n" + copy;
    }
    c.Open("file:///big.py", big);
    int slow = c.Request("textDocument/documentSymbol", {{"textDocument", TextDoc("file:///big.py")}});
    int victim = c.Request("textDocument/documentSymbol", {{"textDocument", TextDoc("file:///big.py")}});
    c.Notify("$/cancelRequest", {{"id", victim}});
    QVERIFY(c.Response(slow, 60000).has_value());
    auto r = c.Response(victim, 60000);
    QVERIFY(r.has_value());
    QCOMPARE((*r)["error"]["code"].get<int>(), -32800);
  }

  void exitWithoutShutdownFails() {
    LspClient c;
    c.Initialize();
    c.Notify("exit", nullptr);
    c.process().waitForFinished(10000);
    QCOMPARE(c.process().exitCode(), 1);
    // After shutdown, requests are refused.
    LspClient d;
    d.Initialize();
    QVERIFY(d.Call("shutdown", nullptr).contains("result"));
    QCOMPARE(d.Call("textDocument/hover", At("file:///x.py", Pos(0, 0)))["error"]["code"].get<int>(), -32600);
  }

  // Random insertions and deletions at random points of every example: the server stays up,
  // answers every request, and its text stays in sync with ours (checked at the end by
  // restoring the original text through incremental edits: no diagnostics again).
  void randomEditsKeepTheServerUp() {
    LspClient c;
    c.Initialize();
    QRandomGenerator rng(20261129);
    const char* snippets[] = {"x", " ", "\n", ":", "(", ")", "[", "]", "\"", "T.", "for", "with T.sblock(\"b\"):\n",
                              "A[", "vi", "é", "\t", "#", "@", "def f(", "T.Buffer((", "0.5", "𝄞"};
    for (const QString& name : ExampleNames()) {
      std::string original = ReadExample(name);
      std::string text = original;
      std::string uri = "file:///fuzz/" + name.toStdString();
      c.Open(uri, text);
      int version = 1;
      for (int step = 0; step < 60; ++step) {
        // Work in code points so that edits never split a UTF-8 sequence (positions are UTF-16).
        std::u32string u = QString::fromStdString(text).toStdU32String();
        size_t a = rng.bounded(static_cast<quint32>(u.size() + 1));
        size_t b = std::min(u.size(), a + rng.bounded(6u));
        std::string insert = rng.bounded(2u) ? snippets[rng.bounded(static_cast<quint32>(std::size(snippets)))] : "";
        auto pos = [&](size_t cp) {
          int line = 0, col = 0;
          for (size_t i = 0; i < cp; ++i) {
            if (u[i] == U'\n') {
              ++line;
              col = 0;
            } else {
              col += u[i] > 0xFFFF ? 2 : 1;
            }
          }
          return Pos(line, col);
        };
        json range = {{"start", pos(a)}, {"end", pos(b)}};
        std::u32string ins = QString::fromStdString(insert).toStdU32String();
        u.replace(a, b - a, ins);
        text = QString::fromStdU32String(u).toStdString();
        c.Change(uri, ++version, range, insert);
        const char* methods[] = {"textDocument/hover", "textDocument/completion", "textDocument/definition",
                                 "textDocument/references", "textDocument/documentHighlight"};
        json at = At(uri, pos(rng.bounded(static_cast<quint32>(u.size() + 1))));
        at["context"] = {{"includeDeclaration", true}};
        json r = c.Call(methods[step % 5], at);
        QVERIFY2(r.contains("result"), (name.toStdString() + " step " + std::to_string(step) + ": " + r.dump()).c_str());
        if (step % 10 == 0) {
          QVERIFY(c.Call("textDocument/documentSymbol", {{"textDocument", TextDoc(uri)}}).contains("result"));
          json f = c.Call("textDocument/formatting", {{"textDocument", TextDoc(uri)}, {"options", json::object()}});
          QVERIFY(f.contains("result") || f["error"]["code"] == -32803);
        }
      }
      QVERIFY(c.running());
      std::u32string u = QString::fromStdString(text).toStdU32String();
      int lines = 0, col = 0;
      for (char32_t ch : u) {
        if (ch == U'\n') {
          ++lines;
          col = 0;
        } else {
          col += ch > 0xFFFF ? 2 : 1;
        }
      }
      c.Change(uri, ++version, Range(0, 0, lines, col), original);
      auto d = c.Diagnostics(uri, version);
      QVERIFY(d.has_value());
      QVERIFY2(d->empty(), (name.toStdString() + ": " + d->dump()).c_str());
    }
    QCOMPARE(c.ShutdownAndExit(), 0);
  }
};

QTEST_APPLESS_MAIN(TestLsp)
#include "tst_lsp.moc"
