// merge: before/after modules, TVM's errors and the dependence refusal (leaving the schedule as
// it was), interpreter equivalence on random inputs and trace replay.
#include <QTest>

#include "schedule/primitive/primitives.h"
#include "schedule_test_util.h"

using namespace wb;
using namespace wb::schedule;
using namespace wb::schedule::testing;

namespace {

const std::string kHead = R"(@I.ir_module
class Module:
    @T.prim_func(s_tir=True)
    def main(A: T.Buffer((16, 16), "float32"), C: T.Buffer((16, 16), "float32"), D: T.Buffer((8, 8), "float32")):
        B = T.sblock_alloc_buffer((16, 16))
        for i, j in T.grid(16, 16):
            with T.sblock("B"):
                vi, vj = T.axis.remap("SS", [i, j])
                T.reads(A[vi, vj])
                T.writes(B[vi, vj])
                B[vi, vj] = A[vi, vj] * T.float32(2.0)
)";

// Two consumers of B over tiled nests of the same outer extents.
const std::string kTiled = kHead + R"(        for i_0, j_0, i_1, j_1 in T.grid(4, 4, 4, 4):
            with T.sblock("C"):
                vi = T.axis.spatial(16, i_0 * 4 + i_1)
                vj = T.axis.spatial(16, j_0 * 4 + j_1)
                T.reads(B[vi, vj])
                T.writes(C[vi, vj])
                C[vi, vj] = B[vi, vj] + T.float32(1.0)
        for i_0, j_0, i_1, j_1 in T.grid(4, 4, 2, 2):
            with T.sblock("D"):
                vi = T.axis.spatial(8, i_0 * 2 + i_1)
                vj = T.axis.spatial(8, j_0 * 2 + j_1)
                T.reads(B[vi, vj])
                T.writes(D[vi, vj])
                D[vi, vj] = B[vi, vj] + T.float32(2.0)
)";

const std::string kCBlock = R"(                    with T.sblock("C"):
                        vi = T.axis.spatial(16, i_0_m * 4 + i_1)
                        vj = T.axis.spatial(16, j_0 * 4 + j_1)
                        T.reads(B[vi, vj])
                        T.writes(C[vi, vj])
                        C[vi, vj] = B[vi, vj] + T.float32(1.0)
)";

}  // namespace

class TestScheduleMerge : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  void outermost() {
    ir::IRModule before = ParseModule(kTiled);
    Schedule sch(before);
    LoopRV i = sch.GetLoops(sch.GetSBlock("C"))[0];
    LoopRV j = sch.GetLoops(sch.GetSBlock("D"))[0];
    LoopRV m = Merge(sch, {i, j});
    QCOMPARE(sch.Get(m)->loop_var->name_hint, std::string("i_0_m"));
    ExpectModule(before, sch.mod(), kHead + R"(        for i_0_m in range(4):
            for j_0, i_1, j_1 in T.grid(4, 4, 4):
)" + kCBlock + R"(            for j_0, i_1, j_1 in T.grid(4, 2, 2):
                with T.sblock("D"):
                    vi = T.axis.spatial(8, i_0_m * 2 + i_1)
                    vj = T.axis.spatial(8, j_0 * 2 + j_1)
                    T.reads(B[vi, vj])
                    T.writes(D[vi, vj])
                    D[vi, vj] = B[vi, vj] + T.float32(2.0)
)");
    QVERIFY(sch.trace().AsPython().find("l10 = sch.merge(l1, l6)") != std::string::npos);
    ExpectReplay(before, sch);
  }

  void twoLevels() {
    ir::IRModule before = ParseModule(kTiled);
    Schedule sch(before);
    Apply(sch, "c = sch.get_loops(\"C\")\n"
               "d = sch.get_loops(\"D\")\n"
               "m = sch.merge(c[1], d[1])\n"
               "sch.parallel(sch.get_loops(\"C\")[0])\n");
    ExpectModule(before, sch.mod(), kHead + R"(        for i_0_m in T.parallel(4):
            for j_0_m in range(4):
                for i_1, j_1 in T.grid(4, 4):
                    with T.sblock("C"):
                        vi = T.axis.spatial(16, i_0_m * 4 + i_1)
                        vj = T.axis.spatial(16, j_0_m * 4 + j_1)
                        T.reads(B[vi, vj])
                        T.writes(C[vi, vj])
                        C[vi, vj] = B[vi, vj] + T.float32(1.0)
                for i_1, j_1 in T.grid(2, 2):
                    with T.sblock("D"):
                        vi = T.axis.spatial(8, i_0_m * 2 + i_1)
                        vj = T.axis.spatial(8, j_0_m * 2 + j_1)
                        T.reads(B[vi, vj])
                        T.writes(D[vi, vj])
                        D[vi, vj] = B[vi, vj] + T.float32(2.0)
)");
    ExpectReplay(before, sch);
  }

  // The bodies run in the order the loops are given; the merged nest takes the place of the last
  // given loop's nest (here D's, which moves before C's).
  void givenOrder() {
    ir::IRModule before = ParseModule(kTiled);
    Schedule sch(before);
    Apply(sch, "sch.merge(sch.get_loops(\"D\")[0], sch.get_loops(\"C\")[0])\n");
    ExpectModule(before, sch.mod(), kHead + R"(        for i_0_m in range(4):
            for j_0, i_1, j_1 in T.grid(4, 2, 2):
                with T.sblock("D"):
                    vi = T.axis.spatial(8, i_0_m * 2 + i_1)
                    vj = T.axis.spatial(8, j_0 * 2 + j_1)
                    T.reads(B[vi, vj])
                    T.writes(D[vi, vj])
                    D[vi, vj] = B[vi, vj] + T.float32(2.0)
            for j_0, i_1, j_1 in T.grid(4, 4, 4):
)" + kCBlock);
    ExpectReplay(before, sch);
  }

  void errors() {
    Schedule sch(ParseModule(kTiled));
    std::vector<LoopRV> b = sch.GetLoops(sch.GetSBlock("B"));
    std::vector<LoopRV> c = sch.GetLoops(sch.GetSBlock("C"));
    std::vector<LoopRV> d = sch.GetLoops(sch.GetSBlock("D"));
    QCOMPARE(FailsCleanly(sch, [&] { Merge(sch, {c[2], d[2]}); }),
             Rendered("merge", "Merge loop's `extent` must be same, but not. The loop `i_1` and "
                               "the loop `i_1` differ"));
    QCOMPARE(FailsCleanly(sch, [&] { Merge(sch, {c[1], d[0]}); }),
             Rendered("merge", "Merge loop's nesting depth must be same, but not."));
    QCOMPARE(FailsCleanly(sch, [&] { Merge(sch, {c[0], c[1]}); }),
             Rendered("merge", "Merge loop's nesting depth must be same, but not."));
    // B's nest writes what C's reads: interleaving them would read B before it is written.
    Schedule two(ParseModule(kTwoStage));
    std::vector<LoopRV> bl = two.GetLoops(two.GetSBlock("B"));
    std::vector<LoopRV> cl = two.GetLoops(two.GetSBlock("C"));
    QCOMPARE(FailsCleanly(two, [&] { Merge(two, {bl[0], cl[0]}); }),
             Rendered("merge", "The loops cannot be merged: the nest of loop `i` and the nest of "
                               "loop `i` access buffer B and one of them writes it; merging would "
                               "change the order of these accesses"));
    // Merging B's and D's nests (independent of each other) moves B's past C's, which reads B.
    Schedule three(ParseModule(kHead + R"(        for i, j in T.grid(16, 16):
            with T.sblock("C"):
                vi, vj = T.axis.remap("SS", [i, j])
                T.reads(B[vi, vj])
                T.writes(C[vi, vj])
                C[vi, vj] = B[vi, vj] + T.float32(1.0)
        for i, j in T.grid(16, 16):
            with T.sblock("D"):
                vi = T.axis.spatial(8, i // 2)
                vj = T.axis.spatial(8, j // 2)
                T.reads(A[vi, vj])
                T.writes(D[vi, vj])
                D[vi, vj] = A[vi, vj]
)"));
    std::vector<LoopRV> b3 = three.GetLoops(three.GetSBlock("B"));
    std::vector<LoopRV> d3 = three.GetLoops(three.GetSBlock("D"));
    QCOMPARE(FailsCleanly(three, [&] { Merge(three, {b3[0], d3[0]}); }),
             Rendered("merge", "The loops cannot be merged: the nest of loop `i` and the loop nest "
                               "of block `C` access buffer B and one of them writes it; merging would change "
                               "the order of these accesses"));
    DiagnosticList diags = ApplyRecipe(sch, "sch.merge(sch.get_loops(\"C\")[0])\n");
    QCOMPARE(diags.size(), size_t(1));
    QVERIFY2(diags[0].message.find("at least 2 loops") != std::string::npos,
             diags[0].message.c_str());
    (void)b;
  }
};

QTEST_APPLESS_MAIN(TestScheduleMerge)
#include "tst_schedule_merge.moc"
