// read_at / write_at: before/after modules, TVM's errors and the refusals (leaving the schedule as
// it was), interpreter equivalence on random inputs and trace replay.
#include <QTest>

#include "schedule/primitive/primitives.h"
#include "schedule_test_util.h"

using namespace wb;
using namespace wb::schedule;
using namespace wb::schedule::testing;

namespace {

// A matmul tiled 4x4 over i and j and 4 over k.
const char* kTiled = R"(@I.ir_module
class Module:
    @T.prim_func(s_tir=True)
    def main(A: T.Buffer((8, 8), "float32"), B: T.Buffer((8, 8), "float32"), C: T.Buffer((8, 8), "float32")):
        for i0, j0, k0 in T.grid(2, 2, 2):
            for k1, i1, j1 in T.grid(4, 4, 4):
                with T.sblock("C"):
                    vi = T.axis.spatial(8, i0 * 4 + i1)
                    vj = T.axis.spatial(8, j0 * 4 + j1)
                    vk = T.axis.reduce(8, k0 * 4 + k1)
                    T.reads(C[vi, vj], A[vi, vk], B[vk, vj])
                    T.writes(C[vi, vj])
                    with T.init():
                        C[vi, vj] = T.float32(0.0)
                    C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj]
)";

// Threads over the rows of a tile: a shared copy at k0 covers all of them.
const char* kThreads = R"(@I.ir_module
class Module:
    @T.prim_func(s_tir=True)
    def main(A: T.Buffer((8, 8), "float32"), B: T.Buffer((8, 8), "float32"), C: T.Buffer((8, 8), "float32")):
        for bx in T.thread_binding(2, thread="blockIdx.x"):
            for tx in T.thread_binding(4, thread="threadIdx.x"):
                for k0, k1, j in T.grid(2, 4, 8):
                    with T.sblock("C"):
                        vi = T.axis.spatial(8, bx * 4 + tx)
                        vj = T.axis.spatial(8, j)
                        vk = T.axis.reduce(8, k0 * 4 + k1)
                        T.reads(C[vi, vj], A[vi, vk], B[vk, vj])
                        T.writes(C[vi, vj])
                        with T.init():
                            C[vi, vj] = T.float32(0.0)
                        C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj]
)";

// Two statements of a row loop read the row of A, reversed for the second.
const char* kTwoReaders = R"(@I.ir_module
class Module:
    @T.prim_func(s_tir=True)
    def main(A: T.Buffer((4, 8), "float32"), Y: T.Buffer((4, 8), "float32"), Z: T.Buffer((4, 8), "float32")):
        for i in range(4):
            for j in range(8):
                with T.sblock("Y"):
                    vi, vj = T.axis.remap("SS", [i, j])
                    Y[vi, vj] = A[vi, vj] * T.float32(2.0)
            for j in range(8):
                with T.sblock("Z"):
                    vi, vj = T.axis.remap("SS", [i, j])
                    Z[vi, vj] = A[vi, 7 - vj] + Y[vi, vj]
)";

}  // namespace

class TestScheduleReadWriteAt : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  // The shared copy of A's tile at k0 covers the rows of all threads of threadIdx.x (relaxed),
  // not those of blockIdx.x (a block's threads share it; blocks do not).
  void threads() {
    ir::IRModule before = ParseModule(kThreads);
    Schedule sch(before);
    Apply(sch, "l = sch.get_loops(\"C\")\nb = sch.read_at(l[2], \"C\", 1, \"shared\")\n");
    ExpectModule(before, sch.mod(), R"(@I.ir_module
class Module:
    @T.prim_func(s_tir=True)
    def main(A: T.Buffer((8, 8), "float32"), B: T.Buffer((8, 8), "float32"), C: T.Buffer((8, 8), "float32")):
        A_shared = T.sblock_alloc_buffer((8, 8), scope="shared")
        for bx in T.thread_binding(2, thread="blockIdx.x"):
            for tx in T.thread_binding(4, thread="threadIdx.x"):
                for k0 in range(2):
                    with T.sblock("A_shared"):
                        v0, v1 = T.axis.remap("SS", [bx, k0])
                        T.reads(A[v0 * 4:v0 * 4 + 4, v1 * 4:v1 * 4 + 4])
                        T.writes(A_shared[v0 * 4:v0 * 4 + 4, v1 * 4:v1 * 4 + 4])
                        T.sblock_attr({"auto_copy": True})
                        for ax0, ax1 in T.grid(4, 4):
                            A_shared[v0 * 4 + ax0, v1 * 4 + ax1] = A[v0 * 4 + ax0, v1 * 4 + ax1]
                    for k1, j in T.grid(4, 8):
                        with T.sblock("C"):
                            vi = T.axis.spatial(8, bx * 4 + tx)
                            vj = T.axis.spatial(8, j)
                            vk = T.axis.reduce(8, k0 * 4 + k1)
                            T.reads(C[vi, vj], A_shared[vi, vk], B[vk, vj])
                            T.writes(C[vi, vj])
                            with T.init():
                                C[vi, vj] = T.float32(0.0)
                            C[vi, vj] = C[vi, vj] + A_shared[vi, vk] * B[vk, vj]
)");
    ExpectReplay(before, sch);
  }

  // Two statements of the row loop read A: the copy goes before the first, both read it.
  void twoReaders() {
    ir::IRModule before = ParseModule(kTwoReaders);
    Schedule sch(before);
    Apply(sch, "l = sch.get_loops(\"Y\")\nsch.read_at(loop=l[0], block=\"Y\", read_buffer_index=0, storage_scope=\"local\")\n");
    ExpectModule(before, sch.mod(), R"(@I.ir_module
class Module:
    @T.prim_func(s_tir=True)
    def main(A: T.Buffer((4, 8), "float32"), Y: T.Buffer((4, 8), "float32"), Z: T.Buffer((4, 8), "float32")):
        A_local = T.sblock_alloc_buffer((4, 8), scope="local")
        for i in range(4):
            with T.sblock("A_local"):
                v0 = T.axis.spatial(4, i)
                T.reads(A[v0, 0:8])
                T.writes(A_local[v0, 0:8])
                T.sblock_attr({"auto_copy": True})
                for ax0, ax1 in T.grid(1, 8):
                    A_local[v0 + ax0, ax1] = A[v0 + ax0, ax1]
            for j in range(8):
                with T.sblock("Y"):
                    vi, vj = T.axis.remap("SS", [i, j])
                    T.reads(A_local[vi, vj])
                    T.writes(Y[vi, vj])
                    Y[vi, vj] = A_local[vi, vj] * T.float32(2.0)
            for j in range(8):
                with T.sblock("Z"):
                    vi, vj = T.axis.remap("SS", [i, j])
                    T.reads(A_local[vi, 7 - vj], Y[vi, vj])
                    T.writes(Z[vi, vj])
                    Z[vi, vj] = A_local[vi, 7 - vj] + Y[vi, vj]
)");
    ExpectReplay(before, sch);
  }

  // TVM's GPU matmul pattern on a tiled CPU nest: A and B tiles per k0, and C's tile written at
  // j0 (the reduction's init writes it first, so the block may read the new buffer).
  void sharedInputsLocalOutput() {
    ir::IRModule before = ParseModule(kTiled);
    Schedule sch(before);
    Apply(sch, "l = sch.get_loops(\"C\")\nsch.read_at(l[2], \"C\", 1, \"shared\")\nsch.read_at(l[2], \"C\", 2, \"shared\")\nsch.write_at(l[1], \"C\", 0, \"local\")\n");
    ExpectModule(before, sch.mod(), R"(@I.ir_module
class Module:
    @T.prim_func(s_tir=True)
    def main(A: T.Buffer((8, 8), "float32"), B: T.Buffer((8, 8), "float32"), C: T.Buffer((8, 8), "float32")):
        A_shared = T.sblock_alloc_buffer((8, 8), scope="shared")
        B_shared = T.sblock_alloc_buffer((8, 8), scope="shared")
        C_local = T.sblock_alloc_buffer((8, 8), scope="local")
        for i0, j0 in T.grid(2, 2):
            for k0 in range(2):
                with T.sblock("A_shared"):
                    v0, v1 = T.axis.remap("SS", [i0, k0])
                    T.reads(A[v0 * 4:v0 * 4 + 4, v1 * 4:v1 * 4 + 4])
                    T.writes(A_shared[v0 * 4:v0 * 4 + 4, v1 * 4:v1 * 4 + 4])
                    T.sblock_attr({"auto_copy": True})
                    for ax0, ax1 in T.grid(4, 4):
                        A_shared[v0 * 4 + ax0, v1 * 4 + ax1] = A[v0 * 4 + ax0, v1 * 4 + ax1]
                with T.sblock("B_shared"):
                    v0, v1 = T.axis.remap("SS", [k0, j0])
                    T.reads(B[v0 * 4:v0 * 4 + 4, v1 * 4:v1 * 4 + 4])
                    T.writes(B_shared[v0 * 4:v0 * 4 + 4, v1 * 4:v1 * 4 + 4])
                    T.sblock_attr({"auto_copy": True})
                    for ax0, ax1 in T.grid(4, 4):
                        B_shared[v0 * 4 + ax0, v1 * 4 + ax1] = B[v0 * 4 + ax0, v1 * 4 + ax1]
                for k1, i1, j1 in T.grid(4, 4, 4):
                    with T.sblock("C"):
                        vi = T.axis.spatial(8, i0 * 4 + i1)
                        vj = T.axis.spatial(8, j0 * 4 + j1)
                        vk = T.axis.reduce(8, k0 * 4 + k1)
                        T.reads(C_local[vi, vj], A_shared[vi, vk], B_shared[vk, vj])
                        T.writes(C_local[vi, vj])
                        with T.init():
                            C_local[vi, vj] = T.float32(0.0)
                        C_local[vi, vj] = C_local[vi, vj] + A_shared[vi, vk] * B_shared[vk, vj]
            with T.sblock("C_local"):
                v0, v1 = T.axis.remap("SS", [i0, j0])
                T.reads(C_local[v0 * 4:v0 * 4 + 4, v1 * 4:v1 * 4 + 4])
                T.writes(C[v0 * 4:v0 * 4 + 4, v1 * 4:v1 * 4 + 4])
                T.sblock_attr({"auto_copy": True})
                for ax0, ax1 in T.grid(4, 4):
                    C[v0 * 4 + ax0, v1 * 4 + ax1] = C_local[v0 * 4 + ax0, v1 * 4 + ax1]
)");
    ExpectReplay(before, sch);
  }

  void traceAndHandle() {
    ir::IRModule before = ParseModule(kTiled);
    Schedule sch(before);
    SBlockRV c = sch.GetSBlock("C");
    std::vector<LoopRV> l = sch.GetLoops(c);
    SBlockRV copy = WriteAt(sch, l[1], c, 0, "local");
    QCOMPARE(sch.Get(copy)->name_hint, std::string("C_local"));
    QVERIFY(sch.trace().AsPython().find("b7 = sch.write_at(loop=l2, block=b0, write_buffer_index=0, "
                                        "storage_scope=\"local\")") != std::string::npos);
    ExpectSameMeaning(before, sch.mod());
    ExpectReplay(before, sch);
  }

  void errors() {
    Schedule sch(ParseModule(kTwoReaders));
    SBlockRV y = sch.GetSBlock("Y");
    SBlockRV z = sch.GetSBlock("Z");
    std::vector<LoopRV> ly = sch.GetLoops(y);
    std::vector<LoopRV> lz = sch.GetLoops(z);
    QCOMPARE(FailsCleanly(sch, [&] { ReadAt(sch, ly[1], z, 0, "local"); }),
             Rendered("read-at", "The loop `j` is not an ancestor of block `Z`"));
    QCOMPARE(FailsCleanly(sch, [&] { ReadAt(sch, ly[0], y, 3, "local"); }),
             Rendered("read-at", "The block `Y` has 1 read regions, so `buffer_index` is required "
                                 "to be in [0, 1). However, the input `buffer_index` is 3, which "
                                 "is out of range"));
    QCOMPARE(FailsCleanly(sch, [&] { ReadAt(sch, ly[0], y, 0, "test_scope"); }),
             Rendered("read-at", "The input storage scope \"test_scope\" is invalid."));
    // Y is written by the first statement of loop i and read by the second: a copy of Y before
    // the second is fine for read_at, but write_at of Y at i must not redirect Z's read.
    QCOMPARE(FailsCleanly(sch, [&] { WriteAt(sch, lz[0], y, 0, "local"); }),
             Rendered("write-at", "The buffer Y is read in the body of loop `i` after its last "
                                  "write there, so a copy after the last write would come too "
                                  "late"));

    // An in-place update: with write_at it would read the new buffer before anything is written
    // to it; with read_at it would write the copy, never X.
    Schedule upd(ParseModule(R"(@I.ir_module
class Module:
    @T.prim_func(s_tir=True)
    def main(X: T.Buffer((4, 8), "float32")):
        for i, j in T.grid(4, 8):
            with T.sblock("X"):
                vi, vj = T.axis.remap("SS", [i, j])
                T.reads(X[vi, vj])
                T.writes(X[vi, vj])
                X[vi, vj] = X[vi, vj] + T.float32(1.0)
)"));
    SBlockRV ux = upd.GetSBlock("X");
    std::vector<LoopRV> lx = upd.GetLoops(ux);
    QCOMPARE(FailsCleanly(upd, [&] { WriteAt(upd, lx[0], ux, 0, "local"); }),
             Rendered("write-at", "The block `X` reads buffer X without writing it first (in an "
                                  "init), so it would read the new buffer before anything is "
                                  "written to it"));
    QCOMPARE(FailsCleanly(upd, [&] { ReadAt(upd, lx[0], ux, 0, "local"); }),
             Rendered("read-at", "The buffer X is written in the body of loop `i` after it is "
                                 "first read there, so a copy before the first read would not "
                                 "see the write"));
    DiagnosticList diags = ApplyRecipe(upd, "sch.write_at(sch.get_loops(\"X\")[0], \"X\", 0, \"local\")\n");
    QCOMPARE(diags.size(), size_t(1));
    QCOMPARE(diags[0].notes.size(), size_t(1));
  }
};

QTEST_APPLESS_MAIN(TestScheduleReadWriteAt)
#include "tst_schedule_read_write_at.moc"
