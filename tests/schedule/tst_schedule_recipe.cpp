// The recipe language as TVM users write it: every construct the reader accepts gives the module
// and the trace of the plain `x = sch.method(args)` recipe it abbreviates, and every construct
// outside the subset is an error at its span.
#include <QTest>

#include "schedule/tensor_intrin.h"
#include "schedule_test_util.h"

using namespace wb;
using namespace wb::schedule;
using namespace wb::schedule::testing;

namespace {

std::string Message(const DiagnosticList& diags) {
  return diags.empty() ? std::string() : diags[0].message;
}

}  // namespace

class TestScheduleRecipe : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  void constructs_data() {
    QTest::addColumn<QString>("recipe");
    QTest::addColumn<QString>("plain");
    QTest::newRow("nested calls") << "_, j = sch.get_loops(sch.get_sblock(\"C\"))\n"
                                     "sch.split(j, [None, 4])"
                                  << "c = sch.get_sblock(\"C\")\n"
                                     "i, j = sch.get_loops(c)\n"
                                     "sch.split(j, [None, 4])";
    QTest::newRow("block name in a variable") << "block_b = \"B\"\nsch.compute_inline(block_b)"
                                              << "sch.compute_inline(\"B\")";
    QTest::newRow("starred unpacking") << "*outer, inner = sch.get_loops(\"C\")\n"
                                          "sch.fuse(*outer, inner)"
                                       << "i, j = sch.get_loops(\"C\")\nsch.fuse(i, j)";
    QTest::newRow("star in the middle") << "first, *rest = sch.get_loops(\"C\")\n"
                                           "sch.reorder(*rest, first)"
                                        << "i, j = sch.get_loops(\"C\")\nsch.reorder(j, i)";
    QTest::newRow("indexing") << "loops = sch.get_loops(\"C\")\n"
                                 "sch.parallel(loops[-2])\nsch.vectorize(loops[1])"
                              << "i, j = sch.get_loops(\"C\")\nsch.parallel(i)\nsch.vectorize(j)";
    QTest::newRow("index of a call") << "sch.split(sch.get_loops(\"C\")[1], [2, 8])"
                                     << "i, j = sch.get_loops(\"C\")\nsch.split(j, [2, 8])";
    QTest::newRow("slicing") << "sch.reorder(*sch.get_loops(\"C\")[::-1])\n"
                                "sch.fuse(*sch.get_loops(\"C\")[0:])"
                             << "i, j = sch.get_loops(\"C\")\nsch.reorder(j, i)\n"
                                "i, j = sch.get_loops(\"C\")\nsch.fuse(i, j)";
    QTest::newRow("slice to a list") << "inner = sch.get_loops(\"C\")[1:]\nsch.parallel(inner[0])"
                                     << "i, j = sch.get_loops(\"C\")\nsch.parallel(j)";
    QTest::newRow("list literal of handles") << "i, j = sch.get_loops(\"C\")\n"
                                                "order = [j, i]\nsch.reorder(*order)"
                                             << "i, j = sch.get_loops(\"C\")\nsch.reorder(j, i)";
    QTest::newRow("tuple and list targets") << "(i, j) = sch.get_loops(\"C\")\n"
                                               "[a, b] = sch.split(j, factors=(4, 4))\n"
                                               "sch.parallel(i)"
                                            << "i, j = sch.get_loops(\"C\")\n"
                                               "a, b = sch.split(j, [4, 4])\nsch.parallel(i)";
    QTest::newRow("keyword and positional") << "i, j = sch.get_loops(block=\"C\")\n"
                                               "sch.split(j, factors=[None, 4], "
                                               "preserve_unit_iters=False)\n"
                                               "sch.split(loop=i, factors=[2, None])"
                                            << "i, j = sch.get_loops(\"C\")\n"
                                               "sch.split(j, [None, 4], False)\n"
                                               "sch.split(i, [2, None])";
    QTest::newRow("reading the IR") << "i, j = sch.get_loops(\"C\")\n"
                                       "sch.split(j, [None, sch.get(j).extent // 4 - sch.get(j).min])"
                                    << "i, j = sch.get_loops(\"C\")\nsch.split(j, [None, 4])";
    QTest::newRow("a block's name") << "b = sch.get_sblock(\"B\")\n"
                                       "sch.compute_inline(sch.get(b).name_hint)"
                                    << "b = sch.get_sblock(\"B\")\nsch.compute_inline(\"B\")";
    QTest::newRow("arithmetic and len") << "loops = sch.get_loops(\"C\")\n"
                                           "sch.split(loops[len(loops) - 1], [-1, (2 * 3 + 2) % 5 + 1])"
                                        << "i, j = sch.get_loops(\"C\")\nsch.split(j, [None, 4])";
    QTest::newRow("index map") << "sch.transform_layout(\"B\", (\"write\", 0), "
                                  "T.index_map(lambda i, j: (j, i)))"
                               << "sch.transform_layout(\"B\", (\"write\", 0), lambda i, j: (j, i))";
    QTest::newRow("constants") << "i, j = sch.get_loops(\"C\")\n"
                                  "sch.split(j, [None, T.int64(4)])\n"
                                  "sch.annotate(i, \"k\", tvm.tirx.IntImm(\"int32\", 3))\n"
                                  "sch.annotate(i, \"f\", tvm.tirx.const(0.5, \"float32\"))"
                               << "i, j = sch.get_loops(\"C\")\nsch.split(j, [None, 4])\n"
                                  "sch.annotate(i, \"k\", 3)\nsch.annotate(i, \"f\", 0.5)";
    QTest::newRow("comments, continuations, semicolons")
        << "# tile C\n\ni, j = \\\n    sch.get_loops(\"C\")  # both loops\n"
           "sch.split(j,\n          [None,  # inferred\n           4]); sch.parallel(i)\n"
        << "i, j = sch.get_loops(\"C\")\nsch.split(j, [None, 4])\nsch.parallel(i)";
    QTest::newRow("a printed trace") << "# from tvm import s_tir\n"
                                        "def apply_trace(sch: s_tir.Schedule) -> None:\n"
                                        "  b0 = sch.get_sblock(name=\"B\", func_name=\"main\")\n"
                                        "  sch.compute_inline(block=b0)\n"
                                     << "sch.compute_inline(\"B\")";
    QTest::newRow("assert") << "i, j = sch.get_loops(\"C\")\n"
                               "assert sch.get(i).extent == 16, \"the loop is 16 long\"\n"
                               "assert sch.get(j).loop_var.name == \"j\" and not sch.get(i).min\n"
                               "assert i != j and i == i and i in [j, i] and sch.get(i) == sch.get(i)\n"
                               "b = sch.get_sblock(\"B\")\n"
                               "assert sch.get(b).same_as(sch.get(sch.get_sblock(\"B\")))\n"
                               "assert sch.get(b).name_hint == \"B\" and b != sch.get_sblock(\"B\")\n"
                               "sch.parallel(i)"
                            << "i, j = sch.get_loops(\"C\")\nb = sch.get_sblock(\"B\")\n"
                               "b1 = sch.get_sblock(\"B\")\nb2 = sch.get_sblock(\"B\")\n"
                               "sch.parallel(i)";
    QTest::newRow("comparisons") << "i, j = sch.get_loops(\"C\")\n"
                                    "assert 1 < 2 <= 2 != 3 and not 3 < 2 < 1 and \"a\" < \"b\"\n"
                                    "assert 0.5 >= 0 and (0 or 2) == 2 and (1 and 0) == 0\n"
                                    "assert None is None and i is not None and \"C\" in \"BC\"\n"
                                    "assert 2 not in [1, 3] and [1, [2]] == [1, [2]] != [1]\n"
                                    "assert {\"a\": 1, \"b\": [2]} == {\"b\": [2], \"a\": 1} and \"b\" in {\"b\": 0}\n"
                                    "sch.parallel(i)"
                                 << "i, j = sch.get_loops(\"C\")\nsch.parallel(i)";
    QTest::newRow("list comprehension")
        << "loops = sch.get_loops(\"C\")\n"
           "extents = [sch.get(l).extent for l in loops if sch.get(l).extent > 1]\n"
           "assert [a + b for a in [1, 2] for b in [10, 20] if a != 2 or b != 20] == [11, 21, 12]\n"
           "assert [x for x, y in [(1, 2), (3, 4)]] == [1, 3]\n"
           "sch.split(loops[1], [None, extents[0] // 4])"
        << "i, j = sch.get_loops(\"C\")\nsch.split(j, [None, 4])";
    QTest::newRow("integers in an index map")
        << "f = 4\nv = sch.sample_categorical([2], [1.0])\n"
           "sch.transform_layout(\"B\", (\"write\", 0), lambda i, j: (i, j // (f * v), j % (v * f)))"
        << "v = sch.sample_categorical([2], [1.0])\n"
           "sch.transform_layout(\"B\", (\"write\", 0), lambda i, j: (i, j // (4 * 2), j % (2 * 4)))";
    QTest::newRow("strings") << "i, j = sch.get_loops('C' \"\")\n"
                                "sch.set_scope(r\"B\", 0, \"sha\\x72ed\")\nsch.parallel(i)"
                             << "i, j = sch.get_loops(\"C\")\n"
                                "sch.set_scope(\"B\", 0, \"shared\")\nsch.parallel(i)";
  }

  void constructs() {
    QFETCH(QString, recipe);
    QFETCH(QString, plain);
    ir::IRModule mod = ParseModule(kTwoStage);
    Schedule sch(mod);
    DiagnosticList diags = ApplyRecipe(sch, recipe.toStdString());
    QVERIFY2(diags.empty(), Message(diags).c_str());
    Schedule ref(mod);
    DiagnosticList ref_diags = ApplyRecipe(ref, plain.toStdString());
    QVERIFY2(ref_diags.empty(), Message(ref_diags).c_str());
    QVERIFY2(ir::StructuralEqual(sch.mod(), ref.mod()), script::PrintModule(sch.mod()).c_str());
    QCOMPARE(sch.trace().AsPython(), ref.trace().AsPython());
    QVERIFY(sch.trace().instructions().size() > 0);
    ExpectSameMeaning(mod, sch.mod());
  }

  void errors_data() {
    QTest::addColumn<QString>("recipe");
    QTest::addColumn<QString>("message");
    QTest::addColumn<QString>("span");
    const QString outside = " is not part of the recipe language, which is assignments and calls "
                            "on `sch`";
    QTest::newRow("for") << "for l in sch.get_loops(\"C\"):\n    sch.parallel(l)"
                         << "a `for` loop" + outside << "for l in sch.get_loops(\"C\"):";
    QTest::newRow("if") << "if True:\n    sch.parallel(l)" << "an `if` statement" + outside
                        << "if True:";
    QTest::newRow("import") << "import tvm"
                            << "an import is not part of the recipe language: `sch` and `T` are "
                               "already defined"
                            << "import tvm";
    QTest::newRow("augmented") << "x = 1\nx += 1" << "an augmented assignment (`+=`)" + outside
                               << "x += 1";
    QTest::newRow("conditional") << "x = 1 if True else 2"
                                 << "a conditional expression" + outside << "1 if True else 2";
    QTest::newRow("failed assert") << "i, j = sch.get_loops(\"C\")\n"
                                      "assert sch.get(i).extent == 8, \"tiles of 8\"\n"
                                      "sch.parallel(i)"
                                   << "assertion failed: sch.get(i).extent == 8: tiles of 8"
                                   << "sch.get(i).extent == 8";
    QTest::newRow("failed assert without message") << "assert [1] == []"
                                                   << "assertion failed: [1] == []" << "[1] == []";
    QTest::newRow("ordering handles") << "i, j = sch.get_loops(\"C\")\nassert i < j"
                                      << "`<` orders numbers or strings in a recipe" << "i < j";
    QTest::newRow("is with a value") << "assert 1 is 1"
                                     << "`is` compares with None only in a recipe" << "1 is 1";
    QTest::newRow("comprehension names are its own") << "x = [l for l in [1, 2]]\ny = l"
                                                     << "name 'l' is not defined" << "l";
    QTest::newRow("comprehension over a number") << "x = [l for l in 3]"
                                                 << "a comprehension in a recipe runs over a list"
                                                 << "3";
    QTest::newRow("a generator") << "x = len(l for l in [1])"
                                 << "syntax error: generator expressions are not supported in "
                                    "TVMScript"
                                 << "l";
    QTest::newRow("another decorator") << "@T.macro\ndef f(a):\n    pass"
                                       << "only a @T.prim_func definition (TVMScript) can be "
                                          "decorated in a recipe"
                                       << "@T.macro";
    QTest::newRow("registering a non-function")
        << "tvm.tirx.TensorIntrin.register(\"x\", 1, 2)"
        << "desc must be a @T.prim_func defined in the recipe" << "1";
    QTest::newRow("call of another function") << "print(1)"
                                              << "`print` cannot be called in a recipe: only "
                                                 "methods of `sch`, T./tvm.tirx. constants, "
                                                 "TensorIntrin.register and len() can"
                                              << "print";
    QTest::newRow("undefined in a nested call") << "sch.get_loops(sch.get_sblock(nme))"
                                                << "name 'nme' is not defined" << "nme";
    QTest::newRow("index out of range") << "l = sch.get_loops(\"C\")\nsch.parallel(l[2])"
                                        << "list index out of range" << "2";
    QTest::newRow("too few values") << "a, b, c, *d = sch.get_loops(\"C\")"
                                    << "sch.get_loops() returned 2 values, but at least 3 names "
                                       "unpack them"
                                    << "a, b, c, *d";
    QTest::newRow("unpacking one handle") << "a, = sch.get_sblock(\"C\")"
                                          << "sch.get_sblock() returns a single value" << "a";
    QTest::newRow("a loop read whole") << "sch.split(sch.get(sch.get_loops(\"C\")[0]), [2, 8])"
                                       << "'sch.get(sch.get_loops(\"C\")[0])' is the IR node "
                                          "that sch.get() reads: pass the loop itself"
                                       << "sch.get(sch.get_loops(\"C\")[0])";
    QTest::newRow("an unknown field") << "b = sch.get_sblock(\"C\")\nx = sch.get(b).iter_vars"
                                      << "a recipe reads only a loop's .extent, .min and "
                                         ".loop_var (and its .name) and a block's .name_hint"
                                      << "sch.get(b).iter_vars";
    QTest::newRow("a name for a loop") << "sch.parallel(\"C\")" << "a loop is needed here, not the string \"C\" (loops come from sch.get_loops(block), "
                                          "e.g. sch.get_loops(\"C\")[0])"
                                       << "\"C\"";
    QTest::newRow("a loop for a block") << "l = sch.get_loops(\"C\")\nsch.compute_inline(l[0])"
                                        << "'l[0]' is a loop, not a block" << "l[0]";
    QTest::newRow("rebinding sch") << "sch = 1" << "`sch` cannot be rebound in a recipe" << "sch";
    QTest::newRow("assigning nothing") << "i, j = sch.get_loops(\"C\")\nx = sch.parallel(i)"
                                       << "sch.parallel() returns nothing to assign"
                                       << "x = sch.parallel(i)";
    QTest::newRow("keyword splat") << "sch.get_sblock(**names)" << "a `**` argument" + outside
                                   << "**names";
    QTest::newRow("bad constant") << "sch.annotate(\"C\", \"k\", T.int32(\"x\"))"
                                  << "the constant must be an integer" << "\"x\"";
    QTest::newRow("division by zero") << "x = 4 // (2 - 2)" << "integer division by zero"
                                      << "4 // (2 - 2)";
    QTest::newRow("def with other parameters") << "def f(s):\n    pass"
                                               << "a function in a recipe must take the schedule "
                                                  "alone: def f(sch): ..."
                                               << "def f(s):";
  }

  void errors() {
    QFETCH(QString, recipe);
    QFETCH(QString, message);
    QFETCH(QString, span);
    Schedule sch(ParseModule(kTwoStage));
    DiagnosticList diags = ApplyRecipe(sch, recipe.toStdString());
    QCOMPARE(diags.size(), size_t(1));
    QCOMPARE(QString::fromStdString(diags[0].message), message);
    QCOMPARE(QString::fromStdString(std::string(diags[0].span.text())), span);
  }

  // A tensor intrinsic registered from the recipe, its description and implementation written
  // in TVMScript there (as TVM's tests register theirs in Python), then used by tensorize; the
  // same registration again (a replayed recipe) is no conflict, another pair under the name is.
  void tensorIntrinsicWrittenInTheRecipe() {
    const std::string intrin =
        "@T.prim_func\n"
        "def add4_desc(a: T.handle, b: T.handle, c: T.handle):\n"
        "    A = T.match_buffer(a, (4,), offset_factor=1)\n"
        "    B = T.match_buffer(b, (4,), offset_factor=1)\n"
        "    C = T.match_buffer(c, (4,), offset_factor=1)\n"
        "    with T.sblock(\"root\"):\n"
        "        T.reads(A[0:4], B[0:4])\n"
        "        T.writes(C[0:4])\n"
        "        for i in range(4):\n"
        "            with T.sblock(\"add\"):\n"
        "                vi = T.axis.spatial(4, i)\n"
        "                C[vi] = A[vi] + B[vi]\n"
        "\n"
        "@T.prim_func(s_tir=True)\n"
        "def add4_impl(a: T.handle, b: T.handle, c: T.handle):\n"
        "    A = T.match_buffer(a, (4,), offset_factor=1)\n"
        "    B = T.match_buffer(b, (4,), offset_factor=1)\n"
        "    C = T.match_buffer(c, (4,), offset_factor=1)\n"
        "    with T.sblock(\"root\"):\n"
        "        T.reads(A[0:4], B[0:4])\n"
        "        T.writes(C[0:4])\n"
        "        C[T.Ramp(0, 1, 4)] = A[T.Ramp(0, 1, 4)] + B[T.Ramp(0, 1, 4)]\n"
        "\n"
        "tvm.tirx.TensorIntrin.register(\"recipe_add4\", add4_desc, add4_impl)\n";
    const std::string steps = "b = sch.get_sblock(\"C\")\n"
                              "i, j = sch.get_loops(b)\n"
                              "j0, j1 = sch.split(j, [None, 4])\n"
                              "sch.tensorize(j1, \"recipe_add4\")\n";
    const char* add = R"(@I.ir_module
class Module:
    @T.prim_func(s_tir=True)
    def main(A: T.Buffer((8, 16), "float32"), B: T.Buffer((8, 16), "float32"), C: T.Buffer((8, 16), "float32")):
        for i, j in T.grid(8, 16):
            with T.sblock("C"):
                vi, vj = T.axis.remap("SS", [i, j])
                C[vi, vj] = A[vi, vj] + B[vi, vj]
)";
    ir::IRModule mod = ParseModule(add);
    Schedule sch(mod);
    DiagnosticList diags = ApplyRecipe(sch, intrin + steps);
    QVERIFY2(diags.empty(), Message(diags).c_str());
    std::optional<TensorIntrin> registered = FindTensorIntrin("recipe_add4");
    QVERIFY(registered.has_value());
    QCOMPARE(registered->desc->params.size(), size_t(3));
    // The plain steps now find the intrinsic: the same module and trace.
    Schedule ref(mod);
    QVERIFY(ApplyRecipe(ref, steps).empty());
    QVERIFY(ir::StructuralEqual(sch.mod(), ref.mod()));
    QCOMPARE(sch.trace().AsPython(), ref.trace().AsPython());
    QVERIFY(sch.trace().AsPython().find("recipe_add4") != std::string::npos);
    ExpectSameMeaning(mod, sch.mod());
    // Replayed: the same pair again is accepted.
    Schedule again(mod);
    diags = ApplyRecipe(again, intrin + steps);
    QVERIFY2(diags.empty(), Message(diags).c_str());
    // Another implementation under the name is TVM's error, at the call, unless it overrides.
    std::string other = intrin;
    other.replace(other.find("A[T.Ramp(0, 1, 4)] + B"), 22, "B[T.Ramp(0, 1, 4)] + A");
    Schedule third(mod);
    diags = ApplyRecipe(third, other);
    QCOMPARE(diags.size(), size_t(1));
    QCOMPARE(QString::fromStdString(diags[0].message),
             QString("TensorIntrin 'recipe_add4' has already been registered"));
    QCOMPARE(std::string(diags[0].span.text()),
             std::string("tvm.tirx.TensorIntrin.register(\"recipe_add4\", add4_desc, add4_impl)"));
    other.replace(other.rfind(")"), 1, ", override=True)");
    Schedule fourth(mod);
    diags = ApplyRecipe(fourth, other);
    QVERIFY2(diags.empty(), Message(diags).c_str());
    QVERIFY(!ir::StructuralEqual(FindTensorIntrin("recipe_add4")->impl, registered->impl));
  }

  // A @T.prim_func that does not parse reports where, in the recipe, with every statement before
  // it applied and none after.
  void primFuncErrorsPointIntoTheRecipe() {
    Schedule sch(ParseModule(kTwoStage));
    DiagnosticList diags = ApplyRecipe(sch, "i, j = sch.get_loops(\"C\")\n"
                                            "@T.prim_func\n"
                                            "def f(a: T.handle):\n"
                                            "    A = T.match_buffer(a, (4,))\n"
                                            "    A[0] = B[0]\n"
                                            "sch.parallel(i)\n");
    QVERIFY(diags.HasErrors());
    QCOMPARE(QString::fromStdString(diags[0].message), QString("undefined name 'B'"));
    QCOMPARE(diags[0].span.start().line, 5u);
    QCOMPARE(diags[0].span.start().column, 12u);
    QCOMPARE(std::string(diags[0].span.text()), std::string("B"));
    QVERIFY(sch.trace().AsPython().find("parallel") == std::string::npos);
    QVERIFY(sch.trace().AsPython().find("get_loops") != std::string::npos);
  }

  // work_on chooses the PrimFunc when the module has no `main`; before it, lookups fail with
  // TVM's message. TVM does not trace it, so neither is it here.
  void workOn() {
    const char* two = R"(@I.ir_module
class Module:
    @T.prim_func(s_tir=True)
    def f(A: T.Buffer((4,), "float32")):
        for i in range(4):
            with T.sblock("F"):
                vi = T.axis.spatial(4, i)
                A[vi] = T.float32(0)

    @T.prim_func(s_tir=True)
    def g(A: T.Buffer((4,), "float32")):
        for i in range(4):
            with T.sblock("G"):
                vi = T.axis.spatial(4, i)
                A[vi] = T.float32(1)
)";
    Schedule sch(ParseModule(two));
    DiagnosticList diags = ApplyRecipe(sch, "sch.get_sblock(\"G\")");
    QVERIFY(diags.HasErrors());
    QVERIFY2(diags[0].message.find("does not know which function to be working on") !=
                 std::string::npos,
             diags[0].message.c_str());
    diags = ApplyRecipe(sch, "sch.work_on(\"g\")\nsch.parallel(sch.get_loops(\"G\")[0])");
    QVERIFY2(diags.empty(), Message(diags).c_str());
    QCOMPARE(sch.func_name(), std::string("g"));
    QVERIFY(script::PrintModule(sch.mod()).find("T.parallel(4)") != std::string::npos);
    QVERIFY(sch.trace().AsPython().find("work_on") == std::string::npos);
    diags = ApplyRecipe(sch, "sch.work_on(\"h\")");
    QCOMPARE(diags.size(), size_t(1));
    QCOMPARE(QString::fromStdString(diags[0].message),
             QString("work_on: the module has no PrimFunc named \"h\""));
  }

  // The statements before a syntax error run (as a line-by-line reader ran them); the error is
  // reported at its column and nothing after it runs.
  void syntaxErrorStopsThere() {
    Schedule sch(ParseModule(kTwoStage));
    DiagnosticList diags = ApplyRecipe(sch, "i, j = sch.get_loops(\"C\")\n"
                                            "sch.parallel(i)\n"
                                            "sch.split(j, [None 4])\n"
                                            "sch.vectorize(j)\n");
    QCOMPARE(diags.size(), size_t(1));
    QVERIFY2(diags[0].message.rfind("syntax error", 0) == 0, diags[0].message.c_str());
    QCOMPARE(diags[0].span.start().line, 3u);
    QCOMPARE(diags[0].span.start().column, 20u);
    QCOMPARE(sch.trace().instructions().size(), size_t(3));  // get_sblock, get_loops, parallel
  }

  // A schedule error inside a nested call is reported at the statement, with the note at the
  // block, and leaves the schedule as the statements before it left it.
  void scheduleErrorInANestedCall() {
    Schedule sch(ParseModule(kTwoStage));
    DiagnosticList diags = ApplyRecipe(sch, "sch.parallel(sch.get_loops(\"C\")[0])\n"
                                            "x = sch.split(sch.get_loops(\"C\")[1], [3, 3])\n");
    QCOMPARE(diags.size(), size_t(1));
    QVERIFY2(diags[0].message.find("The product of factors is not larger than or equal") !=
                 std::string::npos,
             diags[0].message.c_str());
    QCOMPARE(std::string(diags[0].span.text()),
             std::string("x = sch.split(sch.get_loops(\"C\")[1], [3, 3])"));
    // get_sblock, get_loops, parallel, then the second statement's lookups; no split.
    QVERIFY(sch.trace().AsPython().find("split") == std::string::npos);
  }
};

QTEST_APPLESS_MAIN(TestScheduleRecipe)
#include "tst_schedule_recipe.moc"
