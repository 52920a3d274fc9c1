// rolling_buffer: before/after modules, TVM's errors and the refusals (leaving the schedule as it
// was), interpreter equivalence on random inputs and trace replay.
#include <QTest>

#include "schedule/primitive/primitives.h"
#include "schedule_test_util.h"

using namespace wb;
using namespace wb::schedule;
using namespace wb::schedule::testing;

namespace {

// Two 3-tap sums in a row over 2 channels: B is the intermediate.
const char* k1D = R"(@I.ir_module
class Module:
    @T.prim_func(s_tir=True)
    def main(A: T.Buffer((2, 14), "float32"), C: T.Buffer((2, 10), "float32")):
        B = T.sblock_alloc_buffer((2, 12))
        for c, i, k in T.grid(2, 12, 3):
            with T.sblock("B"):
                vc, vi, vk = T.axis.remap("SSR", [c, i, k])
                T.reads(A[vc, vi + vk])
                T.writes(B[vc, vi])
                with T.init():
                    B[vc, vi] = T.float32(0.0)
                B[vc, vi] = B[vc, vi] + A[vc, vi + vk]
        for c, i, k in T.grid(2, 10, 3):
            with T.sblock("C"):
                vc, vi, vk = T.axis.remap("SSR", [c, i, k])
                T.reads(B[vc, vi + vk])
                T.writes(C[vc, vi])
                with T.init():
                    C[vc, vi] = T.float32(0.0)
                C[vc, vi] = C[vc, vi] + B[vc, vi + vk]
)";

// Two 3x3 max pools in a row.
const char* k2D = R"(@I.ir_module
class Module:
    @T.prim_func(s_tir=True)
    def main(A: T.Buffer((12, 12), "float32"), C: T.Buffer((8, 8), "float32")):
        B = T.sblock_alloc_buffer((10, 10))
        for i, j, ki, kj in T.grid(10, 10, 3, 3):
            with T.sblock("B"):
                vi, vj, vki, vkj = T.axis.remap("SSRR", [i, j, ki, kj])
                T.reads(A[vi + vki, vj + vkj])
                T.writes(B[vi, vj])
                with T.init():
                    B[vi, vj] = T.float32(-1000.0)
                B[vi, vj] = T.max(B[vi, vj], A[vi + vki, vj + vkj])
        for i, j, ki, kj in T.grid(8, 8, 3, 3):
            with T.sblock("C"):
                vi, vj, vki, vkj = T.axis.remap("SSRR", [i, j, ki, kj])
                T.reads(B[vi + vki, vj + vkj])
                T.writes(C[vi, vj])
                with T.init():
                    C[vi, vj] = T.float32(-1000.0)
                C[vi, vj] = T.max(C[vi, vj], B[vi + vki, vj + vkj])
)";

}  // namespace

class TestScheduleRollingBuffer : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  // A 1-D stencil cascade tiled by 5: B keeps the 7 rows a tile needs, the 2 it shares with the
  // previous tile are not recomputed.
  void oneAxis() {
    ir::IRModule before = ParseModule(k1D);
    Schedule sch(before);
    Apply(sch, "_, i, _ = sch.get_loops(\"C\")\nio, _ = sch.split(i, [2, 5])\nsch.compute_at(\"B\", io)\nsch.rolling_buffer(\"B\", 0)\n");
    ExpectModule(before, sch.mod(), R"(@I.ir_module
class Module:
    @T.prim_func(s_tir=True)
    def main(A: T.Buffer((2, 14), "float32"), C: T.Buffer((2, 10), "float32")):
        B = T.sblock_alloc_buffer((2, 7))
        for c, i_0 in T.grid(2, 2):
            for ax0, ax1 in T.grid(7, 3):
                with T.sblock("B"):
                    vc = T.axis.spatial(2, c)
                    vi = T.axis.opaque(12, i_0 * 5 + ax0)
                    vk = T.axis.reduce(3, ax1)
                    T.where(i_0 < 1 or 2 <= ax0)
                    T.reads(A[vc, vi + vk])
                    T.writes(B[vc, vi % 7])
                    with T.init():
                        B[vc, vi % 7] = T.float32(0.0)
                    B[vc, vi % 7] = B[vc, vi % 7] + A[vc, vi + vk]
            for i_1, k in T.grid(5, 3):
                with T.sblock("C"):
                    vc = T.axis.spatial(2, c)
                    vi = T.axis.opaque(10, i_0 * 5 + i_1)
                    vk = T.axis.reduce(3, k)
                    T.reads(B[vc, (vi + vk) % 7])
                    T.writes(C[vc, vi])
                    with T.init():
                        C[vc, vi] = T.float32(0.0)
                    C[vc, vi] = C[vc, vi] + B[vc, (vi + vk) % 7]
)");
    QVERIFY(sch.trace().AsPython().find("sch.rolling_buffer(block=b") != std::string::npos);
    ExpectReplay(before, sch);
  }

  // compute_at at the column tile: B rolls over the 3 rows the row loop needs and skips the
  // columns the previous column tile computed.
  void rowsRollColumnsTiled() {
    ir::IRModule before = ParseModule(k2D);
    Schedule sch(before);
    Apply(sch, "_, j, _, _ = sch.get_loops(\"C\")\njo, _ = sch.split(j, [2, 4])\nsch.compute_at(\"B\", jo)\nsch.rolling_buffer(block=\"B\", write_buffer_index=0)\n");
    ExpectModule(before, sch.mod(), R"(@I.ir_module
class Module:
    @T.prim_func(s_tir=True)
    def main(A: T.Buffer((12, 12), "float32"), C: T.Buffer((8, 8), "float32")):
        B = T.sblock_alloc_buffer((3, 10))
        for i, j_0 in T.grid(8, 2):
            for ax0, ax1, ax2, ax3 in T.grid(3, 6, 3, 3):
                with T.sblock("B"):
                    vi = T.axis.opaque(10, i + ax0)
                    vj = T.axis.spatial(10, j_0 * 4 + ax1)
                    vki, vkj = T.axis.remap("RR", [ax2, ax3])
                    T.where((i < 1 or 2 <= ax0) and (j_0 < 1 or 2 <= ax1))
                    T.reads(A[vi + vki, vj + vkj])
                    T.writes(B[vi % 3, vj])
                    with T.init():
                        B[vi % 3, vj] = T.float32(-1000.0)
                    B[vi % 3, vj] = T.max(B[vi % 3, vj], A[vi + vki, vj + vkj])
            for j_1, ki, kj in T.grid(4, 3, 3):
                with T.sblock("C"):
                    vi = T.axis.opaque(8, i)
                    vj = T.axis.spatial(8, j_0 * 4 + j_1)
                    vki, vkj = T.axis.remap("RR", [ki, kj])
                    T.reads(B[(vi + vki) % 3, vj + vkj])
                    T.writes(C[vi, vj])
                    with T.init():
                        C[vi, vj] = T.float32(-1000.0)
                    C[vi, vj] = T.max(C[vi, vj], B[(vi + vki) % 3, vj + vkj])
)");
    QVERIFY(sch.trace().AsPython().find("sch.rolling_buffer(block=b") != std::string::npos);
    ExpectReplay(before, sch);
  }

  // Tiles over rows and columns: the outer (row) tile rolls.
  void bothAxesTiled() {
    ir::IRModule before = ParseModule(k2D);
    Schedule sch(before);
    Apply(sch, "i, j, _, _ = sch.get_loops(\"C\")\nio, ii = sch.split(i, [2, 4])\njo, ji = sch.split(j, [2, 4])\nsch.reorder(io, jo, ii, ji)\nsch.compute_at(\"B\", jo)\nsch.rolling_buffer(\"B\", 0)\n");
    ExpectModule(before, sch.mod(), R"(@I.ir_module
class Module:
    @T.prim_func(s_tir=True)
    def main(A: T.Buffer((12, 12), "float32"), C: T.Buffer((8, 8), "float32")):
        B = T.sblock_alloc_buffer((6, 10))
        for i_0, j_0 in T.grid(2, 2):
            for ax0, ax1, ax2, ax3 in T.grid(6, 6, 3, 3):
                with T.sblock("B"):
                    vi = T.axis.opaque(10, i_0 * 4 + ax0)
                    vj = T.axis.spatial(10, j_0 * 4 + ax1)
                    vki, vkj = T.axis.remap("RR", [ax2, ax3])
                    T.where((i_0 < 1 or 2 <= ax0) and (j_0 < 1 or 2 <= ax1))
                    T.reads(A[vi + vki, vj + vkj])
                    T.writes(B[vi % 6, vj])
                    with T.init():
                        B[vi % 6, vj] = T.float32(-1000.0)
                    B[vi % 6, vj] = T.max(B[vi % 6, vj], A[vi + vki, vj + vkj])
            for i_1, j_1, ki, kj in T.grid(4, 4, 3, 3):
                with T.sblock("C"):
                    vi = T.axis.opaque(8, i_0 * 4 + i_1)
                    vj = T.axis.spatial(8, j_0 * 4 + j_1)
                    vki, vkj = T.axis.remap("RR", [ki, kj])
                    T.reads(B[(vi + vki) % 6, vj + vkj])
                    T.writes(C[vi, vj])
                    with T.init():
                        C[vi, vj] = T.float32(-1000.0)
                    C[vi, vj] = T.max(C[vi, vj], B[(vi + vki) % 6, vj + vkj])
)");
    QVERIFY(sch.trace().AsPython().find("sch.rolling_buffer(block=b") != std::string::npos);
    ExpectReplay(before, sch);
  }

  void errors() {
    Schedule sch(ParseModule(k1D));
    SBlockRV c = sch.GetSBlock("C");
    QCOMPARE(FailsCleanly(sch, [&] { RollingBuffer(sch, c, 0); }),
             Rendered("rolling-buffer", "The block `C` is an output block: it writes a buffer "
                                        "that its scope does not allocate"));
    SBlockRV b = sch.GetSBlock("B");
    QCOMPARE(FailsCleanly(sch, [&] { RollingBuffer(sch, b, 0); }),
             Rendered("rolling-buffer", "rolling_buffer injection is invalid. The block `B` "
                                        "should be tiled so that the lca of the access location "
                                        "of the target buffer B is a for loop."));
    QCOMPARE(FailsCleanly(sch, [&] { RollingBuffer(sch, b, 1); }),
             Rendered("rolling-buffer", "The block `B` has 1 write regions, so `buffer_index` is "
                                        "required to be in [0, 1). However, the input "
                                        "`buffer_index` is 1, which is out of range"));

    // Tiles that do not overlap (an elementwise consumer): nothing to roll.
    Schedule flat(ParseModule(kTwoStage));
    Apply(flat, "i, _ = sch.get_loops(\"C\")\nio, _ = sch.split(i, [4, 4])\nsch.compute_at(\"B\", io)\n");
    SBlockRV fb = flat.GetSBlock("B");
    QCOMPARE(FailsCleanly(flat, [&] { RollingBuffer(flat, fb, 0); }),
             Rendered("rolling-buffer", "The target buffer B with region [i_0 * 4:(i_0 * 4) + 4, "
                                        "0:16] should have at least one dimension range that "
                                        "matches a rolling pattern such as hh.outer * stride + "
                                        "hh.inner. "));

    // A parallel tile loop (allowed without TVM's checks): tiles would not see the rows the
    // previous one computed.
    Schedule par(ParseModule(k1D), /*enable_check=*/false);
    Apply(par, "_, i, _ = sch.get_loops(\"C\")\nio, _ = sch.split(i, [2, 5])\n"
               "sch.compute_at(\"B\", io)\nsch.parallel(io)\n");
    SBlockRV pb = par.GetSBlock("B");
    QCOMPARE(FailsCleanly(par, [&] { RollingBuffer(par, pb, 0); }),
             Rendered("rolling-buffer", "The tile loop `i_0` must be a serial loop starting at 0: "
                                        "each tile reuses the rows the previous one computed"));
    DiagnosticList diags = ApplyRecipe(par, "sch.rolling_buffer(\"C\", 0)\n");
    QCOMPARE(diags.size(), size_t(1));
    QCOMPARE(diags[0].notes.size(), size_t(1));
  }
};

QTEST_APPLESS_MAIN(TestScheduleRollingBuffer)
#include "tst_schedule_rolling_buffer.moc"
