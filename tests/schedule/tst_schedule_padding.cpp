// decompose_padding: before/after modules, TVM's errors (leaving the schedule as it was),
// interpreter equivalence on random inputs and trace replay, as the primitive is used after
// tiling (split, reorder, compute_at) in TVM users' pooling schedules.
#include <QTest>

#include "schedule/primitive/primitives.h"
#include "schedule_test_util.h"

using namespace wb;
using namespace wb::schedule;
using namespace wb::schedule::testing;

namespace {

const char* k1D = R"(@I.ir_module
class Module:
    @T.prim_func(s_tir=True)
    def main(x: T.Buffer((128,), "int32"), y: T.Buffer((140,), "int32")):
        for i in range(140):
            with T.sblock("block"):
                vi = T.axis.spatial(140, i)
                T.reads(x[vi - 6])
                T.writes(y[vi])
                y[vi] = T.if_then_else(6 <= vi and vi < 134, x[vi - 6], 0)
)";

// A 1-pixel zero pad of an 8x8 image and a 3x3 box filter over it.
std::string Pool(const std::string& cond, const std::string& pad_value = "T.float32(0.0)") {
  return R"(@I.ir_module
class Module:
    @T.prim_func(s_tir=True)
    def main(A: T.Buffer((8, 8), "float32"), C: T.Buffer((8, 8), "float32")):
        P = T.sblock_alloc_buffer((10, 10))
        for i, j in T.grid(10, 10):
            with T.sblock("P"):
                vi, vj = T.axis.remap("SS", [i, j])
                T.reads(A[vi - 1, vj - 1])
                T.writes(P[vi, vj])
                P[vi, vj] = T.if_then_else()" + cond + R"(, A[vi - 1, vj - 1], )" + pad_value + R"()
        for i, j, ki, kj in T.grid(8, 8, 3, 3):
            with T.sblock("C"):
                vi, vj, vki, vkj = T.axis.remap("SSRR", [i, j, ki, kj])
                T.reads(P[vi + vki, vj + vkj])
                T.writes(C[vi, vj])
                with T.init():
                    C[vi, vj] = T.float32(0.0)
                C[vi, vj] = C[vi, vj] + P[vi + vki, vj + vkj]
)";
}

const std::string kPoolCond = "1 <= vi and vi < 9 and 1 <= vj and vj < 9";

// The expected module of Pool(kPoolCond) with the pad block replaced by `pad`.
std::string PoolWith(const std::string& pad) {
  return R"(@I.ir_module
class Module:
    @T.prim_func(s_tir=True)
    def main(A: T.Buffer((8, 8), "float32"), C: T.Buffer((8, 8), "float32")):
        P = T.sblock_alloc_buffer((10, 10))
)" + pad + R"(        for i, j, ki, kj in T.grid(8, 8, 3, 3):
            with T.sblock("C"):
                vi, vj, vki, vkj = T.axis.remap("SSRR", [i, j, ki, kj])
                T.reads(P[vi + vki, vj + vkj])
                T.writes(C[vi, vj])
                with T.init():
                    C[vi, vj] = T.float32(0.0)
                C[vi, vj] = C[vi, vj] + P[vi + vki, vj + vkj]
)";
}

// The recipe's diagnostics, the first one also shown (the tests check them).
DiagnosticList ApplyShowing(Schedule& sch, const std::string& recipe) {
  DiagnosticList diags = ApplyRecipe(sch, recipe);
  if (!diags.empty()) qWarning("%s", diags[0].message.c_str());
  return diags;
}

}  // namespace

class TestSchedulePadding : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  // The loop binding the padded iterator shrinks to the in-bound extent; the store shifts.
  void oneDimensional() {
    ir::IRModule before = ParseModule(k1D);
    Schedule sch(before);
    SBlockRV b = sch.GetSBlock("block");
    SBlockRV pad = DecomposePadding(sch, b, sch.GetLoops(b)[0]);
    QCOMPARE(sch.Get(pad)->name_hint, std::string("block_pad_const"));
    ExpectModule(before, sch.mod(), R"(@I.ir_module
class Module:
    @T.prim_func(s_tir=True)
    def main(x: T.Buffer((128,), "int32"), y: T.Buffer((140,), "int32")):
        for i in range(140):
            with T.sblock("block_pad_const"):
                vi = T.axis.spatial(140, i)
                T.reads()
                T.writes(y[vi])
                y[vi] = 0
        for i in range(128):
            with T.sblock("block"):
                vi = T.axis.spatial(128, i)
                T.reads(x[vi])
                T.writes(y[vi + 6])
                y[vi + 6] = x[vi]
)");
    QVERIFY(sch.trace().AsPython().find("b2 = sch.decompose_padding(block=b0, loop=l1)") !=
            std::string::npos);
    ExpectReplay(before, sch);
  }

  // At the outermost loop: both loops of the chain shrink.
  void twoDimensionalAtTheTop() {
    ir::IRModule before = ParseModule(Pool(kPoolCond));
    Schedule sch(before);
    DiagnosticList diags = ApplyShowing(sch, "pad = sch.get_sblock(\"P\")\n"
                                      "sch.decompose_padding(pad, sch.get_loops(pad)[0])\n");
    QVERIFY(diags.empty());
    ExpectModule(before, sch.mod(), PoolWith(R"(        for i, j in T.grid(10, 10):
            with T.sblock("P_pad_const"):
                vi, vj = T.axis.remap("SS", [i, j])
                T.reads()
                T.writes(P[vi, vj])
                P[vi, vj] = T.float32(0.0)
        for i, j in T.grid(8, 8):
            with T.sblock("P"):
                vi, vj = T.axis.remap("SS", [i, j])
                T.reads(A[vi, vj])
                T.writes(P[vi + 1, vj + 1])
                P[vi + 1, vj + 1] = A[vi, vj]
)"));
    ExpectReplay(before, sch);
  }

  // At the inner loop: the constant fill goes inside the outer loop, which the in-bound copy
  // cannot shrink (it holds the fill too), so the outer iterator keeps a predicate.
  void twoDimensionalAtTheInnerLoop() {
    ir::IRModule before = ParseModule(Pool(kPoolCond));
    Schedule sch(before);
    SBlockRV p = sch.GetSBlock("P");
    DecomposePadding(sch, p, sch.GetLoops(p)[1]);
    ExpectModule(before, sch.mod(), PoolWith(R"(        for i in range(10):
            for j in range(10):
                with T.sblock("P_pad_const"):
                    vi, vj = T.axis.remap("SS", [i, j])
                    T.reads()
                    T.writes(P[vi, vj])
                    P[vi, vj] = T.float32(0.0)
            for j in range(8):
                with T.sblock("P"):
                    vi = T.axis.spatial(8, i - 1)
                    vj = T.axis.spatial(8, j)
                    T.where(1 <= i and i < 9)
                    T.reads(A[vi, vj])
                    T.writes(P[vi + 1, vj + 1])
                    P[vi + 1, vj + 1] = A[vi, vj]
)"));
    ExpectReplay(before, sch);
  }

  // int64 indices, a unit batch iterator, a pad on one side only.
  void int64Indices() {
    ir::IRModule before = ParseModule(R"(@I.ir_module
class Module:
    @T.prim_func(s_tir=True)
    def main(x: T.Buffer((T.int64(1), T.int64(12), T.int64(8)), "int32"), y: T.Buffer((T.int64(1), T.int64(14), T.int64(8)), "int32")):
        for b, i, j in T.grid(T.int64(1), T.int64(14), T.int64(8)):
            with T.sblock("block"):
                vb, vi, vj = T.axis.remap("SSS", [b, i, j])
                T.reads(x[vb, vi, vj])
                T.writes(y[vb, vi, vj])
                y[vb, vi, vj] = T.if_then_else(vi < T.int64(12), x[vb, vi, vj], 0)
)");
    Schedule sch(before);
    SBlockRV blk = sch.GetSBlock("block");
    DecomposePadding(sch, blk, sch.GetLoops(blk)[2]);
    ExpectModule(before, sch.mod(), R"(@I.ir_module
class Module:
    @T.prim_func(s_tir=True)
    def main(x: T.Buffer((T.int64(1), T.int64(12), T.int64(8)), "int32"), y: T.Buffer((T.int64(1), T.int64(14), T.int64(8)), "int32")):
        for b, i in T.grid(T.int64(1), T.int64(14)):
            for j in range(T.int64(8)):
                with T.sblock("block_pad_const"):
                    vb = T.axis.spatial(T.int64(1), T.int64(0))
                    vi, vj = T.axis.remap("SS", [i, j])
                    T.reads()
                    T.writes(y[vb, vi, vj])
                    y[vb, vi, vj] = 0
            for j in range(T.int64(8)):
                with T.sblock("block"):
                    vb = T.axis.spatial(T.int64(1), T.int64(0))
                    vi = T.axis.spatial(T.int64(12), i)
                    vj = T.axis.spatial(T.int64(8), j)
                    T.where(i < T.int64(12))
                    T.reads(x[vb, vi, vj])
                    T.writes(y[vb, vi, vj])
                    y[vb, vi, vj] = x[vb, vi, vj]
)");
    ExpectReplay(before, sch);
  }

  // TVM users' pooling schedule: tile the consumer, compute the pad at the tile, then decompose
  // the pad inside the tile or above it; with a tile that does not divide the image too.
  void afterTilingAndComputeAt_data() {
    QTest::addColumn<int>("tile");
    QTest::addColumn<int>("loop");
    QTest::newRow("tile 4, inside") << 4 << 2;
    QTest::newRow("tile 4, lifted") << 4 << 0;
    QTest::newRow("tile 3, inside") << 3 << 2;
    QTest::newRow("tile 3, lifted") << 3 << 1;
  }
  void afterTilingAndComputeAt() {
    QFETCH(int, tile);
    QFETCH(int, loop);
    ir::IRModule before = ParseModule(Pool(kPoolCond));
    Schedule sch(before);
    std::string t = std::to_string(tile);
    DiagnosticList diags = ApplyShowing(
        sch, "block = sch.get_sblock(\"C\")\n"
             "pad = sch.get_sblock(\"P\")\n"
             "i, j, ki, kj = sch.get_loops(block)\n"
             "io, ii = sch.split(i, [None, " + t + "])\n"
             "jo, ji = sch.split(j, [None, " + t + "])\n"
             "sch.reorder(io, jo, ii, ji, ki, kj)\n"
             "sch.compute_at(pad, jo)\n"
             "sch.decompose_padding(pad, sch.get_loops(pad)[" + std::to_string(loop) + "])\n");
    QVERIFY(diags.empty());
    QVERIFY(sch.trace().AsPython().find("decompose_padding") != std::string::npos);
    ExpectSameMeaning(before, sch.mod(), 1);
    ExpectSameMeaning(before, sch.mod(), 2);
    ExpectReplay(before, sch);
  }

  // The constant fill shares the outer loop with the in-bound copy: reindex of its write would
  // copy the whole buffer on every iteration of that loop, so it is refused (TVM refuses it too).
  void reindexOfAFillInsideALoop() {
    Schedule sch(ParseModule(Pool(kPoolCond)));
    SBlockRV p = sch.GetSBlock("P");
    SBlockRV fill = DecomposePadding(sch, p, sch.GetLoops(p)[1]);
    QCOMPARE(FailsCleanly(sch, [&] { sch.ReIndex(fill, "write", 0); }),
             Rendered("reindex", "The loops above block `P_pad_const` are not a single chain up "
                                 "to its scope"));
  }

  void errors() {
    Schedule sch(ParseModule(Pool(kPoolCond)));
    SBlockRV p = sch.GetSBlock("P");
    SBlockRV c = sch.GetSBlock("C");
    std::vector<LoopRV> c_loops = sch.GetLoops(c);
    QCOMPARE(FailsCleanly(sch, [&] { DecomposePadding(sch, p, c_loops[0]); }),
             Rendered("decompose-padding",
                      "The input loop `i` of decompose_padding is required to be an ancestor of "
                      "block `P`."));
    // A reduction block is not complete.
    QCOMPARE(FailsCleanly(sch, [&] { DecomposePadding(sch, c, c_loops[0]); }),
             Rendered("decompose-padding",
                      "The block `C` is not a complete block - it violates condition #1"));

    Schedule plain(ParseModule(kTwoStage));
    SBlockRV b = plain.GetSBlock("B");
    std::vector<LoopRV> b_loops = plain.GetLoops(b);
    QCOMPARE(FailsCleanly(plain, [&] { DecomposePadding(plain, b, b_loops[0]); }),
             Rendered("decompose-padding",
                      "decompose_padding expect the block `B` to match padding pattern\n  Value "
                      "of BufferStore expect to be constrained by a padding predicate"));
  }

  void patternErrors_data() {
    QTest::addColumn<QString>("cond");
    QTest::addColumn<QString>("pad");
    QTest::addColumn<QString>("message");
    QTest::newRow("trivial") << "vi < 12 and 0 <= vj" << "T.float32(0.0)"
                             << "The in-bound predicate is trivial";
    QTest::newRow("dependent") << "1 <= vi + vj and vi < 9" << "T.float32(0.0)"
                               << "Block iters are not independent wrt padding condition";
    QTest::newRow("not a bound") << "vi % 2 == 0" << "T.float32(0.0)"
                                 << "Block iters are not independent wrt padding condition";
    QTest::newRow("pad not constant") << kPoolCond.c_str() << "A[0, 0]"
                                      << "Pad value should be constant";
  }
  void patternErrors() {
    QFETCH(QString, cond);
    QFETCH(QString, pad);
    QFETCH(QString, message);
    Schedule sch(ParseModule(Pool(cond.toStdString(), pad.toStdString())));
    SBlockRV p = sch.GetSBlock("P");
    std::vector<LoopRV> loops = sch.GetLoops(p);
    QCOMPARE(FailsCleanly(sch, [&] { DecomposePadding(sch, p, loops[0]); }),
             Rendered("decompose-padding",
                      "decompose_padding expect the block `P` to match padding pattern\n  " +
                          message.toStdString()));
  }

  // can_decompose_padding answers without changing the schedule.
  void canDecompose() {
    ir::IRModule before = ParseModule(kTwoStage);
    Schedule sch(before);
    SBlockRV b = sch.GetSBlock("B");
    QVERIFY(!CanDecomposePadding(sch, b, sch.GetLoops(b)[0]));
    QVERIFY(sch.mod().same_as(before));
    Apply(sch, "b = sch.get_sblock(\"B\")\nassert not sch.can_decompose_padding(b, "
               "sch.get_loops(b)[1])\n");
    QVERIFY(sch.trace().AsPython().find("decompose_padding") == std::string::npos);
  }

  // In a recipe the error is reported at the statement, with a note at the block.
  void recipeError() {
    Schedule sch(ParseModule(kTwoStage));
    DiagnosticList diags =
        ApplyRecipe(sch, "b = sch.get_sblock(\"B\")\nsch.decompose_padding(b, sch.get_loops(b)[1])\n");
    QCOMPARE(diags.size(), size_t(1));
    QVERIFY2(diags[0].message.find("to match padding pattern") != std::string::npos,
             diags[0].message.c_str());
    QCOMPARE(std::string(diags[0].span.text()),
             std::string("sch.decompose_padding(b, sch.get_loops(b)[1])"));
    QVERIFY(FindRecipeDoc("decompose_padding") != nullptr);
  }
};

QTEST_APPLESS_MAIN(TestSchedulePadding)
#include "tst_schedule_padding.moc"
