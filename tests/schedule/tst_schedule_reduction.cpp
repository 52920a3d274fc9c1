// Tests of decompose_reduction and rfactor: each result is compared structurally with the
// TVMScript we expect, run against the original on seeded random inputs through the interpreter,
// and replayed from its trace; failing calls name the block/loop and leave the schedule alone.

#include <QTest>
#include <string>

#include "schedule_test_util.h"

using namespace wb;
using namespace wb::schedule;
using namespace wb::schedule::testing;

namespace {

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

const char* kMatmulDecomposedAtI = R"(@I.ir_module
class Module:
    @T.prim_func(s_tir=True)
    def main(A: T.Buffer((16, 16), "float32"), B: T.Buffer((16, 16), "float32"), C: T.Buffer((16, 16), "float32")):
        for i_init, j_init in T.grid(16, 16):
            with T.sblock("C_init"):
                vi, vj = T.axis.remap("SS", [i_init, j_init])
                T.reads()
                T.writes(C[vi, vj])
                C[vi, vj] = T.float32(0.0)
        for i, j, k in T.grid(16, 16, 16):
            with T.sblock("C_update"):
                vi, vj, vk = T.axis.remap("SSR", [i, j, k])
                T.reads(C[vi, vj], A[vi, vk], B[vk, vj])
                T.writes(C[vi, vj])
                C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj]
)";

const char* kMatmulDecomposedAtK = R"(@I.ir_module
class Module:
    @T.prim_func(s_tir=True)
    def main(A: T.Buffer((16, 16), "float32"), B: T.Buffer((16, 16), "float32"), C: T.Buffer((16, 16), "float32")):
        for i, j in T.grid(16, 16):
            with T.sblock("C_init"):
                vi, vj = T.axis.remap("SS", [i, j])
                T.reads()
                T.writes(C[vi, vj])
                C[vi, vj] = T.float32(0.0)
            for k in range(16):
                with T.sblock("C_update"):
                    vi, vj, vk = T.axis.remap("SSR", [i, j, k])
                    T.reads(C[vi, vj], A[vi, vk], B[vk, vj])
                    T.writes(C[vi, vj])
                    C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj]
)";

// A row sum whose reduction loop was split: the init keeps only the loops its bindings use.
const char* kRowSum = R"(@I.ir_module
class Module:
    @T.prim_func(s_tir=True)
    def main(A: T.Buffer((8, 32), "float32"), B: T.Buffer((8,), "float32")):
        for i, k_0, k_1 in T.grid(8, 4, 8):
            with T.sblock("B"):
                vi = T.axis.spatial(8, i)
                vk = T.axis.reduce(32, k_0 * 8 + k_1)
                T.reads(A[vi, vk])
                T.writes(B[vi])
                with T.init():
                    B[vi] = T.float32(0.0)
                B[vi] = B[vi] + A[vi, vk]
)";

const char* kRowSumDecomposedAtK0 = R"(@I.ir_module
class Module:
    @T.prim_func(s_tir=True)
    def main(A: T.Buffer((8, 32), "float32"), B: T.Buffer((8,), "float32")):
        for i in range(8):
            with T.sblock("B_init"):
                vi = T.axis.spatial(8, i)
                T.reads()
                T.writes(B[vi])
                B[vi] = T.float32(0.0)
            for k_0, k_1 in T.grid(4, 8):
                with T.sblock("B_update"):
                    vi = T.axis.spatial(8, i)
                    vk = T.axis.reduce(32, k_0 * 8 + k_1)
                    T.reads(B[vi], A[vi, vk])
                    T.writes(B[vi])
                    B[vi] = B[vi] + A[vi, vk]
)";

// Two nests: a copy, then the row sum reading it.
const char* kCopyThenSum = R"(@I.ir_module
class Module:
    @T.prim_func(s_tir=True)
    def main(A: T.Buffer((8, 32), "float32"), B: T.Buffer((8,), "float32")):
        X = T.sblock_alloc_buffer((8, 32))
        for x, y in T.grid(8, 32):
            with T.sblock("X"):
                vx, vy = T.axis.remap("SS", [x, y])
                T.reads(A[vx, vy])
                T.writes(X[vx, vy])
                X[vx, vy] = A[vx, vy] * T.float32(2.0)
        for i, k in T.grid(8, 32):
            with T.sblock("B"):
                vi, vk = T.axis.remap("SR", [i, k])
                T.reads(X[vi, vk])
                T.writes(B[vi])
                with T.init():
                    B[vi] = T.float32(0.0)
                B[vi] = B[vi] + X[vi, vk]
)";

const char* kMatmulKOuter = R"(@I.ir_module
class Module:
    @T.prim_func(s_tir=True)
    def main(A: T.Buffer((16, 16), "float32"), B: T.Buffer((16, 16), "float32"), C: T.Buffer((16, 16), "float32")):
        for k, i, j in T.grid(16, 16, 16):
            with T.sblock("C"):
                vi, vj, vk = T.axis.remap("SSR", [i, j, k])
                T.reads(A[vi, vk], B[vk, vj])
                T.writes(C[vi, vj])
                with T.init():
                    C[vi, vj] = T.float32(0.0)
                C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj]
)";

// --- rfactor -----------------------------------------------------------------------------------

const char* kIntRowSum = R"(@I.ir_module
class Module:
    @T.prim_func(s_tir=True)
    def main(A: T.Buffer((8, 32), "int32"), B: T.Buffer((8,), "int32")):
        for i, k_0, k_1 in T.grid(8, 4, 8):
            with T.sblock("B"):
                vi = T.axis.spatial(8, i)
                vk = T.axis.reduce(32, k_0 * 8 + k_1)
                T.reads(A[vi, vk])
                T.writes(B[vi])
                with T.init():
                    B[vi] = 0
                B[vi] = B[vi] + A[vi, vk]
)";

const char* kIntRowSumRFactor = R"(@I.ir_module
class Module:
    @T.prim_func(s_tir=True)
    def main(A: T.Buffer((8, 32), "int32"), B: T.Buffer((8,), "int32")):
        B_rf = T.sblock_alloc_buffer((8, 8), "int32")
        for i, k_0, k_1 in T.grid(8, 4, 8):
            with T.sblock("B_rf"):
                vk_1, vi, vk_0 = T.axis.remap("SSR", [k_1, i, k_0])
                T.reads(A[vi, vk_0 * 8 + vk_1])
                T.writes(B_rf[vk_1, vi])
                with T.init():
                    B_rf[vk_1, vi] = 0
                B_rf[vk_1, vi] = B_rf[vk_1, vi] + A[vi, vk_0 * 8 + vk_1]
        for i, k_1 in T.grid(8, 8):
            with T.sblock("B"):
                vk_1, vi = T.axis.remap("RS", [k_1, i])
                T.reads(B_rf[vk_1, vi])
                T.writes(B[vi])
                with T.init():
                    B[vi] = 0
                B[vi] = B[vi] + B_rf[vk_1, vi]
)";

const char* kIntRowSumRFactorAxis1 = R"(@I.ir_module
class Module:
    @T.prim_func(s_tir=True)
    def main(A: T.Buffer((8, 32), "int32"), B: T.Buffer((8,), "int32")):
        B_rf = T.sblock_alloc_buffer((8, 4), "int32")
        for i, k_0, k_1 in T.grid(8, 4, 8):
            with T.sblock("B_rf"):
                vk_0, vi, vk_1 = T.axis.remap("SSR", [k_0, i, k_1])
                T.reads(A[vi, vk_0 * 8 + vk_1])
                T.writes(B_rf[vi, vk_0])
                with T.init():
                    B_rf[vi, vk_0] = 0
                B_rf[vi, vk_0] = B_rf[vi, vk_0] + A[vi, vk_0 * 8 + vk_1]
        for i, k_0 in T.grid(8, 4):
            with T.sblock("B"):
                vk_0, vi = T.axis.remap("RS", [k_0, i])
                T.reads(B_rf[vi, vk_0])
                T.writes(B[vi])
                with T.init():
                    B[vi] = 0
                B[vi] = B[vi] + B_rf[vi, vk_0]
)";

const char* kRowMax = R"(@I.ir_module
class Module:
    @T.prim_func(s_tir=True)
    def main(A: T.Buffer((8, 32), "int32"), B: T.Buffer((8,), "int32")):
        for i, k in T.grid(8, 32):
            with T.sblock("B"):
                vi, vk = T.axis.remap("SR", [i, k])
                T.reads(A[vi, vk])
                T.writes(B[vi])
                with T.init():
                    B[vi] = T.min_value("int32")
                B[vi] = T.max(B[vi], A[vi, vk])
)";

// The whole reduction loop factored: the rfactor block has nothing left to reduce.
const char* kRowMaxRFactor = R"(@I.ir_module
class Module:
    @T.prim_func(s_tir=True)
    def main(A: T.Buffer((8, 32), "int32"), B: T.Buffer((8,), "int32")):
        B_rf = T.sblock_alloc_buffer((32, 8), "int32")
        for i, k in T.grid(8, 32):
            with T.sblock("B_rf"):
                vk, vi = T.axis.remap("SS", [k, i])
                T.reads(A[vi, vk])
                T.writes(B_rf[vk, vi])
                B_rf[vk, vi] = A[vi, vk]
        for i, k in T.grid(8, 32):
            with T.sblock("B"):
                vk, vi = T.axis.remap("RS", [k, i])
                T.reads(B_rf[vk, vi])
                T.writes(B[vi])
                with T.init():
                    B[vi] = T.min_value("int32")
                B[vi] = T.max(B[vi], B_rf[vk, vi])
)";

const char* kRowDifference = R"(@I.ir_module
class Module:
    @T.prim_func(s_tir=True)
    def main(A: T.Buffer((8, 32), "int32"), B: T.Buffer((8,), "int32")):
        for i, k in T.grid(8, 32):
            with T.sblock("B"):
                vi, vk = T.axis.remap("SR", [i, k])
                T.reads(A[vi, vk])
                T.writes(B[vi])
                with T.init():
                    B[vi] = 0
                B[vi] = B[vi] - A[vi, vk]
)";

}  // namespace

class TestScheduleReduction : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  void decomposeAtOutermostLoop() {
    ir::IRModule before = ParseModule(kMatmul);
    Schedule sch(before);
    SBlockRV c = sch.GetSBlock("C");
    std::vector<LoopRV> loops = sch.GetLoops(c);
    SBlockRV init = sch.DecomposeReduction(c, loops[0]);
    ExpectModule(before, sch.mod(), kMatmulDecomposedAtI);
    QCOMPARE(sch.Get(init)->name_hint, std::string("C_init"));
    // The handle of the reduction block follows it under its new name.
    QCOMPARE(sch.Get(c)->name_hint, std::string("C_update"));
    QCOMPARE(sch.trace().AsPython(),
             std::string("b0 = sch.get_sblock(name=\"C\", func_name=\"main\")\n"
                         "l1, l2, l3 = sch.get_loops(block=b0)\n"
                         "b4 = sch.decompose_reduction(block=b0, loop=l1)\n"));
    ExpectReplay(before, sch);
  }

  void decomposeAtInnermostLoop() {
    ir::IRModule before = ParseModule(kMatmul);
    Schedule sch(before);
    SBlockRV c = sch.GetSBlock("C");
    sch.DecomposeReduction(c, sch.GetLoops(c)[2]);
    ExpectModule(before, sch.mod(), kMatmulDecomposedAtK);
    ExpectReplay(before, sch);
  }

  void decomposeKeepsOnlyUsedLoops() {
    ir::IRModule before = ParseModule(kRowSum);
    Schedule sch(before);
    SBlockRV b = sch.GetSBlock("B");
    sch.DecomposeReduction(b, sch.GetLoops(b)[1]);
    ExpectModule(before, sch.mod(), kRowSumDecomposedAtK0);
    ExpectReplay(before, sch);
  }

  void decomposeErrors() {
    {
      ir::IRModule before = ParseModule(kCopyThenSum);
      Schedule sch(before);
      SBlockRV b = sch.GetSBlock("B");
      LoopRV x = sch.GetLoops(sch.GetSBlock("X"))[0];
      QCOMPARE(FailsCleanly(sch, [&] { sch.DecomposeReduction(b, x); }),
               Rendered("decompose-reduction",
                        "The input loop `x` of decompose_reduction is required to be an ancestor "
                        "of block `B`."));
      // The copy block has no init: not a reduction block (condition #1).
      SBlockRV copy = sch.GetSBlock("X");
      std::string msg = FailsCleanly(sch, [&] { sch.DecomposeReduction(copy, x); });
      QVERIFY2(msg.find("`X`") != std::string::npos &&
                   msg.find("not a reduction block") != std::string::npos,
               msg.c_str());
    }
    {
      // k above i feeds the reduction iter: the init cannot go before i.
      ir::IRModule before = ParseModule(kMatmulKOuter);
      Schedule sch(before);
      SBlockRV c = sch.GetSBlock("C");
      LoopRV i = sch.GetLoops(c)[1];
      QCOMPARE(FailsCleanly(sch, [&] { sch.DecomposeReduction(c, i); }),
               Rendered("decompose-reduction",
                        "decompose_reduction expect the loop `i` to be higher than all the loops "
                        "related to reduce block var of block `C`"));
    }
  }

  void rfactorInnerLoop() {
    ir::IRModule before = ParseModule(kIntRowSum);
    Schedule sch(before);
    SBlockRV b = sch.GetSBlock("B");
    std::vector<LoopRV> loops = sch.GetLoops(b);
    SBlockRV rf = sch.RFactor(loops[2], 0);
    ExpectModule(before, sch.mod(), kIntRowSumRFactor);
    QCOMPARE(sch.Get(rf)->name_hint, std::string("B_rf"));
    QCOMPARE(sch.Get(b)->name_hint, std::string("B"));
    QVERIFY(sch.trace().AsPython().find("b4 = sch.rfactor(loop=l3, factor_axis=0)\n") !=
            std::string::npos);
    ExpectReplay(before, sch);
  }

  void rfactorOuterLoopAtLastAxis() {
    ir::IRModule before = ParseModule(kIntRowSum);
    Schedule sch(before);
    SBlockRV b = sch.GetSBlock("B");
    sch.RFactor(sch.GetLoops(b)[1], -1);
    ExpectModule(before, sch.mod(), kIntRowSumRFactorAxis1);
    ExpectReplay(before, sch);
  }

  void rfactorWholeReductionOfMax() {
    ir::IRModule before = ParseModule(kRowMax);
    Schedule sch(before);
    SBlockRV b = sch.GetSBlock("B");
    sch.RFactor(sch.GetLoops(b)[1], 0);
    ExpectModule(before, sch.mod(), kRowMaxRFactor);
    ExpectReplay(before, sch);
  }

  // A unit loop no iterator uses (left by a fuse with factor 1): factored into a one-slot
  // buffer, as TVM does; the write-back reduces over that one slot.
  void rfactorUnboundUnitLoop() {
    ir::IRModule before = ParseModule(R"(@I.ir_module
class Module:
    @T.prim_func(s_tir=True)
    def main(A: T.Buffer((8, 32), "int32"), B: T.Buffer((8,), "int32")):
        for i, k, u in T.grid(8, 32, 1):
            with T.sblock("B"):
                vi = T.axis.spatial(8, i)
                vk = T.axis.reduce(32, k)
                T.reads(A[vi, vk])
                T.writes(B[vi])
                with T.init():
                    B[vi] = 0
                B[vi] = B[vi] + A[vi, vk]
)");
    Schedule sch(before);
    SBlockRV b = sch.GetSBlock("B");
    sch.RFactor(sch.GetLoops(b)[2], 0);
    ExpectModule(before, sch.mod(), R"(@I.ir_module
class Module:
    @T.prim_func(s_tir=True)
    def main(A: T.Buffer((8, 32), "int32"), B: T.Buffer((8,), "int32")):
        B_rf = T.sblock_alloc_buffer((1, 8), "int32")
        for i, k, u in T.grid(8, 32, 1):
            with T.sblock("B_rf"):
                vu, vi = T.axis.remap("SS", [u, i])
                vk = T.axis.reduce(32, k)
                T.reads(A[vi, vk])
                T.writes(B_rf[vu, vi])
                with T.init():
                    B_rf[vu, vi] = 0
                B_rf[vu, vi] = B_rf[vu, vi] + A[vi, vk]
        for i, u in T.grid(8, 1):
            with T.sblock("B"):
                vu, vi = T.axis.remap("RS", [u, i])
                T.reads(B_rf[vu, vi])
                T.writes(B[vi])
                with T.init():
                    B[vi] = 0
                B[vi] = B[vi] + B_rf[vu, vi]
)");
    ExpectReplay(before, sch);
  }

  // The reduction shares its outer loop with another block: the write-back takes the reduction's
  // place under that loop and the other block stays (it was dropped before).
  void rfactorKeepsSiblingBlocks() {
    ir::IRModule before = ParseModule(R"(@I.ir_module
class Module:
    @T.prim_func(s_tir=True)
    def main(A: T.Buffer((8, 16), "float32"), D: T.Buffer((8,), "float32")):
        C = T.sblock_alloc_buffer((8,))
        for i in range(8):
            for k_0, k_1 in T.grid(4, 4):
                with T.sblock("C"):
                    vi = T.axis.spatial(8, i)
                    vk = T.axis.reduce(16, k_0 * 4 + k_1)
                    T.reads(A[vi, vk])
                    T.writes(C[vi])
                    with T.init():
                        C[vi] = T.float32(0.0)
                    C[vi] = C[vi] + A[vi, vk]
            with T.sblock("D"):
                vi = T.axis.spatial(8, i)
                T.reads(C[vi])
                T.writes(D[vi])
                D[vi] = C[vi] * T.float32(2.0)
)");
    Schedule sch(before);
    SBlockRV c = sch.GetSBlock("C");
    sch.RFactor(sch.GetLoops(c)[1], 0);
    ExpectSameMeaning(before, sch.mod());
    QCOMPARE(sch.GetLoops(sch.GetSBlock("D")).size(), size_t(1));
    QCOMPARE(sch.GetLoops(c).size(), size_t(2));  // i and the rf loop k_0
    ExpectReplay(before, sch);
  }

  void rfactorErrors() {
    {
      ir::IRModule before = ParseModule(kIntRowSum);
      Schedule sch(before);
      SBlockRV b = sch.GetSBlock("B");
      std::vector<LoopRV> loops = sch.GetLoops(b);
      QCOMPARE(FailsCleanly(sch, [&] { sch.RFactor(loops[0], 0); }),
               Rendered("rfactor", "The loop `i` is not touched by any reduction block iter of "
                                   "block `B`, so it cannot be factored"));
      QCOMPARE(FailsCleanly(sch, [&] { sch.RFactor(loops[2], 2); }),
               Rendered("rfactor", "The input `factor_axis` 2 is out of range. It is required to "
                                   "be in range [-2, 1] where `ndim` is the number of dimensions "
                                   "of the write buffer"));
      sch.Unroll(loops[2]);
      std::string msg = FailsCleanly(sch, [&] { sch.RFactor(loops[2], 0); });
      QVERIFY2(msg.find("The input loop `k_1` of rfactor is required to be `Serial`") !=
                   std::string::npos,
               msg.c_str());
    }
    {
      // The init and the update store different elements (C[vi, vj] and C[vj, vi]): no reducer.
      std::string transposed = kMatmul;
      transposed.replace(transposed.find("                C[vi, vj] = C[vi, vj] + A"), 41,
                         "                C[vj, vi] = C[vj, vi] + A");
      Schedule sch(ParseModule(transposed));
      LoopRV k = sch.GetLoops(sch.GetSBlock("C"))[2];
      std::string msg = FailsCleanly(sch, [&] { sch.RFactor(k, 0); });
      QVERIFY2(msg.find("No matched reducer") != std::string::npos, msg.c_str());
    }
    {
      ir::IRModule before = ParseModule(kRowDifference);
      Schedule sch(before);
      LoopRV k = sch.GetLoops(sch.GetSBlock("B"))[1];
      QCOMPARE(FailsCleanly(sch, [&] { sch.RFactor(k, 0); }),
               Rendered("rfactor",
                        "No matched reducer for the identity and the combiner of block `B`: the "
                        "body must be `B[...] = B[...] + x` (or *, T.min, T.max) with the matching "
                        "identity as init"));
    }
  }

  void rfactorThenDecompose() {
    // The two reduction primitives compose: the write-back block is an ordinary reduction.
    ir::IRModule before = ParseModule(kIntRowSum);
    Schedule sch(before);
    DiagnosticList diags = ApplyRecipe(sch,
                                       "b = sch.get_sblock(\"B\")\n"
                                       "i, k0, k1 = sch.get_loops(b)\n"
                                       "rf = sch.rfactor(k1, factor_axis=0)\n"
                                       "ri, rk0, rk1 = sch.get_loops(rf)\n"
                                       "sch.decompose_reduction(rf, rk0)\n"
                                       "i2, k1b = sch.get_loops(b)\n"
                                       "sch.decompose_reduction(b, k1b)\n");
    QVERIFY2(diags.empty(), diags.empty() ? "" : diags[0].message.c_str());
    ExpectSameMeaning(before, sch.mod());
  }

  void decomposeFromRecipe() {
    ir::IRModule before = ParseModule(kMatmul);
    Schedule sch(before);
    DiagnosticList diags = ApplyRecipe(sch,
                                       "b0 = sch.get_sblock(\"C\")\n"
                                       "i, j, k = sch.get_loops(b0)\n"
                                       "init = sch.decompose_reduction(b0, k)\n");
    QVERIFY2(diags.empty(), diags.empty() ? "" : diags[0].message.c_str());
    ExpectModule(before, sch.mod(), kMatmulDecomposedAtK);
  }
};

QTEST_APPLESS_MAIN(TestScheduleReduction)
#include "tst_schedule_reduction.moc"
