// Tests of the loop primitives of core/schedule (get_sblock, get_loops, split, fuse) and of the
// trace they leave: each result is compared structurally with the TVMScript TVM gives, run
// against the original on random inputs through the interpreter, and replayed from its trace.

#include <QTest>
#include <string>

#include "ir/structural_equal.h"
#include "schedule/recipe.h"
#include "schedule/schedule.h"
#include "script/tvmscript.h"
#include "workbench/equivalence.h"

using namespace wb;
using namespace wb::schedule;

namespace {

ir::IRModule ParseModule(const std::string& text) {
  script::ParseResult parsed = script::Parse(text);
  if (!parsed.ok()) {
    std::string all;
    for (const auto& d : parsed.diagnostics.items()) all += d.message + "\n";
    qFatal("test program does not parse: %s", all.c_str());
  }
  return parsed.module;
}

// Fails the test unless `after` is structurally `expected` and computes what `before` does.
void ExpectModule(const ir::IRModule& before, const ir::IRModule& after,
                  const std::string& expected_text) {
  ir::IRModule expected = ParseModule(expected_text);
  if (!ir::StructuralEqual(after, expected)) {
    qWarning("got:\n%s", script::PrintModule(after).c_str());
    QFAIL("schedule result differs from the expected module");
  }
  std::vector<workbench::FunctionCheck> checks = workbench::CheckEquivalence(before, after);
  QVERIFY(!checks.empty());
  for (const auto& check : checks) {
    QVERIFY2(check.outcome == workbench::FunctionCheck::Outcome::kEqual, check.detail.c_str());
  }
}

template <typename F>
std::string ErrorOf(F&& f) {
  try {
    f();
  } catch (const ScheduleError& e) {
    return e.what();
  }
  return "(no error)";
}

const char* kElementwise = R"(@I.ir_module
class Module:
    @T.prim_func(s_tir=True)
    def main(A: T.Buffer((128, 100), "float32"), B: T.Buffer((128, 100), "float32")):
        for i, j in T.grid(128, 100):
            with T.sblock("B"):
                vi, vj = T.axis.remap("SS", [i, j])
                T.reads(A[vi, vj])
                T.writes(B[vi, vj])
                B[vi, vj] = A[vi, vj] * T.float32(2.0)
)";

const char* kElementwiseSplit = R"(@I.ir_module
class Module:
    @T.prim_func(s_tir=True)
    def main(A: T.Buffer((128, 100), "float32"), B: T.Buffer((128, 100), "float32")):
        for i, j_0, j_1 in T.grid(128, 4, 32):
            with T.sblock("B"):
                vi = T.axis.spatial(128, i)
                vj = T.axis.spatial(100, j_0 * 32 + j_1)
                T.where(j_0 * 32 + j_1 < 100)
                T.reads(A[vi, vj])
                T.writes(B[vi, vj])
                B[vi, vj] = A[vi, vj] * T.float32(2.0)
)";

const char* kElementwiseSplitFuse = R"(@I.ir_module
class Module:
    @T.prim_func(s_tir=True)
    def main(A: T.Buffer((128, 100), "float32"), B: T.Buffer((128, 100), "float32")):
        for i_j_0_fused, j_1 in T.grid(512, 32):
            with T.sblock("B"):
                vi = T.axis.spatial(128, i_j_0_fused // 4)
                vj = T.axis.spatial(100, i_j_0_fused % 4 * 32 + j_1)
                T.where(i_j_0_fused % 4 * 32 + j_1 < 100)
                T.reads(A[vi, vj])
                T.writes(B[vi, vj])
                B[vi, vj] = A[vi, vj] * T.float32(2.0)
)";

const char* kThreeWaySplit = R"(@I.ir_module
class Module:
    @T.prim_func(s_tir=True)
    def main(A: T.Buffer((128, 100), "float32"), B: T.Buffer((128, 100), "float32")):
        for i_0, i_1, i_2, j in T.grid(2, 8, 8, 100):
            with T.sblock("B"):
                vi = T.axis.spatial(128, i_0 * 64 + i_1 * 8 + i_2)
                vj = T.axis.spatial(100, j)
                T.reads(A[vi, vj])
                T.writes(B[vi, vj])
                B[vi, vj] = A[vi, vj] * T.float32(2.0)
)";

const char* kFuseAll = R"(@I.ir_module
class Module:
    @T.prim_func(s_tir=True)
    def main(A: T.Buffer((128, 100), "float32"), B: T.Buffer((128, 100), "float32")):
        for i_j_fused in range(12800):
            with T.sblock("B"):
                vi = T.axis.spatial(128, i_j_fused // 100)
                vj = T.axis.spatial(100, i_j_fused % 100)
                T.reads(A[vi, vj])
                T.writes(B[vi, vj])
                B[vi, vj] = A[vi, vj] * T.float32(2.0)
)";

// Two blocks under one loop, and two blocks sharing a name.
const char* kTwoBlocks = R"(@I.ir_module
class Module:
    @T.prim_func(s_tir=True)
    def main(A: T.Buffer((16, 16), "float32"), B: T.Buffer((16, 16), "float32")):
        for i in range(16):
            for j in range(16):
                with T.sblock("X"):
                    vi, vj = T.axis.remap("SS", [i, j])
                    T.reads(A[vi, vj])
                    T.writes(B[vi, vj])
                    B[vi, vj] = A[vi, vj]
            for j in range(16):
                with T.sblock("X"):
                    vi, vj = T.axis.remap("SS", [i, j])
                    T.reads(B[vi, vj])
                    T.writes(A[vi, vj])
                    A[vi, vj] = B[vi, vj] + T.float32(1.0)
)";

const char* kMatmul = R"(@I.ir_module
class Module:
    @T.prim_func(s_tir=True)
    def main(A: T.Buffer((16, 16), "float32"), B: T.Buffer((16, 16), "float32"), C: T.Buffer((16, 16), "float32")):
        for i, j, k in T.grid(16, 16, 16):
            with T.sblock("C"):
                vi, vj, vk = T.axis.remap("SSR", [i, j, k])
                T.reads(A[vi, vk], B[vk, vj])
                T.writes(C[vi, vj])
                with T.init():
                    C[vi, vj] = T.float32(0.0)
                C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj]
)";

const char* kMatmulKinds = R"(@I.ir_module
class Module:
    @T.prim_func(s_tir=True)
    def main(A: T.Buffer((16, 16), "float32"), B: T.Buffer((16, 16), "float32"), C: T.Buffer((16, 16), "float32")):
        for i in T.parallel(16):
            for j in T.thread_binding(16, thread="threadIdx.x"):
                for k in T.unroll(16):
                    with T.sblock("C"):
                        vi, vj, vk = T.axis.remap("SSR", [i, j, k])
                        T.reads(A[vi, vk], B[vk, vj])
                        T.writes(C[vi, vj])
                        with T.init():
                            C[vi, vj] = T.float32(0.0)
                        C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj]
)";

const char* kMatmulReordered = R"(@I.ir_module
class Module:
    @T.prim_func(s_tir=True)
    def main(A: T.Buffer((16, 16), "float32"), B: T.Buffer((16, 16), "float32"), C: T.Buffer((16, 16), "float32")):
        for k, j, i in T.grid(16, 16, 16):
            with T.sblock("C"):
                vi, vj, vk = T.axis.remap("SSR", [i, j, k])
                T.reads(A[vi, vk], B[vk, vj])
                T.writes(C[vi, vj])
                with T.init():
                    C[vi, vj] = T.float32(0.0)
                C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj]
)";

const char* kUnitSplit = R"(@I.ir_module
class Module:
    @T.prim_func(s_tir=True)
    def main(A: T.Buffer((128, 100), "float32"), B: T.Buffer((128, 100), "float32")):
        for i_0, i_1, i_2, j in T.grid(2, 1, 64, 100):
            with T.sblock("B"):
                vi = T.axis.spatial(128, i_0 * 64 + i_1 * 64 + i_2)
                vj = T.axis.spatial(100, j)
                T.reads(A[vi, vj])
                T.writes(B[vi, vj])
                B[vi, vj] = A[vi, vj] * T.float32(2.0)
)";

const char* kUnitSplitDropped = R"(@I.ir_module
class Module:
    @T.prim_func(s_tir=True)
    def main(A: T.Buffer((128, 100), "float32"), B: T.Buffer((128, 100), "float32")):
        for i_0, i_1, i_2, j in T.grid(2, 1, 64, 100):
            with T.sblock("B"):
                vi = T.axis.spatial(128, i_0 * 64 + i_2)
                vj = T.axis.spatial(100, j)
                T.reads(A[vi, vj])
                T.writes(B[vi, vj])
                B[vi, vj] = A[vi, vj] * T.float32(2.0)
)";

const char* kOffsetLoop = R"(@I.ir_module
class Module:
    @T.prim_func(s_tir=True)
    def main(A: T.Buffer((16,), "float32")):
        for i in range(2, 16):
            for j in range(i):
                with T.sblock("A"):
                    vi = T.axis.spatial(16, i)
                    T.reads()
                    T.writes(A[vi])
                    A[vi] = T.float32(1.0)
)";

// Replays the trace of `sch` onto `original` and checks it gives the same module and trace.
void ExpectReplay(const ir::IRModule& original, const Schedule& sch) {
  Schedule replay(original);
  std::string recipe = sch.trace().AsPython();
  DiagnosticList diags = ApplyRecipe(replay, recipe);
  QVERIFY2(diags.empty(), diags.empty() ? "" : diags[0].message.c_str());
  QVERIFY(ir::StructuralEqual(replay.mod(), sch.mod()));
  QCOMPARE(replay.trace().AsPython(), recipe);
}

// A primitive that fails must leave the module and the trace as they were.
template <typename F>
std::string FailsCleanly(Schedule& sch, F&& f) {
  ir::IRModule before = sch.mod();
  size_t steps = sch.trace().instructions().size();
  std::string message = ErrorOf(f);
  if (!sch.mod().same_as(before)) qWarning("module changed by a failing primitive");
  if (sch.trace().instructions().size() != steps) qWarning("trace grew on a failing primitive");
  return sch.mod().same_as(before) && sch.trace().instructions().size() == steps
             ? message
             : "(schedule changed)";
}

}  // namespace

class TestScheduleLoops : public QObject {
  Q_OBJECT
 private Q_SLOTS:
  void getSBlockAndLoops() {
    ir::IRModule mod = ParseModule(kElementwise);
    Schedule sch(mod);
    SBlockRV b = sch.GetSBlock("B");
    QCOMPARE(sch.Get(b)->name_hint, std::string("B"));
    std::vector<LoopRV> loops = sch.GetLoops(b);
    QCOMPARE(loops.size(), size_t(2));
    QCOMPARE(sch.Get(loops[0])->loop_var->name_hint, std::string("i"));
    QCOMPARE(sch.Get(loops[1])->loop_var->name_hint, std::string("j"));
    QCOMPARE(sch.trace().AsPython(),
             std::string("b0 = sch.get_sblock(name=\"B\", func_name=\"main\")\n"
                         "l1, l2 = sch.get_loops(block=b0)\n"));
  }

  void getSBlockErrors() {
    Schedule sch(ParseModule(kTwoBlocks));
    QCOMPARE(FailsCleanly(sch, [&] { sch.GetSBlock("Y"); }),
             std::string("ScheduleError: An error occurred in the schedule primitive 'get-block'.\n"
                         "Error message: Cannot find a block with the name: Y"));
    QCOMPARE(FailsCleanly(sch, [&] { sch.GetSBlock("X"); }),
             std::string("ScheduleError: An error occurred in the schedule primitive 'get-block'.\n"
                         "Error message: Found  2 blocks with the name: X"));
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, sch.GetSBlock("X", std::string("nope")));
  }

  void splitWithPredicate() {
    ir::IRModule mod = ParseModule(kElementwise);
    Schedule sch(mod);
    auto loops = sch.GetLoops(sch.GetSBlock("B"));
    auto parts = sch.Split(loops[1], {std::nullopt, 32});
    QCOMPARE(parts.size(), size_t(2));
    QCOMPARE(sch.Get(parts[0])->loop_var->name_hint, std::string("j_0"));
    QCOMPARE(sch.Get(parts[1])->loop_var->name_hint, std::string("j_1"));
    ExpectModule(mod, sch.mod(), kElementwiseSplit);
    // The split loop is gone; the untouched outer loop still resolves.
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, sch.Get(loops[1]));
    QCOMPARE(sch.Get(loops[0])->loop_var->name_hint, std::string("i"));
    QVERIFY(sch.trace().AsPython().find("l3, l4 = sch.split(loop=l2, factors=[None, 32], "
                                        "preserve_unit_iters=True, disable_predication=False)") !=
            std::string::npos);
    ExpectReplay(mod, sch);
  }

  void splitThreeWays() {
    ir::IRModule mod = ParseModule(kElementwise);
    Schedule sch(mod);
    auto loops = sch.GetLoops(sch.GetSBlock("B"));
    sch.Split(loops[0], {2, std::nullopt, 8});
    ExpectModule(mod, sch.mod(), kThreeWaySplit);
    ExpectReplay(mod, sch);
  }

  void splitUnitIters() {
    ir::IRModule mod = ParseModule(kElementwise);
    Schedule kept(mod);
    kept.Split(kept.GetLoops(kept.GetSBlock("B"))[0], {2, 1, 64});
    ExpectModule(mod, kept.mod(), kUnitSplit);
    ExpectReplay(mod, kept);
    Schedule dropped(mod);
    dropped.Split(dropped.GetLoops(dropped.GetSBlock("B"))[0], {2, 1, 64}, false);
    ExpectModule(mod, dropped.mod(), kUnitSplitDropped);
    ExpectReplay(mod, dropped);
  }

  void loopShapeErrors() {
    Schedule sch(ParseModule(kOffsetLoop));
    auto loops = sch.GetLoops(sch.GetSBlock("A"));
    QCOMPARE(FailsCleanly(sch,
                          [&] {
                            sch.Split(loops[0], {std::nullopt, 2});
                          }),
             std::string("ScheduleError: An error occurred in the schedule primitive 'split'.\n"
                         "Error message: The loop `i` does not start with 0, which is not "
                         "supported"));
    // j's extent is i: the fused loop could not have a constant extent.
    std::string triangle = kOffsetLoop;
    triangle.replace(triangle.find("range(2, 16)"), 12, "range(16)");
    Schedule sch3(ParseModule(triangle));
    auto loops3 = sch3.GetLoops(sch3.GetSBlock("A"));
    QCOMPARE(FailsCleanly(sch3,
                          [&] {
                            sch3.Fuse({loops3[0], loops3[1]});
                          }),
             std::string("ScheduleError: An error occurred in the schedule primitive 'fuse'.\n"
                         "Error message: A loop `j`'s `extent` is dependent on another loop"));
    Schedule sch2(ParseModule(kOffsetLoop));
    auto loops2 = sch2.GetLoops(sch2.GetSBlock("A"));
    QCOMPARE(FailsCleanly(sch2,
                          [&] {
                            sch2.Fuse({loops2[0], loops2[1]});
                          }),
             std::string("ScheduleError: An error occurred in the schedule primitive 'fuse'.\n"
                         "Error message: The loop `i` does not start with 0, which is not "
                         "supported"));
  }

  void splitErrors() {
    Schedule sch(ParseModule(kElementwise));
    auto loops = sch.GetLoops(sch.GetSBlock("B"));
    const std::string head =
        "ScheduleError: An error occurred in the schedule primitive 'split'.\n"
        "Error message: ";
    QCOMPARE(FailsCleanly(sch,
                          [&] {
                            sch.Split(loops[0], {std::nullopt, std::nullopt});
                          }),
             head + "only one factor can be specified as -1 or none");
    QCOMPARE(FailsCleanly(sch,
                          [&] {
                            sch.Split(loops[0], {4, 0});
                          }),
             head +
                 "The schedule primitive split does not accept non-positive factors, but the "
                 "factor at position 1 is 0");
    QCOMPARE(FailsCleanly(sch,
                          [&] {
                            sch.Split(loops[1], {9, 11});
                          }),
             head + "The product of factors is not larger than or equal to the extent of loop `j`");
  }

  void fuseAfterSplit() {
    ir::IRModule mod = ParseModule(kElementwise);
    Schedule sch(mod);
    auto loops = sch.GetLoops(sch.GetSBlock("B"));
    auto parts = sch.Split(loops[1], {std::nullopt, 32});
    LoopRV fused = sch.Fuse({loops[0], parts[0]});
    QCOMPARE(sch.Get(fused)->loop_var->name_hint, std::string("i_j_0_fused"));
    ExpectModule(mod, sch.mod(), kElementwiseSplitFuse);
    QVERIFY(sch.trace().AsPython().find("l5 = sch.fuse(l1, l3, preserve_unit_iters=True)\n") !=
            std::string::npos);
    ExpectReplay(mod, sch);
  }

  void fuseAll() {
    ir::IRModule mod = ParseModule(kElementwise);
    Schedule sch(mod);
    auto loops = sch.GetLoops(sch.GetSBlock("B"));
    sch.Fuse(loops);
    ExpectModule(mod, sch.mod(), kFuseAll);
    ExpectReplay(mod, sch);
  }

  // Fusing under a loop of symbolic extent: the fused binding is no affine map DetectIterMap
  // reads, so it stays as substituted (`i * 4 + j_k_fused // 8`, TVM's test_fuse_not_affine),
  // the outer loop not taken for a constant.
  void fuseUnderSymbolicLoop() {
    ir::IRModule mod = ParseModule(R"(@I.ir_module
class Module:
    @T.prim_func(s_tir=True)
    def main(A: T.Buffer((15, 8), "float32"), B: T.Buffer((15, 8), "float32")):
        for i in range(4):
            for j in range(T.min(4, 15 - i * 4)):
                for k in range(8):
                    with T.sblock("B"):
                        vi = T.axis.spatial(15, i * 4 + j)
                        vj = T.axis.spatial(8, k)
                        B[vi, vj] = A[vi, vj]
)");
    Schedule sch(mod);
    auto loops = sch.GetLoops(sch.GetSBlock("B"));
    sch.Fuse({loops[1], loops[2]});
    ExpectModule(mod, sch.mod(), R"(@I.ir_module
class Module:
    @T.prim_func(s_tir=True)
    def main(A: T.Buffer((15, 8), "float32"), B: T.Buffer((15, 8), "float32")):
        for i in range(4):
            for j_k_fused in range(T.min(4, 15 - i * 4) * 8):
                with T.sblock("B"):
                    vi = T.axis.spatial(15, i * 4 + j_k_fused // 8)
                    vj = T.axis.spatial(8, j_k_fused % 8)
                    T.reads(A[vi, vj])
                    T.writes(B[vi, vj])
                    B[vi, vj] = A[vi, vj]
)");
    ExpectReplay(mod, sch);
  }

  void fuseErrors() {
    ir::IRModule elementwise = ParseModule(kElementwise);
    Schedule sch(elementwise);
    auto loops = sch.GetLoops(sch.GetSBlock("B"));
    const std::string head =
        "ScheduleError: An error occurred in the schedule primitive 'fuse'.\n"
        "Error message: ";
    QCOMPARE(FailsCleanly(sch,
                          [&] {
                            sch.Fuse({loops[1], loops[0]});
                          }),
             head + "The loop `j` is not the parent of the inner loop `i`");
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, sch.Fuse(std::vector<LoopRV>{}));

    std::string two = kTwoBlocks;
    two.replace(two.rfind("\"X\""), 3, "\"Y\"");
    Schedule sch2(ParseModule(two));
    auto x_loops = sch2.GetLoops(sch2.GetSBlock("X"));
    QCOMPARE(FailsCleanly(sch2,
                          [&] {
                            sch2.Fuse({x_loops[0], x_loops[1]});
                          }),
             head + "The inner loop `j` is not the only child of outer loop `i`");
  }

  void reorder() {
    ir::IRModule mod = ParseModule(kMatmul);
    Schedule sch(mod);
    auto loops = sch.GetLoops(sch.GetSBlock("C"));
    sch.Reorder({loops[2], loops[0]});
    ExpectModule(mod, sch.mod(), kMatmulReordered);
    // The loops keep their identity: the handles still name the same variables.
    QCOMPARE(sch.Get(loops[0])->loop_var->name_hint, std::string("i"));
    QVERIFY(sch.trace().AsPython().find("sch.reorder(l3, l1)\n") != std::string::npos);
    ExpectReplay(mod, sch);
  }

  void reorderErrors() {
    const std::string head =
        "ScheduleError: An error occurred in the schedule primitive 'reorder'.\nError message: ";
    Schedule sch(ParseModule(kMatmul));
    auto loops = sch.GetLoops(sch.GetSBlock("C"));
    QCOMPARE(FailsCleanly(sch,
                          [&] {
                            sch.Reorder({loops[0], loops[0]});
                          }),
             head + "Some loop appears in the input array for multiple times: `i`");

    std::string two = kTwoBlocks;
    two.replace(two.rfind("\"X\""), 3, "\"Y\"");
    Schedule sch2(ParseModule(two));
    auto x = sch2.GetLoops(sch2.GetSBlock("X"));
    auto y = sch2.GetLoops(sch2.GetSBlock("Y"));
    QCOMPARE(FailsCleanly(sch2,
                          [&] {
                            sch2.Reorder({x[1], y[1]});
                          }),
             head +
                 "The loops are not in a chain because they are not in the same block scope "
                 "(loop `j`)");
    QCOMPARE(FailsCleanly(sch2,
                          [&] {
                            sch2.Reorder({x[1], x[0]});
                          }),
             head +
                 "The loops are not in a chain because there is a non-single-branch stmt in "
                 "between, under loop `i`");
  }

  // TVM's partial affine binding: a block whose bindings are not affine in all its loops may
  // still have loops reordered below the non-affine one; a binding scaled by its loop (`l * 4`)
  // is not affine anywhere.
  void reorderPartialAffine() {
    const char* text = R"(@I.ir_module
class Module:
    @T.prim_func(s_tir=True)
    def main(A: T.Buffer((20, 4), "float32"), B: T.Buffer((20, 4), "float32")):
        for a, b, c in T.grid(4, 4, 4):
            with T.sblock("block"):
                vi = T.axis.spatial(20, a * a + b)
                vj = T.axis.spatial(4, c)
                B[vi, vj] = A[vi, vj] + T.float32(1.0)
)";
    const char* reordered = R"(@I.ir_module
class Module:
    @T.prim_func(s_tir=True)
    def main(A: T.Buffer((20, 4), "float32"), B: T.Buffer((20, 4), "float32")):
        for a, c, b in T.grid(4, 4, 4):
            with T.sblock("block"):
                vi = T.axis.spatial(20, a * a + b)
                vj = T.axis.spatial(4, c)
                B[vi, vj] = A[vi, vj] + T.float32(1.0)
)";
    ir::IRModule mod = ParseModule(text);
    Schedule sch(mod);
    auto loops = sch.GetLoops(sch.GetSBlock("block"));
    QCOMPARE(FailsCleanly(sch, [&] { sch.Reorder({loops[0], loops[2], loops[1]}); }),
             std::string("ScheduleError: An error occurred in the schedule primitive 'reorder'.\nError message: The block `block` is required to have an affine binding"));
    sch.Reorder({loops[2], loops[1]});
    ExpectModule(mod, sch.mod(), reordered);
    ExpectReplay(mod, sch);

    std::string scaled = text;
    scaled.replace(scaled.find("vj = T.axis.spatial(4, c)"), 25, "vj = T.axis.spatial(16, c * 4)");
    scaled.replace(scaled.find("A: T.Buffer((20, 4)"), 19, "A: T.Buffer((20, 16)");
    scaled.replace(scaled.find("B: T.Buffer((20, 4)"), 19, "B: T.Buffer((20, 16)");
    Schedule bad(ParseModule(scaled));
    auto bl = bad.GetLoops(bad.GetSBlock("block"));
    QCOMPARE(FailsCleanly(bad, [&] { bad.Reorder({bl[2], bl[1]}); }),
             std::string("ScheduleError: An error occurred in the schedule primitive 'reorder'.\nError "
                         "message: The block `block` is required to have an partial affine "
                         "binding under a"));
  }

  void loopKinds() {
    ir::IRModule mod = ParseModule(kMatmul);
    Schedule sch(mod);
    auto loops = sch.GetLoops(sch.GetSBlock("C"));
    sch.Parallel(loops[0]);
    sch.Bind(loops[1], "threadIdx.x");
    sch.Unroll(loops[2]);
    ExpectModule(mod, sch.mod(), kMatmulKinds);
    QVERIFY(sch.trace().AsPython().find("sch.bind(loop=l2, thread_axis=\"threadIdx.x\")\n") !=
            std::string::npos);
    ExpectReplay(mod, sch);
  }

  void loopKindErrors() {
    Schedule sch(ParseModule(kMatmul));
    auto loops = sch.GetLoops(sch.GetSBlock("C"));
    QCOMPARE(FailsCleanly(sch, [&] { sch.Parallel(loops[2]); }),
             std::string("ScheduleError: An error occurred in the schedule primitive 'parallel'.\n"
                         "Error message: The \"parallel\" cannot be fulfilled with regard to block "
                         "`C` because some block iter whose block_iter_type is not data-parallel "
                         "is bound to the loop `k`"));
    QVERIFY(FailsCleanly(sch, [&] { sch.Vectorize(loops[2]); })
                .find("'vectorize'.\nError message: The \"vectorize\" cannot be fulfilled") !=
            std::string::npos);
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, sch.Bind(loops[0], "threadIdx.w"));
    // threadIdx may carry a reduction (cross-thread reduction), blockIdx may not.
    QVERIFY(FailsCleanly(sch, [&] {
              sch.Bind(loops[2], "blockIdx.x");
            }).find("not data-parallel") != std::string::npos);
    sch.Bind(loops[2], "threadIdx.y");
    QCOMPARE(sch.Get(loops[2])->kind, tir::ForKind::kThreadBinding);
    // A bound loop can be neither split nor fused; unroll drops the binding.
    QCOMPARE(FailsCleanly(sch,
                          [&] {
                            sch.Split(loops[2], {std::nullopt, 4});
                          }),
             std::string("ScheduleError: An error occurred in the schedule primitive 'split'.\n"
                         "Error message: The primitive can't be applied because the loop `k` has "
                         "annotation or thread binding"));
    QVERIFY(FailsCleanly(sch, [&] {
              sch.Fuse({loops[1], loops[2]});
            }).find("the loop `k` has annotation or thread binding") != std::string::npos);
    sch.Unroll(loops[2]);
    QCOMPARE(sch.Get(loops[2])->kind, tir::ForKind::kUnrolled);
    QVERIFY(!sch.Get(loops[2])->thread_binding.defined());
    sch.Split(loops[2], {std::nullopt, 4});
  }

  void recipeAsUsersWriteIt() {
    ir::IRModule mod = ParseModule(kElementwise);
    Schedule sch(mod);
    DiagnosticList diags = ApplyRecipe(sch, R"(
# split the inner loop, then fuse
i, j = sch.get_loops("B")   # a block given by name
j0, j1 = sch.split(j, (None, 32))
f = sch.fuse(i, j0,
             preserve_unit_iters=True)
)");
    QVERIFY2(diags.empty(), diags.empty() ? "" : diags[0].message.c_str());
    ExpectModule(mod, sch.mod(), kElementwiseSplitFuse);
  }

  void recipeErrors_data() {
    QTest::addColumn<QString>("recipe");
    QTest::addColumn<QString>("message");
    QTest::addColumn<QString>("span");
    QTest::newRow("unknown method") << "b = sch.get_sblock(\"B\")\nsch.tile(b)"
                                    << "unknown or unsupported schedule method `tile`"
                                    << "tile";
    QTest::newRow("undefined name") << "a, b = sch.get_loops(block=c)"
                                    << "name 'c' is not defined"
                                    << "c";
    QTest::newRow("unpack count") << "a, = sch.get_loops(\"B\")"
                                  << "sch.get_loops() returned 2 values, but 1 names unpack them"
                                  << "a";
    QTest::newRow("not in the subset") << "for l in sch.get_loops(\"B\"):\n    sch.parallel(l)"
                                       << "a `for` loop is not part of the recipe language, "
                                          "which is assignments and calls on `sch`"
                                       << "for l in sch.get_loops(\"B\"):";
    QTest::newRow("float") << "a, b = sch.get_loops(\"B\")\nsch.split(a, [2.5, None])"
                           << "only integer literals are supported here"
                           << "2.5";
    QTest::newRow("bad keyword") << "sch.get_sblock(nam=\"B\")"
                                 << "sch.get_sblock() got an unexpected keyword argument 'nam'"
                                 << "\"B\"";
    QTest::newRow("schedule error")
        << "a, b = sch.get_loops(\"B\")\nsch.split(a, [3, 3])"
        << "ScheduleError: An error occurred in the schedule primitive 'split'.\nError message: "
           "The product of factors is not larger than or equal to the extent of loop `i`"
        << "sch.split(a, [3, 3])";
    QTest::newRow("wrong kind") << "a, b = sch.get_loops(\"B\")\nsch.get_loops(a)"
                                << "'a' is a loop, not a block"
                                << "a";
  }

  void recipeErrors() {
    QFETCH(QString, recipe);
    QFETCH(QString, message);
    QFETCH(QString, span);
    Schedule sch(ParseModule(kElementwise));
    DiagnosticList diags = ApplyRecipe(sch, recipe.toStdString());
    QCOMPARE(diags.size(), size_t(1));
    QCOMPARE(QString::fromStdString(diags[0].message), message);
    QCOMPARE(QString::fromStdString(std::string(diags[0].span.text())), span);
  }
};

QTEST_APPLESS_MAIN(TestScheduleLoops)
#include "tst_schedule_loops.moc"
