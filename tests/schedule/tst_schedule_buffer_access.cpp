// annotate_buffer_access: before/after modules, errors (leaving the schedule as it was),
// interpreter equivalence on random inputs and trace replay.
#include <QTest>

#include "schedule/primitive/primitives.h"
#include "schedule_test_util.h"

using namespace wb;
using namespace wb::schedule;
using namespace wb::schedule::testing;

class TestScheduleBufferAccess : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  // A read region widened by one element on each side, as (start, stop) pairs.
  void readHalo() {
    ir::IRModule before = ParseModule(kTwoStage);
    Schedule sch(before);
    Apply(sch, "sch.annotate_buffer_access(\"B\", 0, \"read\", lambda vi, vj: ((vi - 1, vi + 1), (vj - 1, vj + 1)))\n");
    ExpectModule(before, sch.mod(), R"(@I.ir_module
class Module:
    @T.prim_func(s_tir=True)
    def main(A: T.Buffer((16, 16), "float32"), C: T.Buffer((16, 16), "float32")):
        B = T.sblock_alloc_buffer((16, 16))
        for i, j in T.grid(16, 16):
            with T.sblock("B"):
                vi, vj = T.axis.remap("SS", [i, j])
                T.reads(A[vi - 1:vi - 1 + 2, vj - 1:vj - 1 + 2])
                T.writes(B[vi, vj])
                T.sblock_attr({"explicit_read_region": [0]})
                B[vi, vj] = A[vi, vj] * T.float32(2.0)
        for i, j in T.grid(16, 16):
            with T.sblock("C"):
                vi, vj = T.axis.remap("SS", [i, j])
                T.reads(B[vi, vj])
                T.writes(C[vi, vj])
                C[vi, vj] = B[vi, vj] + T.float32(1.0)
)");
    QVERIFY2(sch.trace().AsPython().find("gen_new_ranges=lambda vi, vj: [(vi - 1, vi + 1), (vj - 1, vj + 1)])") != std::string::npos,
             sch.trace().AsPython().c_str());
    ExpectReplay(before, sch);
  }

  // A write region from a point and a pair, in a list.
  void writePointAndPair() {
    ir::IRModule before = ParseModule(kTwoStage);
    Schedule sch(before);
    Apply(sch, "sch.annotate_buffer_access(block=\"B\", buffer_index=0, buf_type=\"write\", gen_new_ranges=lambda vi, vj: [vi, (vj, vj + 2)])\n");
    ExpectModule(before, sch.mod(), R"(@I.ir_module
class Module:
    @T.prim_func(s_tir=True)
    def main(A: T.Buffer((16, 16), "float32"), C: T.Buffer((16, 16), "float32")):
        B = T.sblock_alloc_buffer((16, 16))
        for i, j in T.grid(16, 16):
            with T.sblock("B"):
                vi, vj = T.axis.remap("SS", [i, j])
                T.reads(A[vi, vj])
                T.writes(B[vi, vj:vj + 2])
                T.sblock_attr({"explicit_write_region": [0]})
                B[vi, vj] = A[vi, vj] * T.float32(2.0)
        for i, j in T.grid(16, 16):
            with T.sblock("C"):
                vi, vj = T.axis.remap("SS", [i, j])
                T.reads(B[vi, vj])
                T.writes(C[vi, vj])
                C[vi, vj] = B[vi, vj] + T.float32(1.0)
)");
    QVERIFY2(sch.trace().AsPython().find("gen_new_ranges=lambda vi, vj: [(vi, vi + 1), (vj, vj + 2)])") != std::string::npos,
             sch.trace().AsPython().c_str());
    ExpectReplay(before, sch);
  }

  // Annotating the same read twice keeps one index in the annotation; reads and writes are
  // annotated apart.
  void repeatedAndBoth() {
    ir::IRModule before = ParseModule(kTwoStage);
    Schedule sch(before);
    Apply(sch, "sch.annotate_buffer_access(\"C\", 0, \"read\", lambda vi, vj: (vi, vj))\nsch.annotate_buffer_access(\"C\", 0, \"read\", lambda vi, vj: ((0, 16), vj))\nsch.annotate_buffer_access(\"C\", 0, \"write\", lambda vi, vj: (vi, vj))\n");
    ExpectModule(before, sch.mod(), R"(@I.ir_module
class Module:
    @T.prim_func(s_tir=True)
    def main(A: T.Buffer((16, 16), "float32"), C: T.Buffer((16, 16), "float32")):
        B = T.sblock_alloc_buffer((16, 16))
        for i, j in T.grid(16, 16):
            with T.sblock("B"):
                vi, vj = T.axis.remap("SS", [i, j])
                T.reads(A[vi, vj])
                T.writes(B[vi, vj])
                B[vi, vj] = A[vi, vj] * T.float32(2.0)
        for i, j in T.grid(16, 16):
            with T.sblock("C"):
                vi, vj = T.axis.remap("SS", [i, j])
                T.reads(B[0:16, vj])
                T.writes(C[vi, vj])
                T.sblock_attr({"explicit_read_region": [0], "explicit_write_region": [0]})
                C[vi, vj] = B[vi, vj] + T.float32(1.0)
)");
    QVERIFY2(sch.trace().AsPython().find("gen_new_ranges=lambda vi, vj: [(0, 16), (vj, vj + 1)])") != std::string::npos,
             sch.trace().AsPython().c_str());
    ExpectReplay(before, sch);
  }

  void errors() {
    Schedule sch(ParseModule(kTwoStage));
    SBlockRV b = sch.GetSBlock("B");
    std::string error;
    tir::IndexMap two = ParseRangesLambda("lambda vi, vj: ((vi, vi + 1), vj)", ir::DataType::Int(32), &error);
    QVERIFY2(two.defined(), error.c_str());
    QCOMPARE(FailsCleanly(sch, [&] { AnnotateBufferAccess(sch, b, 1, "read", two); }),
             Rendered("annotate-buffer-access",
                      "The block `B` has 1 read regions, so `buffer_index` is required to be in "
                      "[0, 1). However, the input `buffer_index` is 1, which is out of range"));
    tir::IndexMap one = ParseRangesLambda("lambda vi, vj: [vi]", ir::DataType::Int(32), &error);
    QCOMPARE(FailsCleanly(sch, [&] { AnnotateBufferAccess(sch, b, 0, "write", one); }),
             Rendered("annotate-buffer-access",
                      "The lambda gives 1 ranges, but buffer B has 2 dimensions"));
    tir::IndexMap three = ParseRangesLambda("lambda vi: [vi, vi]", ir::DataType::Int(32), &error);
    QCOMPARE(FailsCleanly(sch, [&] { AnnotateBufferAccess(sch, b, 0, "write", three); }),
             Rendered("annotate-buffer-access",
                      "The lambda takes 1 iterators, but block `B` has 2"));
    QVERIFY(!ParseRangesLambda("lambda vi, vj: vi", ir::DataType::Int(32), &error).defined());
    QCOMPARE(error, std::string("gen_new_ranges must return a list of ranges: (start, stop) pairs "
                                "or points"));
    DiagnosticList diags = ApplyRecipe(
        sch, "sch.annotate_buffer_access(\"B\", 0, \"both\", lambda vi, vj: (vi, vj))\n");
    QCOMPARE(diags.size(), size_t(1));
    QVERIFY2(diags[0].message.find("buf_type must be") != std::string::npos,
             diags[0].message.c_str());
    diags = ApplyRecipe(sch, "sch.annotate_buffer_access(\"B\", 0, \"read\", 3)\n");
    QCOMPARE(diags.size(), size_t(1));
    QVERIFY(sch.trace().AsPython().find("annotate_buffer_access") == std::string::npos);
  }
};

QTEST_APPLESS_MAIN(TestScheduleBufferAccess)
#include "tst_schedule_buffer_access.moc"
