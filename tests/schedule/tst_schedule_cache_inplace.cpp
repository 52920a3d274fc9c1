// cache_inplace: before/after modules, TVM's errors (leaving the schedule as it was),
// interpreter equivalence on random inputs and trace replay.
#include <QTest>

#include "schedule/primitive/primitives.h"
#include "schedule_test_util.h"

using namespace wb;
using namespace wb::schedule;
using namespace wb::schedule::testing;

namespace {

// An opaque block updating a whole row of X in place, once per i.
const char* kOpaque = R"(@I.ir_module
class Module:
    @T.prim_func(s_tir=True)
    def main(X: T.Buffer((8,), "float32"), A: T.Buffer((4,), "float32")):
        for i in range(4):
            with T.sblock("upd"):
                T.reads(X[0:8], A[i])
                T.writes(X[0:8])
                for j in range(8):
                    X[j] = X[j] * T.float32(0.5) + A[i]
)";

// An elementwise in-place accumulation, after another stage in the same loop body.
const char* kElementwise = R"(@I.ir_module
class Module:
    @T.prim_func(s_tir=True)
    def main(X: T.Buffer((4, 8), "float32"), A: T.Buffer((4, 8), "float32"), Y: T.Buffer((4, 8), "float32")):
        for i in range(4):
            for j in range(8):
                with T.sblock("Y"):
                    vi, vj = T.axis.remap("SS", [i, j])
                    T.reads(A[vi, vj])
                    T.writes(Y[vi, vj])
                    Y[vi, vj] = A[vi, vj] * T.float32(3.0)
            for j in range(8):
                with T.sblock("X"):
                    vi, vj = T.axis.remap("SS", [i, j])
                    T.reads(X[vi, vj], A[vi, vj])
                    T.writes(X[vi, vj])
                    X[vi, vj] = X[vi, vj] + A[vi, vj]
)";

// Both stages in one loop body: the in-place block comes second.
const char* kSeq = R"(@I.ir_module
class Module:
    @T.prim_func(s_tir=True)
    def main(X: T.Buffer((4, 8), "float32"), A: T.Buffer((4, 8), "float32"), Y: T.Buffer((4, 8), "float32")):
        for i, j in T.grid(4, 8):
            with T.sblock("Y"):
                vi, vj = T.axis.remap("SS", [i, j])
                T.reads(A[vi, vj])
                T.writes(Y[vi, vj])
                Y[vi, vj] = A[vi, vj] * T.float32(3.0)
            with T.sblock("X"):
                vi, vj = T.axis.remap("SS", [i, j])
                T.reads(X[vi, vj], A[vi, vj])
                T.writes(X[vi, vj])
                X[vi, vj] = X[vi, vj] + A[vi, vj]
)";

// A copy stage of one element of `to` from `from` at `indent` under loops `ax0, ax1` of extent 1.
std::string Copy(const std::string& name, const std::string& from, const std::string& to,
                 const std::string& indent) {
  return indent + "for ax0, ax1 in T.grid(1, 1):\n" + indent + "    with T.sblock(\"" + name +
         "\"):\n" + indent + "        v0 = T.axis.spatial(4, i + ax0)\n" + indent +
         "        v1 = T.axis.spatial(8, j + ax1)\n" + indent + "        T.reads(" + from +
         "[v0, v1])\n" + indent + "        T.writes(" + to + "[v0, v1])\n" + indent + "        " +
         to + "[v0, v1] = " + from + "[v0, v1]\n";
}

}  // namespace

class TestScheduleCacheInplace : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  // An opaque block (no iterators) updating a row: the copies span its regions, inside loop i.
  void opaqueBlock() {
    ir::IRModule before = ParseModule(kOpaque);
    Schedule sch(before);
    std::vector<SBlockRV> stages = CacheInplace(sch, sch.GetSBlock("upd"), 0, "local");
    QCOMPARE(sch.Get(stages[0])->name_hint, std::string("X_local"));
    QCOMPARE(sch.Get(stages[1])->name_hint, std::string("X_local_1"));
    ExpectModule(before, sch.mod(), R"(@I.ir_module
class Module:
    @T.prim_func(s_tir=True)
    def main(X: T.Buffer((8,), "float32"), A: T.Buffer((4,), "float32")):
        X_local = T.sblock_alloc_buffer((8,), scope="local")
        for i in range(4):
            for ax0 in range(8):
                with T.sblock("X_local"):
                    v0 = T.axis.spatial(8, ax0)
                    T.reads(X[v0])
                    T.writes(X_local[v0])
                    X_local[v0] = X[v0]
            with T.sblock("upd"):
                T.reads(X_local[0:8], A[i])
                T.writes(X_local[0:8])
                for j in range(8):
                    X_local[j] = X_local[j] * T.float32(0.5) + A[i]
            for ax0 in range(8):
                with T.sblock("X_local_1"):
                    v0 = T.axis.spatial(8, ax0)
                    T.reads(X_local[v0])
                    T.writes(X[v0])
                    X[v0] = X_local[v0]
)");
    QVERIFY(sch.trace().AsPython().find("b1, b2 = sch.cache_inplace(block=b0, read_buffer_index=0, "
                                        "storage_scope=\"local\")") != std::string::npos);
    ExpectReplay(before, sch);
  }

  // A block with iterators: its regions through its bindings, one element per iteration, around
  // the block in the innermost loop.
  void elementwise() {
    ir::IRModule before = ParseModule(kElementwise);
    Schedule sch(before);
    Apply(sch, "a, b = sch.cache_inplace(\"X\", \"X\", \"local\")\n");
    ExpectModule(before, sch.mod(), R"(@I.ir_module
class Module:
    @T.prim_func(s_tir=True)
    def main(X: T.Buffer((4, 8), "float32"), A: T.Buffer((4, 8), "float32"), Y: T.Buffer((4, 8), "float32")):
        X_local = T.sblock_alloc_buffer((4, 8), scope="local")
        for i in range(4):
            for j in range(8):
                with T.sblock("Y"):
                    vi, vj = T.axis.remap("SS", [i, j])
                    T.reads(A[vi, vj])
                    T.writes(Y[vi, vj])
                    Y[vi, vj] = A[vi, vj] * T.float32(3.0)
            for j in range(8):
)" + Copy("X_local", "X", "X_local", "                ") + R"(                with T.sblock("X"):
                    vi, vj = T.axis.remap("SS", [i, j])
                    T.reads(X_local[vi, vj], A[vi, vj])
                    T.writes(X_local[vi, vj])
                    X_local[vi, vj] = X_local[vi, vj] + A[vi, vj]
)" + Copy("X_local_1", "X_local", "X", "                "));
    ExpectReplay(before, sch);
  }

  // The block is the second statement of the loop body: the stages go around it there. Applied
  // twice, the second caches the first cache.
  void inSequenceTwice() {
    ir::IRModule before = ParseModule(kSeq);
    Schedule sch(before);
    Apply(sch, "a, b = sch.cache_inplace(\"X\", 0, \"shared\")\n"
               "c, d = sch.cache_inplace(\"X\", 0, \"local\")\n");
    ExpectModule(before, sch.mod(), R"(@I.ir_module
class Module:
    @T.prim_func(s_tir=True)
    def main(X: T.Buffer((4, 8), "float32"), A: T.Buffer((4, 8), "float32"), Y: T.Buffer((4, 8), "float32")):
        X_shared = T.sblock_alloc_buffer((4, 8), scope="shared")
        X_shared_local = T.sblock_alloc_buffer((4, 8), scope="local")
        for i, j in T.grid(4, 8):
            with T.sblock("Y"):
                vi, vj = T.axis.remap("SS", [i, j])
                T.reads(A[vi, vj])
                T.writes(Y[vi, vj])
                Y[vi, vj] = A[vi, vj] * T.float32(3.0)
)" + Copy("X_shared", "X", "X_shared", "            ") +
                                        Copy("X_shared_local", "X_shared", "X_shared_local",
                                             "            ") +
                                        R"(            with T.sblock("X"):
                vi, vj = T.axis.remap("SS", [i, j])
                T.reads(X_shared_local[vi, vj], A[vi, vj])
                T.writes(X_shared_local[vi, vj])
                X_shared_local[vi, vj] = X_shared_local[vi, vj] + A[vi, vj]
)" + Copy("X_shared_local_1", "X_shared_local", "X_shared", "            ") +
                                        Copy("X_shared_1", "X_shared", "X", "            "));
    ExpectReplay(before, sch);
  }

  void errors() {
    Schedule sch(ParseModule(kElementwise));
    SBlockRV y = sch.GetSBlock("Y");
    SBlockRV x = sch.GetSBlock("X");
    QCOMPARE(FailsCleanly(sch, [&] { CacheInplace(sch, y, 0, "local"); }),
             Rendered("cache-buffer",
                      "The target block `Y` does not both read & write target buffer A."));
    QCOMPARE(FailsCleanly(sch, [&] { CacheInplace(sch, x, 1, "local"); }),
             Rendered("cache-buffer",
                      "The target block `X` does not both read & write target buffer A."));
    QCOMPARE(FailsCleanly(sch, [&] { CacheInplace(sch, x, 2, "local"); }),
             Rendered("cache-buffer", "The block `X` has 2 read regions, so `buffer_index` is "
                                      "required to be in [0, 2). However, the input "
                                      "`buffer_index` is 2, which is out of range"));
    QCOMPARE(FailsCleanly(sch, [&] { CacheInplace(sch, x, 0, "test_scope"); }),
             Rendered("cache-buffer", "The input storage scope \"test_scope\" is invalid."));
    DiagnosticList diags = ApplyRecipe(sch, "sch.cache_inplace(\"Y\", 0, \"local\")\n");
    QCOMPARE(diags.size(), size_t(1));
    QCOMPARE(diags[0].notes.size(), size_t(1));
  }
};

QTEST_APPLESS_MAIN(TestScheduleCacheInplace)
#include "tst_schedule_cache_inplace.moc"
