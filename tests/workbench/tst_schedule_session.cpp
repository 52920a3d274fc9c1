// The interactive schedule without any UI: steps built from the tree, applied, undone, redone,
// failing without a trace, saved and loaded as recipes.
#include <QTemporaryDir>
#include <QTest>
#include <algorithm>
#include <iterator>
#include <random>

#include "script/tvmscript.h"
#include "workbench/schedule_session.h"

using namespace wb;
using namespace wb::workbench;

namespace {

const char* kMatmul = R"(# from tvm.script import ir as I
# from tvm.script import tirx as T

@I.ir_module
class Module:
    @T.prim_func(s_tir=True)
    def main(A: T.Buffer((128, 128), "float32"), B: T.Buffer((128, 128), "float32"), C: T.Buffer((128, 128), "float32")):
        T.func_attr({"tirx.noalias": True})
        for i, j, k in T.grid(128, 128, 128):
            with T.sblock("C"):
                vi, vj, vk = T.axis.remap("SSR", [i, j, k])
                T.reads(A[vi, vk], B[vk, vj])
                T.writes(C[vi, vj])
                with T.init():
                    C[vi, vj] = T.float32(0.0)
                C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj]

    @T.prim_func(s_tir=True)
    def add(A: T.Buffer((64,), "float32"), B: T.Buffer((64,), "float32")):
        for i in range(64):
            with T.sblock("B"):
                vi = T.axis.spatial(64, i)
                B[vi] = A[vi] + T.float32(1.0)
)";

ir::IRModule Parse() {
  script::ParseResult r = script::Parse(kMatmul, "matmul.py");
  if (!r.ok()) qFatal("%s", RenderDiagnostics(r.diagnostics).c_str());
  return r.module;
}

// The outermost loop of the function.
int FirstLoop(const std::vector<ScheduleTreeNode>& tree) {
  for (size_t i = 0; i < tree.size(); ++i) {
    if (tree[i].kind == ScheduleTreeNode::Kind::kLoop) return static_cast<int>(i);
  }
  return -1;
}

int Find(const std::vector<ScheduleTreeNode>& tree, const std::string& name) {
  for (size_t i = 0; i < tree.size(); ++i) {
    if (tree[i].name == name) return static_cast<int>(i);
  }
  return -1;
}

QString Q(const std::string& s) { return QString::fromStdString(s); }

}  // namespace

class TestScheduleSession : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  void treeShowsLoopsAndBlocks() {
    ScheduleSession s;
    QVERIFY(!s.Reset(Parse()).HasErrors());
    QCOMPARE(Q(s.func_name()), QString("main"));
    auto names = s.PrimFuncNames();
    std::sort(names.begin(), names.end());
    QCOMPARE(names, (std::vector<std::string>{"add", "main"}));
    auto tree = s.Tree();
    int i = Find(tree, "i"), j = Find(tree, "j"), k = Find(tree, "k"), c = Find(tree, "C");
    QVERIFY(i >= 0 && j >= 0 && k >= 0 && c >= 0);
    QCOMPARE(tree[j].parent, i);
    QCOMPARE(tree[c].parent, k);
    QCOMPARE(tree[i].extent, std::string("128"));
    QCOMPARE(tree[i].extent_value, std::optional<int64_t>(128));
    QCOMPARE(tree[i].kind_name, std::string("serial"));
    QCOMPARE(tree[k].address_block, c);
    QCOMPARE(tree[k].loop_index, 2);
    QCOMPARE(tree[c].loops, (std::vector<int>{i, j, k}));
    QCOMPARE(tree[c].iter_vars.size(), size_t(3));
    QVERIFY2(Q(tree[c].iter_vars[2]).startsWith("vk: reduce [0, 128)") &&
                 Q(tree[c].iter_vars[2]).contains("= k"),
             qPrintable(Q(tree[c].iter_vars[2])));
    QVERIFY(tree[i].span.defined());
    // The block's accesses, in T.reads / T.writes order (what buffer indices count).
    QCOMPARE(tree[c].reads, (std::vector<std::string>{"A", "B"}));
    QCOMPARE(tree[c].writes, (std::vector<std::string>{"C"}));
    QVERIFY(tree[i].reads.empty());
  }

  void splitAppliesAndRecordsTheTrace() {
    ScheduleSession s;
    s.Reset(Parse());
    auto tree = s.Tree();
    std::string error;
    auto step = SplitStep(tree, Find(tree, "j"), {std::nullopt, 32}, s.func_name(), &error);
    QVERIFY2(step, error.c_str());
    QVERIFY(Q(*step).contains("sch.split(loop=loop, factors=[None, 32])"));
    DiagnosticList d = s.Apply(*step);
    QVERIFY2(!d.HasErrors(), RenderDiagnostics(d).c_str());
    QCOMPARE(s.steps().size(), size_t(1));
    QVERIFY2(Q(s.TraceText()).contains("= sch.split(loop=l"), qPrintable(Q(s.TraceText())));
    QVERIFY(Q(s.TraceText()).contains("sch.get_sblock(name=\"C\", func_name=\"main\")"));
    auto after = s.Tree();
    int j0 = Find(after, "j_0"), j1 = Find(after, "j_1");
    QVERIFY(j0 >= 0 && j1 >= 0);
    QCOMPARE(after[j0].extent_value, std::optional<int64_t>(4));
    QCOMPARE(after[j1].extent_value, std::optional<int64_t>(32));
    // The step keeps its before and after.
    QVERIFY(Q(s.FuncText(s.steps()[0].before)).contains("T.grid(128, 128, 128)"));
    QVERIFY(!Q(s.FuncText(s.steps()[0].after)).contains("T.grid(128, 128, 128)"));
    QVERIFY(Q(s.FuncText()).contains("j_1"));
  }

  void undoAndRedo() {
    ScheduleSession s;
    s.Reset(Parse());
    std::string original = s.FuncText();
    auto tree = s.Tree();
    std::string error;
    QVERIFY(!s.Apply(*LoopKindStep(tree, Find(tree, "i"), "parallel", "main", &error)).HasErrors());
    std::string parallel = s.FuncText();
    QVERIFY(Q(parallel).contains("T.parallel(128)"));
    QVERIFY(s.CanUndo() && !s.CanRedo());
    QVERIFY(s.Undo());
    QCOMPARE(s.FuncText(), original);
    QCOMPARE(Q(s.TraceText()), QString());
    QVERIFY(s.CanRedo());
    QVERIFY(s.Redo());
    QCOMPARE(s.FuncText(), parallel);
    QVERIFY(Q(s.TraceText()).contains("sch.parallel(loop=l"));
    QVERIFY(!s.Redo());
    // A new step after an undo drops the redo list.
    s.Undo();
    tree = s.Tree();
    QVERIFY(!s.Apply(*LoopKindStep(tree, Find(tree, "j"), "unroll", "main", &error)).HasErrors());
    QVERIFY(!s.CanRedo());
  }

  void aFailingStepChangesNothing() {
    ScheduleSession s;
    s.Reset(Parse());
    auto tree = s.Tree();
    std::string error;
    QVERIFY(!s.Apply(*LoopKindStep(tree, Find(tree, "i"), "parallel", "main", &error)).HasErrors());
    std::string before = s.FuncText(), trace = s.TraceText();
    tree = s.Tree();
    // Vectorizing the reduction loop k is refused, with TVM's message.
    DiagnosticList d = s.Apply(*LoopKindStep(tree, Find(tree, "k"), "vectorize", "main", &error));
    QVERIFY(d.HasErrors());
    QVERIFY2(Q(d[0].message).contains("ScheduleError"), d[0].message.c_str());
    QCOMPARE(s.steps().size(), size_t(1));
    QCOMPARE(s.FuncText(), before);
    QCOMPARE(s.TraceText(), trace);
    // A typo points into the step as written, not into the whole recipe.
    std::string typo = "b = sch.get_sblock(name=\"C\")\nsch.vectorise(loop=b)\n";
    d = s.Apply(typo);
    QVERIFY(d.HasErrors());
    QVERIFY2(Q(d[0].message).contains("unknown or unsupported schedule method `vectorise`"),
             d[0].message.c_str());
    QCOMPARE(d[0].span.start().line, 2u);
    QCOMPARE(Q(std::string(d[0].span.text())), QString("vectorise"));
    d = s.Apply("sch.split(loop=l0, factors=[None, 2.5])");
    QVERIFY(d.HasErrors());
    d = s.Apply("   ");
    QVERIFY(d.HasErrors());
    QCOMPARE(s.steps().size(), size_t(1));
  }

  void fuseAndReorderAddressLoopsThroughOneBlock() {
    ScheduleSession s;
    s.Reset(Parse());
    auto tree = s.Tree();
    std::string error;
    auto reorder =
        MultiLoopStep(tree, {Find(tree, "k"), Find(tree, "i")}, "reorder", "main", &error);
    QVERIFY2(reorder, error.c_str());
    QVERIFY(Q(*reorder).contains("sch.reorder(l2, l0)"));
    QVERIFY(!s.Apply(*reorder).HasErrors());
    tree = s.Tree();
    QCOMPARE(tree[FirstLoop(tree)].name, std::string("k"));
    auto fuse = MultiLoopStep(tree, {Find(tree, "k"), Find(tree, "j")}, "fuse", "main", &error);
    QVERIFY(fuse);
    DiagnosticList d = s.Apply(*fuse);
    // k and j are not adjacent after the reorder (k, j, i): they are, k is outer, j is next.
    QVERIFY2(!d.HasErrors(), RenderDiagnostics(d).c_str());
    tree = s.Tree();
    QCOMPARE(tree[FirstLoop(tree)].name, std::string("k_j_fused"));
    QCOMPARE(tree[FirstLoop(tree)].extent_value, std::optional<int64_t>(128 * 128));
    QVERIFY(!MultiLoopStep(tree, {Find(tree, "i")}, "fuse", "main", &error));
    QVERIFY(!error.empty());
  }

  void anotherFunctionAndCustomSteps() {
    ScheduleSession s;
    QVERIFY(s.Reset(Parse(), "nope").HasErrors());
    QVERIFY(!s.active());
    QVERIFY(s.Apply("sch.get_sblock(name=\"B\")").HasErrors());
    QVERIFY(!s.Reset(Parse(), "add").HasErrors());
    auto tree = s.Tree();
    std::string error;
    auto step =
        CustomStep(tree, Find(tree, "B"), "l0_0, l0_1 = sch.split(l0, [None, 16])", "add", &error);
    QVERIFY2(step, error.c_str());
    DiagnosticList d = s.Apply(*step);
    QVERIFY2(!d.HasErrors(), RenderDiagnostics(d).c_str());
    QVERIFY(Q(s.FuncText()).contains("def add("));
    QVERIFY(Q(s.FuncText()).contains("l0_1") || Q(s.FuncText()).contains("i_1"));
    QVERIFY(!CustomStep(tree, Find(tree, "B"), "  ", "add", &error));
    QVERIFY(!CustomStep(tree, 999, "sch.unroll(loop=loop)", "add", &error));
  }

  // Switching functions keeps each one's steps; the module holds every function as scheduled,
  // and an edited document keeps the schedules that still apply.
  void eachFunctionKeepsItsSteps() {
    ScheduleSession s;
    QVERIFY(!s.Reset(Parse()).HasErrors());
    QCOMPARE(s.func_name(), std::string("main"));
    const char* parallel_main = "b = sch.get_sblock(name=\"C\")\ni, j, k = sch.get_loops(block=b)\nsch.parallel(loop=i)";
    QVERIFY(!s.Apply(parallel_main).HasErrors());
    QVERIFY(!s.SelectFunction("nope").empty());
    QCOMPARE(s.func_name(), std::string("main"));
    QVERIFY(!s.SelectFunction("add").HasErrors());
    QCOMPARE(s.func_name(), std::string("add"));
    QVERIFY(s.steps().empty());
    QCOMPARE(s.FunctionsWithSteps(), std::vector<std::string>{"main"});
    // The module still holds main as scheduled, and add's steps go on top.
    auto printed = [&] { return Q(script::PrintModule(s.module())); };
    QVERIFY(printed().contains("T.parallel(128)"));
    QVERIFY(!s.Apply("b = sch.get_sblock(name=\"B\")\nl, = sch.get_loops(block=b)\nsch.vectorize(loop=l)").HasErrors());
    QVERIFY(s.Undo());
    QVERIFY(s.CanRedo());
    QVERIFY(!s.SelectFunction("main").HasErrors());
    QCOMPARE(s.steps().size(), size_t(1));
    QVERIFY(Q(s.FuncText()).contains("T.parallel(128)"));
    // Back on add: its redo list came back with it.
    QVERIFY(!s.SelectFunction("add").HasErrors());
    QVERIFY(s.Redo());
    QVERIFY(Q(s.FuncText()).contains("T.vectorized(64)"));
    QVERIFY(printed().contains("T.parallel(128)") && printed().contains("T.vectorized(64)"));
    // The original is untouched (what the reference runs).
    QVERIFY(!Q(script::PrintModule(s.original())).contains("T.parallel"));

    // An edit that keeps both functions keeps both schedules.
    QVERIFY(!s.Reload(Parse()).HasErrors());
    QCOMPARE(s.func_name(), std::string("add"));
    QVERIFY(printed().contains("T.parallel(128)") && printed().contains("T.vectorized(64)"));
    // An edit that renames main's block drops main's schedule only, with a warning naming it.
    std::string edited = kMatmul;
    edited.replace(edited.find("T.sblock(\"C\")"), 13, "T.sblock(\"D\")");
    script::ParseResult r = script::Parse(edited, "edited.py");
    QVERIFY(r.ok());
    DiagnosticList d = s.Reload(r.module);
    QVERIFY(!d.HasErrors());
    QCOMPARE(d.size(), size_t(1));
    QVERIFY2(d[0].message.find("'main'") != std::string::npos, d[0].message.c_str());
    QVERIFY(!printed().contains("T.parallel(128)") && printed().contains("T.vectorized(64)"));
    QVERIFY(s.FunctionsWithSteps().empty());
    // Reload without keeping drops everything.
    QVERIFY(!s.Reload(Parse(), false).HasErrors());
    QVERIFY(s.steps().empty() && s.FunctionsWithSteps().empty());
  }

  void recipesRoundTripThroughFiles() {
    ScheduleSession s;
    s.Reset(Parse());
    auto tree = s.Tree();
    std::string error;
    s.Apply(*SplitStep(tree, Find(tree, "i"), {std::nullopt, 16}, "main", &error));
    tree = s.Tree();
    s.Apply(*LoopKindStep(tree, Find(tree, "i_0"), "parallel", "main", &error));
    QCOMPARE(s.steps().size(), size_t(2));
    QTemporaryDir dir;
    std::string recipe = dir.filePath("matmul.recipe.py").toStdString();
    std::string trace = dir.filePath("matmul.trace.py").toStdString();
    QVERIFY(!s.SaveRecipeFile(recipe).HasErrors());

    ScheduleSession t;
    t.Reset(Parse());
    DiagnosticList d = t.LoadRecipeFile(recipe);
    QVERIFY2(!d.HasErrors(), RenderDiagnostics(d).c_str());
    QCOMPARE(t.FuncText(), s.FuncText());
    QCOMPARE(t.TraceText(), s.TraceText());
    // One step per statement: two lookups and a primitive per GUI step.
    QCOMPARE(t.steps().size(), size_t(6));
    QVERIFY(t.Undo());
    QVERIFY(!Q(t.FuncText()).contains("T.parallel"));

    // The printed trace is itself a recipe.
    ScheduleSession u;
    u.Reset(Parse());
    QVERIFY(!u.LoadRecipe(s.TraceText()).HasErrors());
    QCOMPARE(u.FuncText(), s.FuncText());

    // A recipe that fails halfway loads nothing, and says where.
    std::string before = u.FuncText();
    d = u.LoadRecipe(
        "b0 = sch.get_sblock(name=\"C\")\nl1, l2, l3 = sch.get_loops(block=b0)\n"
        "sch.vectorize(loop=l3)\n",
        "bad.py");
    QVERIFY(d.HasErrors());
    QCOMPARE(d[0].span.start().line, 3u);
    QCOMPARE(u.FuncText(), before);
    QVERIFY(u.LoadRecipeFile(dir.filePath("missing.py").toStdString()).HasErrors());
  }

  // Whatever a user types as a step, the session answers with a result or an error and stays
  // consistent: random token soup over the recipe vocabulary, 2,000 steps.
  void randomStepsNeverBreakTheSession() {
    ScheduleSession s;
    s.Reset(Parse());
    const char* vocab[] = {"sch",
                           ".",
                           "split",
                           "fuse",
                           "reorder",
                           "parallel",
                           "vectorize",
                           "unroll",
                           "bind",
                           "get_sblock",
                           "get_loops",
                           "(",
                           ")",
                           "[",
                           "]",
                           ",",
                           "=",
                           "loop",
                           "block",
                           "l0",
                           "l1",
                           "b",
                           "None",
                           "True",
                           "32",
                           "-1",
                           "0",
                           "\"C\"",
                           "\"x\"",
                           "name",
                           "factors",
                           "\n",
                           " ",
                           "#",
                           "'",
                           "\"",
                           "99999999999999999999"};
    std::mt19937 rng(11);
    for (int round = 0; round < 2000; ++round) {
      std::string step;
      int n = 1 + static_cast<int>(rng() % 14);
      for (int k = 0; k < n; ++k) step += vocab[rng() % std::size(vocab)];
      size_t before = s.steps().size();
      std::string text = s.FuncText();
      DiagnosticList d = s.Apply(step);
      if (d.HasErrors()) {
        QCOMPARE(s.steps().size(), before);
        QCOMPARE(s.FuncText(), text);
        QVERIFY(!d[0].message.empty());
      } else {
        QCOMPARE(s.steps().size(), before + 1);
      }
      if (round % 97 == 0) s.Undo();
    }
    // Every applied step still replays from its text.
    ScheduleSession t;
    t.Reset(Parse());
    QVERIFY(!t.LoadRecipe(s.RecipeText()).HasErrors());
    QCOMPARE(t.FuncText(), s.FuncText());
  }

  void factorsParse() {
    std::string error;
    auto f = ParseFactors("None, 32", &error);
    QVERIFY(f);
    QCOMPARE(*f, (std::vector<std::optional<int64_t>>{std::nullopt, 32}));
    f = ParseFactors("[4, -1, 8]", &error);
    QVERIFY(f);
    QCOMPARE(f->size(), size_t(3));
    QVERIFY(!(*f)[1]);
    QVERIFY(!ParseFactors("32", &error));
    QVERIFY(!ParseFactors("a, 3", &error));
    QVERIFY(Q(error).contains("'a'"));
    QVERIFY(!ParseFactors("0, 3", &error));
    QVERIFY(!ParseFactors("99999999999999999999999, 3", &error));
  }
};

QTEST_APPLESS_MAIN(TestScheduleSession)
#include "tst_schedule_session.moc"
