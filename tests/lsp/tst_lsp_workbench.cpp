// The workbench's own LSP features, end to end against the real workbench-lsp binary: code
// actions (schedule primitives at a loop, passes and pipelines, resolved lazily or at once),
// workbench/passSnapshots (with pass control), workbench/applySchedule, Relax well-formedness in
// the diagnostics, signature help, semantic tokens, workspace
// symbols and completion of the R., I. and sch. namespaces.
#include <QFile>
#include <QTest>
#include <map>
#include <set>

#include "lsp_client.h"

namespace {

std::string ReadExample(const QString& name) {
  QFile f(QString::fromUtf8(qgetenv("WB_SOURCE_DIR")) + "/resources/examples/" + name);
  if (!f.open(QIODevice::ReadOnly)) return {};
  return f.readAll().toStdString();
}

json PosOf(const std::string& text, const std::string& needle, int shift = 0) {
  size_t at = text.find(needle);
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

json CodeActions(LspClient& c, const std::string& uri, const json& pos, json only = nullptr) {
  json context = {{"diagnostics", json::array()}};
  if (!only.is_null()) context["only"] = only;
  return c.Call("textDocument/codeAction", {{"textDocument", TextDoc(uri)},
                                            {"range", {{"start", pos}, {"end", pos}}},
                                            {"context", context}});
}

const json* FindTitle(const json& actions, const std::string& prefix) {
  for (const json& a : actions) {
    if (a["title"].get<std::string>().rfind(prefix, 0) == 0) return &a;
  }
  return nullptr;
}

std::string EditText(const json& action, const std::string& uri) {
  return action["edit"]["changes"][uri][0]["newText"].get<std::string>();
}

std::vector<std::string> Labels(const json& response) {
  std::vector<std::string> out;
  for (const json& item : response["result"]["items"]) out.push_back(item["label"]);
  return out;
}

bool Has(const std::vector<std::string>& v, const std::string& s) {
  return std::find(v.begin(), v.end(), s) != v.end();
}

void InitializeWithResolve(LspClient& c) {
  json caps = {
      {"textDocument", {{"codeAction", {{"resolveSupport", {{"properties", {"edit"}}}}}}}}};
  auto r = c.Response(c.Request(
      "initialize", {{"processId", nullptr}, {"rootUri", nullptr}, {"capabilities", caps}}));
  QVERIFY(r && r->contains("result"));
  c.Notify("initialized", json::object());
}

}  // namespace

class TestLspWorkbench : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  void advertisesTheNewCapabilities() {
    LspClient c;
    c.Initialize();
    const json& caps = c.initialize_result()["result"]["capabilities"];
    QVERIFY(caps["codeActionProvider"]["resolveProvider"].get<bool>());
    QVERIFY(caps["workspaceSymbolProvider"].get<bool>());
    QVERIFY(caps.contains("signatureHelpProvider"));
    QCOMPARE(caps["semanticTokensProvider"]["legend"]["tokenTypes"][0].get<std::string>(),
             std::string("namespace"));
    QCOMPARE(c.ShutdownAndExit(), 0);
  }

  void scheduleCodeActionsAtALoop() {
    LspClient c;
    c.Initialize();
    std::string text = ReadExample("matmul.py");
    QVERIFY(!text.empty());
    c.Open("file:///m.py", text);
    json r =
        CodeActions(c, "file:///m.py", PosOf(text, "for i, j, k", 4), json::array({"refactor"}));
    QVERIFY2(r.contains("result"), r.dump().c_str());
    const json& actions = r["result"];
    const json* split = FindTitle(actions, "Schedule: Split loop i by 32");
    QVERIFY2(split, actions.dump().c_str());
    std::string after = EditText(*split, "file:///m.py");
    QVERIFY2(after.find("for i_0, j, k, i_1 in") != std::string::npos ||
                 after.find("i_1") != std::string::npos,
             after.c_str());
    QVERIFY(FindTitle(actions, "Schedule: Parallelize loop i"));
    QVERIFY(FindTitle(actions, "Schedule: Fuse loops i and j"));
    QVERIFY(FindTitle(actions, "Schedule: Reorder: move loop j outside i"));
    // Vectorizing i would be refused by the schedule (i is not the innermost, k is a reduction
    // under it... the schedule decides): whatever is offered has been checked to apply.
    for (const json& a : actions) {
      QCOMPARE(a["kind"].get<std::string>(), std::string("refactor.rewrite"));
      QVERIFY(a["edit"]["changes"].contains("file:///m.py"));
    }
    // The reduction loop k cannot be parallelized: no such action.
    json rk =
        CodeActions(c, "file:///m.py", PosOf(text, "for i, j, k", 10), json::array({"refactor"}));
    QVERIFY(!FindTitle(rk["result"], "Schedule: Parallelize loop k"));
    QVERIFY(FindTitle(rk["result"], "Schedule: Unroll loop k"));
    // The text is printed TVMScript that parses: open the result and get no diagnostics.
    c.Open("file:///after.py", after);
    auto diags = c.Diagnostics("file:///after.py");
    QVERIFY(diags);
    QVERIFY2(diags->empty(), diags->dump().c_str());
    QCOMPARE(c.ShutdownAndExit(), 0);
  }

  void tensorizeActionAtATile() {
    // A matmul tiled for the 1x16x4 FMA intrinsic: its j_1 loop's subtree matches it.
    std::string text = R"(# from tvm.script import ir as I
# from tvm.script import tirx as T

@I.ir_module
class Module:
    @T.prim_func(s_tir=True)
    def main(A: T.Buffer((4, 8), "float32"), B: T.Buffer((8, 32), "float32"), C: T.Buffer((4, 32), "float32")):
        for i, j_0 in T.grid(4, 2):
            for j_1_init in range(16):
                with T.sblock("C_init"):
                    vi = T.axis.spatial(4, i)
                    vj = T.axis.spatial(32, j_0 * 16 + j_1_init)
                    T.reads()
                    T.writes(C[vi, vj])
                    C[vi, vj] = T.float32(0.0)
            for k_0, j_1, k_1 in T.grid(2, 16, 4):
                with T.sblock("C_update"):
                    vi = T.axis.spatial(4, i)
                    vj = T.axis.spatial(32, j_0 * 16 + j_1)
                    vk = T.axis.reduce(8, k_0 * 4 + k_1)
                    T.reads(C[vi, vj], A[vi, vk], B[vk, vj])
                    T.writes(C[vi, vj])
                    C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj]
)";
    LspClient c;
    c.Initialize();
    c.Open("file:///t.py", text);
    json r = CodeActions(c, "file:///t.py", PosOf(text, "k_0, j_1", 5), json::array({"refactor"}));
    const json* t = FindTitle(r["result"], "Schedule: Tensorize loop j_1 with fma_f32_1x16x4_avx512");
    QVERIFY2(t, r.dump().c_str());
    std::string after = EditText(*t, "file:///t.py");
    QVERIFY2(after.find("T.match_buffer(C[vi_o, vj_o * 16:vj_o * 16 + 16], (16,)") != std::string::npos,
             after.c_str());
    // No other intrinsic fits that tile, and none fits the loop k_1.
    for (const json& a : r["result"]) {
      std::string title = a["title"].get<std::string>();
      QVERIFY2(title.find("Tensorize") == std::string::npos ||
                   title == "Schedule: Tensorize loop j_1 with fma_f32_1x16x4_avx512",
               title.c_str());
    }
    json rk = CodeActions(c, "file:///t.py", PosOf(text, "j_1, k_1", 5), json::array({"refactor"}));
    QVERIFY(!rk["result"].dump().empty());
    QVERIFY2(rk["result"].dump().find("Tensorize") == std::string::npos, rk.dump().c_str());
    QCOMPARE(c.ShutdownAndExit(), 0);
  }

  void passActionsResolveLazilyOrAtOnce() {
    std::string text = ReadExample("matmul.py");
    {
      LspClient c;
      InitializeWithResolve(c);
      c.Open("file:///m.py", text);
      json r = CodeActions(c, "file:///m.py", Pos(0, 0), json::array({"source"}));
      const json* lower = FindTitle(r["result"], "Apply pass LowerInitBlock");
      QVERIFY2(lower, r.dump().c_str());
      QVERIFY(!lower->contains("edit"));
      json resolved = c.Call("codeAction/resolve", *lower);
      QVERIFY2(resolved.contains("result"), resolved.dump().c_str());
      std::string after = EditText(resolved["result"], "file:///m.py");
      QVERIFY(after.find("T.init()") == std::string::npos);
      QVERIFY(after.find("if vk == 0:") != std::string::npos);
      // A stale action is refused once the document changed.
      c.Change("file:///m.py", 2, Range(0, 0, 0, 0), "# edited\n");
      json stale = c.Call("codeAction/resolve", *lower);
      QVERIFY2(stale.contains("error"), stale.dump().c_str());
      QCOMPARE(stale["error"]["code"].get<int>(), -32801);
      // A pass that fails on this module says why.
      json bad = *lower;
      bad["data"]["pipeline"] = "NoSuchPass";
      bad["data"]["version"] = 2;
      json failed = c.Call("codeAction/resolve", bad);
      QVERIFY(failed.contains("error"));
      QVERIFY(failed["error"]["message"].get<std::string>().find("NoSuchPass") !=
              std::string::npos);
      QCOMPARE(c.ShutdownAndExit(), 0);
    }
    LspClient c;
    c.Initialize();  // no resolve support: edits come with the actions
    c.Open("file:///m.py", text);
    json r = CodeActions(c, "file:///m.py", Pos(0, 0), json::array({"source"}));
    const json* lower = FindTitle(r["result"], "Apply pass LowerInitBlock");
    QVERIFY(lower);
    QVERIFY(EditText(*lower, "file:///m.py").find("if vk == 0:") != std::string::npos);
    // Passes that leave the module as it is are not offered.
    QVERIFY(!FindTitle(r["result"], "Apply pass RemoveNoOp"));
    // A file with errors offers nothing to rewrite, and says nothing is wrong with asking.
    c.Open("file:///bad.py", "def broken(:\n");
    json none = CodeActions(c, "file:///bad.py", Pos(0, 0));
    QVERIFY(none["result"].empty());
    QCOMPARE(c.ShutdownAndExit(), 0);
  }

  void passSnapshotsRequest() {
    LspClient c;
    c.Initialize();
    std::string text = ReadExample("matmul.py");
    c.Open("file:///m.py", text);
    json r = c.Call("workbench/passSnapshots", {{"textDocument", TextDoc("file:///m.py")},
                                                {"pipeline", "LowerInitBlock, RemoveNoOp"}});
    QVERIFY2(r.contains("result"), r.dump().c_str());
    const json& res = r["result"];
    QVERIFY(res["ok"].get<bool>());
    QCOMPARE(res["passes"].size(), size_t(2));
    QCOMPARE(res["passes"][0]["name"].get<std::string>(), std::string("LowerInitBlock"));
    QVERIFY(res["passes"][0]["changed"].get<bool>());
    QVERIFY(!res["passes"][1]["changed"].get<bool>());
    QVERIFY(res["passes"][0]["before"].get<std::string>().find("T.init()") != std::string::npos);
    QVERIFY(res["passes"][0]["after"].get<std::string>().find("T.init()") == std::string::npos);
    QVERIFY(res["passes"][0]["milliseconds"].is_number());
    json bad = c.Call("workbench/passSnapshots",
                      {{"textDocument", TextDoc("file:///m.py")}, {"pipeline", "Nope"}});
    QVERIFY(!bad["result"]["ok"].get<bool>());
    QVERIFY(bad["result"]["error"].get<std::string>().find("Nope") != std::string::npos);
    // The passes that crash on purpose for the batch runner's tests are not in the server.
    json abort = c.Call("workbench/passSnapshots",
                        {{"textDocument", TextDoc("file:///m.py")}, {"pipeline", "TestingAbort"}});
    QVERIFY2(abort.contains("result") && !abort["result"]["ok"].get<bool>(), abort.dump().c_str());
    QVERIFY(abort["result"]["error"].get<std::string>().find("unknown pass") != std::string::npos);
    QVERIFY(c.running());
    QCOMPARE(c.ShutdownAndExit(), 0);
  }

  void passSnapshotsTakesThePassControl() {
    LspClient c;
    c.Initialize();
    const std::string text =
        "@T.prim_func\n"
        "def scale(A: T.Buffer((8,), \"float32\"), B: T.Buffer((8,), \"float32\")):\n"
        "    for i in range(8):\n"
        "        B[i] = A[i] * T.float32(2.0)\n";
    c.Open("file:///s.py", text);
    json params = {{"textDocument", TextDoc("file:///s.py")}, {"pipeline", "UnrollLoop, RemoveNoOp"}};
    json plain = c.Call("workbench/passSnapshots", params);
    QVERIFY2(plain["result"]["ok"].get<bool>(), plain.dump().c_str());
    QCOMPARE(plain["result"]["passes"].size(), size_t(2));
    QVERIFY(!plain["result"]["passes"][0]["changed"].get<bool>());
    // The config unrolls the loop; the disabled pass is not run.
    params["pass_config"] = {{"tirx.UnrollLoop", {{"auto_max_step", 8}}}};
    params["disabled_passes"] = {"RemoveNoOp"};
    json r = c.Call("workbench/passSnapshots", params);
    QVERIFY2(r.contains("result") && r["result"]["ok"].get<bool>(), r.dump().c_str());
    const json& passes = r["result"]["passes"];
    QCOMPARE(passes.size(), size_t(1));
    QCOMPARE(passes[0]["name"].get<std::string>(), std::string("UnrollLoop"));
    QVERIFY(passes[0]["changed"].get<bool>());
    std::string after = passes[0]["after"].get<std::string>();
    QVERIFY2(after.find("for i") == std::string::npos && after.find("B[7] = A[7]") != std::string::npos,
             after.c_str());
    // Mistakes are invalid params that name the key, the field or the pass.
    json bad_key = params;
    bad_key["pass_config"] = {{"tirx.Unroll", {{"auto_max_step", 8}}}};
    json e = c.Call("workbench/passSnapshots", bad_key);
    QVERIFY2(e.contains("error"), e.dump().c_str());
    QCOMPARE(e["error"]["code"].get<int>(), -32602);
    QVERIFY2(e["error"]["message"].get<std::string>().find(
                 "unknown pass config key 'tirx.Unroll' (did you mean tirx.UnrollLoop?)") != std::string::npos,
             e.dump().c_str());
    json bad_pass = params;
    bad_pass["disabled_passes"] = {"RemoveNoop"};
    e = c.Call("workbench/passSnapshots", bad_pass);
    QCOMPARE(e["error"]["code"].get<int>(), -32602);
    QVERIFY(e["error"]["message"].get<std::string>().find("did you mean RemoveNoOp?") != std::string::npos);
    json bad_level = params;
    bad_level["opt_level"] = 7;
    e = c.Call("workbench/passSnapshots", bad_level);
    QCOMPARE(e["error"]["code"].get<int>(), -32602);
    QVERIFY(e["error"]["message"].get<std::string>().find("opt level 7 is out of range") != std::string::npos);
    QCOMPARE(c.ShutdownAndExit(), 0);
  }

  void relaxWellFormednessInTheDiagnostics() {
    LspClient c;
    c.Initialize();
    // Parses, but a function annotated pure (the default) calls an impure op.
    const std::string text =
        "@I.ir_module\n"
        "class Module:\n"
        "    @R.function\n"
        "    def main(x: R.Tensor((4,), dtype=\"float32\")) -> R.Tensor((4,), dtype=\"float32\"):\n"
        "        y = R.add(x, x)\n"
        "        z = R.memory.kill_tensor(x)\n"
        "        return y\n";
    c.Open("file:///impure.py", text);
    auto d = c.Diagnostics("file:///impure.py");
    QVERIFY(d.has_value());
    QCOMPARE(d->size(), size_t(1));
    const json& diag = (*d)[0];
    QCOMPARE(diag["message"].get<std::string>(),
             std::string("impure call to relax.memory.kill_tensor inside a function annotated pure"));
    QCOMPARE(diag["severity"].get<int>(), 1);
    QCOMPARE(diag["range"]["start"]["line"].get<int>(), 5);
    QCOMPARE(diag["range"]["start"]["character"].get<int>(), 12);  // the call
    // Saying what the function is makes it well-formed.
    c.Change("file:///impure.py", 2, Range(2, 15, 2, 15), "(pure=False)");
    auto clean = c.Diagnostics("file:///impure.py", 2);
    QVERIFY(clean.has_value());
    QVERIFY2(clean->empty(), clean->dump().c_str());
    QCOMPARE(c.ShutdownAndExit(), 0);
  }

  void applyScheduleRequest() {
    LspClient c;
    c.Initialize();
    std::string text = ReadExample("matmul.py");
    c.Open("file:///m.py", text);
    std::string recipe =
        "b0 = sch.get_sblock(name=\"C\", func_name=\"main\")\n"
        "l1, l2, l3 = sch.get_loops(block=b0)\n"
        "l4, l5 = sch.split(loop=l2, factors=[None, 16])\n"
        "sch.parallel(loop=l1)\n";
    json r = c.Call("workbench/applySchedule",
                    {{"textDocument", TextDoc("file:///m.py")}, {"recipe", recipe}});
    QVERIFY2(r.contains("result") && r["result"]["ok"].get<bool>(), r.dump().c_str());
    std::string after = r["result"]["text"];
    QVERIFY2(after.find("T.parallel(256)") != std::string::npos, after.c_str());
    QVERIFY(r["result"]["trace"].get<std::string>().find("sch.split(loop=l2, factors=[None, 16]") !=
            std::string::npos);
    // A primitive that does not apply: the schedule error, at its line of the recipe.
    json e =
        c.Call("workbench/applySchedule", {{"textDocument", TextDoc("file:///m.py")},
                                           {"recipe",
                                            "b0 = sch.get_sblock(name=\"C\")\nl1, l2, l3 = "
                                            "sch.get_loops(block=b0)\nsch.vectorize(loop=l3)\n"}});
    QVERIFY(!e["result"]["ok"].get<bool>());
    QVERIFY(e["result"]["error"]["message"].get<std::string>().find("ScheduleError") !=
            std::string::npos);
    QCOMPARE(e["result"]["error"]["line"].get<int>(), 2);
    // Garbage and a missing parameter are answered, never fatal.
    json g = c.Call("workbench/applySchedule",
                    {{"textDocument", TextDoc("file:///m.py")}, {"recipe", "sch.split(((("}});
    QVERIFY(!g["result"]["ok"].get<bool>());
    json m = c.Call("workbench/applySchedule", {{"textDocument", TextDoc("file:///m.py")}});
    QCOMPARE(m["error"]["code"].get<int>(), -32602);
    QVERIFY(c.running());
    QCOMPARE(c.ShutdownAndExit(), 0);
  }

  void signatureHelp() {
    LspClient c;
    c.Initialize();
    std::string text = ReadExample("matmul.py");
    c.Open("file:///m.py", text);
    json r =
        c.Call("textDocument/signatureHelp", {{"textDocument", TextDoc("file:///m.py")},
                                              {"position", PosOf(text, "T.grid(256, 256", 12)}});
    QVERIFY2(r["result"].is_object(), r.dump().c_str());
    QCOMPARE(r["result"]["signatures"][0]["label"].get<std::string>(),
             std::string("T.grid(*extents)"));
    QCOMPARE(r["result"]["activeParameter"].get<int>(), 0);
    // A recipe: sch.split with the cursor on the factors keyword.
    std::string recipe = "l1, l2 = sch.split(loop=l0, factors=[None, ";
    c.Open("file:///r.recipe.py", recipe);
    json s = c.Call("textDocument/signatureHelp",
                    {{"textDocument", TextDoc("file:///r.recipe.py")},
                     {"position", Pos(0, static_cast<int>(recipe.size()))}});
    QVERIFY2(s["result"].is_object(), s.dump().c_str());
    QVERIFY(s["result"]["signatures"][0]["label"].get<std::string>().rfind(
                "sch.split(loop, factors", 0) == 0);
    QCOMPARE(s["result"]["activeParameter"].get<int>(), 1);
    // R. ops come from the Relax op registry.
    std::string relax = "x = R.add(a, ";
    c.Open("file:///x.py", relax);
    json a = c.Call("textDocument/signatureHelp",
                    {{"textDocument", TextDoc("file:///x.py")},
                     {"position", Pos(0, static_cast<int>(relax.size()))}});
    QVERIFY2(a["result"].is_object(), a.dump().c_str());
    QCOMPARE(a["result"]["activeParameter"].get<int>(), 1);
    // Outside any call: null.
    json n = c.Call("textDocument/signatureHelp",
                    {{"textDocument", TextDoc("file:///m.py")}, {"position", Pos(0, 0)}});
    QVERIFY(n["result"].is_null());
    QCOMPARE(c.ShutdownAndExit(), 0);
  }

  void semanticTokens() {
    LspClient c;
    c.Initialize();
    std::string text = ReadExample("matmul.py");
    c.Open("file:///m.py", text);
    json r =
        c.Call("textDocument/semanticTokens/full", {{"textDocument", TextDoc("file:///m.py")}});
    const json& data = r["result"]["data"];
    QVERIFY(data.size() % 5 == 0 && data.size() > 50);
    std::vector<std::string> types = {"namespace",     "function", "parameter", "variable",
                                      "typeParameter", "class",    "method"};
    // Decode and look up a few tokens by their text.
    std::vector<std::string> lines;
    size_t b = 0;
    for (size_t i = 0; i <= text.size(); ++i) {
      if (i == text.size() || text[i] == '\n') {
        lines.push_back(text.substr(b, i - b));
        b = i + 1;
      }
    }
    std::map<std::string, std::set<std::string>> kinds;
    int line = 0, col = 0;
    for (size_t i = 0; i < data.size(); i += 5) {
      int dl = data[i], dc = data[i + 1], len = data[i + 2], type = data[i + 3];
      line += dl;
      col = dl ? dc : col + dc;
      kinds[lines[line].substr(col, len)].insert(types[type]);
    }
    QVERIFY(kinds["T"].count("namespace"));
    QVERIFY(kinds["grid"].count("method"));
    QVERIFY(kinds["main"].count("function"));
    QVERIFY(kinds["vi"].count("variable"));
    QCOMPARE(c.ShutdownAndExit(), 0);
  }

  void workspaceSymbolsAcrossOpenFiles() {
    LspClient c;
    c.Initialize();
    c.Open("file:///m.py", ReadExample("matmul.py"));
    c.Open("file:///e.py", ReadExample("elementwise.py"));
    json r = c.Call("workspace/symbol", {{"query", ""}});
    std::set<std::string> uris;
    bool block_c = false;
    for (const json& s : r["result"]) {
      uris.insert(s["location"]["uri"].get<std::string>());
      block_c |= s["name"] == "C" && s["location"]["uri"] == "file:///m.py" && s["kind"] == 23;
    }
    QVERIFY(uris.count("file:///m.py") && uris.count("file:///e.py"));
    QVERIFY(block_c);
    json q = c.Call("workspace/symbol", {{"query", "MAI"}});
    QVERIFY(!q["result"].empty());
    for (const json& s : q["result"]) {
      std::string name = s["name"];
      std::transform(name.begin(), name.end(), name.begin(), ::tolower);
      QVERIFY(name.find("mai") != std::string::npos);
    }
    QCOMPARE(c.ShutdownAndExit(), 0);
  }

  void completionOfRIAndSch() {
    LspClient c;
    c.Initialize();
    std::string text = "x = R.\ny = R.nn.\nz = I.\nl = sch.\n";
    c.Open("file:///c.py", text);
    auto at = [&](int line, int col) {
      return Labels(c.Call("textDocument/completion", {{"textDocument", TextDoc("file:///c.py")},
                                                       {"position", Pos(line, col)}}));
    };
    auto r = at(0, 6);
    QVERIFY(Has(r, "add") && Has(r, "call_tir") && Has(r, "Tensor") && Has(r, "nn"));
    QVERIFY(!Has(r, "nn.conv2d"));
    auto nn = at(1, 9);
    QVERIFY2(Has(nn, "conv2d") || Has(nn, "relu"),
             QByteArray::fromStdString(json(nn).dump()).constData());
    QVERIFY(!Has(nn, "add"));
    auto i = at(2, 6);
    QVERIFY(Has(i, "ir_module"));
    auto s = at(3, 8);
    QVERIFY(Has(s, "split") && Has(s, "get_sblock") && Has(s, "compute_at"));
    QCOMPARE(c.ShutdownAndExit(), 0);
  }
};

QTEST_APPLESS_MAIN(TestLspWorkbench)
#include "tst_lsp_workbench.moc"
