// loop_partition: before/after modules, TVM's errors (leaving the schedule as it was),
// interpreter equivalence on random inputs and trace replay.
#include <QTest>

#include "schedule/primitive/primitives.h"
#include "schedule_test_util.h"

using namespace wb;
using namespace wb::schedule;
using namespace wb::schedule::testing;

namespace {

const char* kScale = R"(@I.ir_module
class Module:
    @T.prim_func(s_tir=True)
    def main(A: T.Buffer((16, 8), "float32"), C: T.Buffer((16, 8), "float32")):
        for i, j in T.grid(16, 8):
            with T.sblock("C"):
                vi, vj = T.axis.remap("SS", [i, j])
                T.reads(A[vi, vj])
                T.writes(C[vi, vj])
                C[vi, vj] = A[vi, vj] * T.float32(2.0)
)";

const char* kMatmul = R"(@I.ir_module
class Module:
    @T.prim_func(s_tir=True)
    def main(A: T.Buffer((8, 12), "float32"), B: T.Buffer((12, 8), "float32"), C: T.Buffer((8, 8), "float32")):
        for i, j, k in T.grid(8, 8, 12):
            with T.sblock("C"):
                vi, vj, vk = T.axis.remap("SSR", [i, j, k])
                T.reads(A[vi, vk], B[vk, vj])
                T.writes(C[vi, vj])
                with T.init():
                    C[vi, vj] = T.float32(0.0)
                C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj]
)";

const char* kHead = R"(@I.ir_module
class Module:
    @T.prim_func(s_tir=True)
    def main(A: T.Buffer((16, 8), "float32"), C: T.Buffer((16, 8), "float32")):
)";

// The copy `name` of the scale block, its iterators bound to `i` and `j`, at `indent`.
std::string ScaleBlock(const std::string& name, const std::string& i, const std::string& j,
                       const std::string& indent) {
  return indent + "with T.sblock(\"" + name + "\"):\n" + indent + "    vi, vj = T.axis.remap(\"SS\", [" +
         i + ", " + j + "])\n" + indent + "    T.reads(A[vi, vj])\n" + indent +
         "    T.writes(C[vi, vj])\n" + indent + "    C[vi, vj] = A[vi, vj] * T.float32(2.0)\n";
}

}  // namespace

class TestSchedulePartition : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  // One inferred length among given ones: three ranges of the rows, each its own block copy whose
  // row iterator spans only its range.
  void inferredLength() {
    ir::IRModule before = ParseModule(kScale);
    Schedule sch(before);
    std::vector<LoopRV> loops = sch.GetLoops(sch.GetSBlock("C"));
    std::vector<LoopRV> parts = LoopPartition(sch, loops[0], {int64_t(3), std::monostate{}, int64_t(5)});
    QCOMPARE(parts.size(), size_t(3));
    QCOMPARE(sch.Get(parts[1])->loop_var->name_hint, std::string("i1"));
    ExpectModule(before, sch.mod(), std::string(kHead) + R"(        with T.sblock("C_i_common"):
            with T.sblock("C_i0_partition"):
                for i0, j in T.grid(3, 8):
)" + ScaleBlock("C_i0", "i0", "j", "                    ") + R"(            with T.sblock("C_i1_partition"):
                for i1 in range(3, 11):
                    for j in range(8):
)" + ScaleBlock("C_i1", "i1", "j", "                        ") + R"(            with T.sblock("C_i2_partition"):
                for i2 in range(11, 16):
                    for j in range(8):
)" + ScaleBlock("C_i2", "i2", "j", "                        "));
    QVERIFY(sch.trace().AsPython().find(
                "l3, l4, l5 = sch.loop_partition(loop=l1, factors=[3, None, 5], "
                "preserve_unit_iters=True)") != std::string::npos);
    // The block under the loop was copied and renamed: its handle expired, the copies are found
    // by their names.
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, sch.GetLoops(SBlockRV{0}));
    QCOMPARE(sch.GetLoops(sch.GetSBlock("C_i2")).size(), size_t(2));
    ExpectReplay(before, sch);
  }

  // Without None the given lengths are followed by a last range taking the rest; an inner loop.
  void lastRangeImplied() {
    ir::IRModule before = ParseModule(kScale);
    Schedule sch(before);
    Apply(sch, "l = sch.get_loops(\"C\")\na, b, c = sch.loop_partition(l[1], [2, 3])\n");
    std::string expected = std::string(kHead) + R"(        for i in range(16):
            with T.sblock("C_j_common"):
                with T.sblock("C_j0_partition"):
                    for j0 in range(2):
)" + ScaleBlock("C_j0", "i", "j0", "                        ") +
                           R"(                with T.sblock("C_j1_partition"):
                    for j1 in range(2, 5):
)" + ScaleBlock("C_j1", "i", "j1", "                        ") +
                           R"(                with T.sblock("C_j2_partition"):
                    for j2 in range(5, 8):
)" + ScaleBlock("C_j2", "i", "j2", "                        ");
    ExpectModule(before, sch.mod(), expected);
    ExpectReplay(before, sch);
  }

  // A reduction loop of a block with an init: TVM's copies would each restart the reduction (the
  // init runs at each copy's first value), so it is refused. A block without an init is cut.
  void reductionLoop() {
    Schedule sch(ParseModule(kMatmul));
    std::vector<LoopRV> l = sch.GetLoops(sch.GetSBlock("C"));
    QCOMPARE(FailsCleanly(sch, [&] { LoopPartition(sch, l[2], {int64_t(5), std::monostate{}}); }),
             Rendered("loop_partition",
                      "The loop `k` binds the reduction iterator vk of block `C`, which has an "
                      "init: partitioning it would split the reduction, each part restarting it"));
    ir::IRModule before = ParseModule(R"(@I.ir_module
class Module:
    @T.prim_func(s_tir=True)
    def main(A: T.Buffer((4, 6), "float32"), S: T.Buffer((4,), "float32")):
        for i, k in T.grid(4, 6):
            with T.sblock("S"):
                vi, vk = T.axis.remap("SR", [i, k])
                T.reads(S[vi], A[vi, vk])
                T.writes(S[vi])
                S[vi] = S[vi] + A[vi, vk]
)");
    Schedule acc(before);
    Apply(acc, "l = sch.get_loops(\"S\")\nsch.loop_partition(l[1], [4])\n");
    auto block = [](const std::string& k) {
      return "                        with T.sblock(\"S_" + k + "\"):\n" + R"(                            vi = T.axis.spatial(4, i)
)" + "                            vk = T.axis.reduce(" +
             (k == "k0" ? std::string("4") : std::string("(4, 6)")) + ", " + k + ")\n" +
             R"(                            T.reads(S[vi], A[vi, vk])
                            T.writes(S[vi])
                            S[vi] = S[vi] + A[vi, vk]
)";
    };
    ExpectModule(before, acc.mod(), R"(@I.ir_module
class Module:
    @T.prim_func(s_tir=True)
    def main(A: T.Buffer((4, 6), "float32"), S: T.Buffer((4,), "float32")):
        for i in range(4):
            with T.sblock("S_k_common"):
                with T.sblock("S_k0_partition"):
                    for k0 in range(4):
)" + block("k0") + R"(                with T.sblock("S_k1_partition"):
                    for k1 in range(4, 6):
)" + block("k1"));
    ExpectReplay(before, acc);
  }

  // A loop that binds no iterator directly (the inner loop of a split): the copies keep their
  // iterators' domains; partitions of partitions, as TVM's users write them. A spatial loop of a
  // reduction is cut.
  void splitThenNested() {
    ir::IRModule before = ParseModule(kMatmul);
    Schedule sch(before);
    Apply(sch, "l = sch.get_loops(\"C\")\n"
               "a, b = sch.split(l[0], [None, 4])\n"
               "p = sch.loop_partition(b, [1, None])\n"
               "_, j, k = sch.get_loops(\"C_i_11\")\n"
               "sch.loop_partition(j, factors=[None, 2])\n");
    // The partition and common blocks read and write what their copies do (C is read by the
    // reduction's update), over the rows the enclosing loops select.
    ExpectModule(before, sch.mod(), R"(@I.ir_module
class Module:
    @T.prim_func(s_tir=True)
    def main(A: T.Buffer((8, 12), "float32"), B: T.Buffer((12, 8), "float32"), C: T.Buffer((8, 8), "float32")):
        for i_0 in range(2):
            with T.sblock("C_i_1_common"):
                T.reads(C[i_0 * 4:i_0 * 4 + 4, 0:8], A[i_0 * 4:i_0 * 4 + 4, 0:12], B[0:12, 0:8])
                T.writes(C[i_0 * 4:i_0 * 4 + 4, 0:8])
                with T.sblock("C_i_10_partition"):
                    T.reads(C[i_0 * 4, 0:8], A[i_0 * 4, 0:12], B[0:12, 0:8])
                    T.writes(C[i_0 * 4, 0:8])
                    for i_10, j, k in T.grid(1, 8, 12):
                        with T.sblock("C_i_10"):
                            vi = T.axis.spatial(8, i_0 * 4 + i_10)
                            vj, vk = T.axis.remap("SR", [j, k])
                            T.reads(A[vi, vk], B[vk, vj])
                            T.writes(C[vi, vj])
                            with T.init():
                                C[vi, vj] = T.float32(0.0)
                            C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj]
                with T.sblock("C_i_11_partition"):
                    T.reads(C[i_0 * 4 + 1:i_0 * 4 + 1 + 3, 0:8], A[i_0 * 4 + 1:i_0 * 4 + 1 + 3, 0:12], B[0:12, 0:8])
                    T.writes(C[i_0 * 4 + 1:i_0 * 4 + 1 + 3, 0:8])
                    for i_11 in range(1, 4):
                        with T.sblock("C_i_11_j_common"):
                            T.reads(C[i_0 * 4 + i_11, 0:8], A[i_0 * 4 + i_11, 0:12], B[0:12, 0:8])
                            T.writes(C[i_0 * 4 + i_11, 0:8])
                            with T.sblock("C_i_11_j0_partition"):
                                T.reads(C[i_0 * 4 + i_11, 0:6], A[i_0 * 4 + i_11, 0:12], B[0:12, 0:6])
                                T.writes(C[i_0 * 4 + i_11, 0:6])
                                for j0, k in T.grid(6, 12):
                                    with T.sblock("C_i_11_j0"):
                                        vi = T.axis.spatial(8, i_0 * 4 + i_11)
                                        vj, vk = T.axis.remap("SR", [j0, k])
                                        T.reads(A[vi, vk], B[vk, vj])
                                        T.writes(C[vi, vj])
                                        with T.init():
                                            C[vi, vj] = T.float32(0.0)
                                        C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj]
                            with T.sblock("C_i_11_j1_partition"):
                                T.reads(C[i_0 * 4 + i_11, 6:8], A[i_0 * 4 + i_11, 0:12], B[0:12, 6:8])
                                T.writes(C[i_0 * 4 + i_11, 6:8])
                                for j1 in range(6, 8):
                                    for k in range(12):
                                        with T.sblock("C_i_11_j1"):
                                            vi = T.axis.spatial(8, i_0 * 4 + i_11)
                                            vj, vk = T.axis.remap("SR", [j1, k])
                                            T.reads(A[vi, vk], B[vk, vj])
                                            T.writes(C[vi, vj])
                                            with T.init():
                                                C[vi, vj] = T.float32(0.0)
                                            C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj]
)");
    ExpectReplay(before, sch);
  }

  // TVM's checks, in its order; a failure leaves the schedule as it was.
  void errors() {
    Schedule sch(ParseModule(kScale));
    std::vector<LoopRV> l = sch.GetLoops(sch.GetSBlock("C"));
    auto partition = [&](const LoopRV& loop, std::vector<Schedule::Factor> f) {
      return FailsCleanly(sch, [&] { LoopPartition(sch, loop, f); });
    };
    QCOMPARE(partition(l[0], {int64_t(10), int64_t(2), int64_t(4)}),
             Rendered("loop_partition",
                      "The sum of factors is larger than or equal to the extent of loop `i`"));
    QCOMPARE(partition(l[0], {int64_t(4), std::monostate{}, int64_t(12)}),
             Rendered("loop_partition",
                      "The sum of factors is larger than or equal to the extent of loop `i`"));
    QCOMPARE(partition(l[1], {int64_t(2), int64_t(-3)}),
             Rendered("loop_partition", "All the constant factors are required to be positive. "
                                        "However, the factor at position 1 is -3"));
    QCOMPARE(partition(l[1], {int64_t(0), std::monostate{}}),
             Rendered("loop_partition", "All the constant factors are required to be positive. "
                                        "However, the factor at position 0 is 0"));
    QCOMPARE(partition(l[1], {std::monostate{}, int64_t(2), std::monostate{}}),
             Rendered("loop_partition", "Only one factor can be specified as -1 or none"));

    Schedule sym(ParseModule(R"(@I.ir_module
class Module:
    @T.prim_func(s_tir=True)
    def main(a: T.handle, c: T.handle, n: T.int32):
        A = T.match_buffer(a, (n, 8))
        C = T.match_buffer(c, (n, 8))
        for i, j in T.grid(n, 8):
            with T.sblock("C"):
                vi, vj = T.axis.remap("SS", [i, j])
                C[vi, vj] = A[vi, vj] + T.float32(1.0)
)"));
    std::vector<LoopRV> s = sym.GetLoops(sym.GetSBlock("C"));
    QCOMPARE(FailsCleanly(sym, [&] { LoopPartition(sym, s[0], {int64_t(2), std::monostate{}}); }),
             Rendered("loop_partition",
                      "Detected dynamic shape in either min or extent of a loop `i`: the min and "
                      "extent values of the loop are required to be known at compile time"));
    Schedule ok = sym;
    (void)LoopPartition(ok, s[1], {int64_t(2), std::monostate{}});

    for (const char* kind : {"T.serial(8, annotations={\"pragma_x\": 1})",
                             "T.thread_binding(8, thread=\"threadIdx.x\")"}) {
      Schedule ann(ParseModule(std::string(kHead) + "        for i in range(16):\n            for j in " +
                               kind + R"(:
                with T.sblock("C"):
                    vi, vj = T.axis.remap("SS", [i, j])
                    C[vi, vj] = A[vi, vj] * T.float32(2.0)
)"));
      std::vector<LoopRV> a = ann.GetLoops(ann.GetSBlock("C"));
      QCOMPARE(FailsCleanly(ann, [&] { LoopPartition(ann, a[1], {int64_t(2)}); }),
               Rendered("loop_partition", "The primitive can't be applied because the loop `j` "
                                          "has annotation or thread binding"));
    }

    // The common block of an inner loop's partition uses the outer loop's variable itself: moving
    // it with reverse_compute_at, which rebuilds loops from iterators only, is refused.
    Schedule two(ParseModule(kTwoStage));
    LoopPartition(two, two.GetLoops(two.GetSBlock("C"))[1], {int64_t(4)});
    SBlockRV common = two.GetSBlock("C_j_common");
    LoopRV b_i = two.GetLoops(two.GetSBlock("B"))[0];
    QCOMPARE(FailsCleanly(two, [&] { two.ReverseComputeAt(common, b_i); }),
             Rendered("reverse-compute-at",
                      "The block `C_j_common` uses the loop variable `i` other than through its "
                      "iterator bindings, so its loops cannot be regenerated at the new location"));

    // Through a recipe: the error is at the call, with a note at the loop.
    Schedule rec(ParseModule(kScale));
    DiagnosticList diags =
        ApplyRecipe(rec, "l = sch.get_loops(\"C\")\nsch.loop_partition(l[0], [8, 8])\n");
    QCOMPARE(diags.size(), size_t(1));
    QCOMPARE(diags[0].span.start().line, 2u);
    QCOMPARE(diags[0].notes.size(), size_t(1));
    QCOMPARE(diags[0].notes[0].span.start().line, 5u);
    QCOMPARE(rec.trace().instructions().size(), size_t(2));
    diags = ApplyRecipe(rec, "sch.loop_partition(l[0], [2.5])\n");
    QCOMPARE(diags.size(), size_t(1));
  }
};

QTEST_APPLESS_MAIN(TestSchedulePartition)
#include "tst_schedule_partition.moc"
