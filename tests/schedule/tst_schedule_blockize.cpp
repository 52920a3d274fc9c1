// Tests of blockize: the loops under a loop and their block become an outer block `<name>_o`
// with the outer part of each iter; compared structurally with the TVMScript we expect, run
// against the original through the interpreter, and replayed from the trace.

#include <QTest>
#include <string>

#include "schedule_test_util.h"

using namespace wb;
using namespace wb::schedule;
using namespace wb::schedule::testing;

namespace {

const char* kElementwise = R"(@I.ir_module
class Module:
    @T.prim_func(s_tir=True)
    def main(A: T.Buffer((32, 32), "float32"), B: T.Buffer((32, 32), "float32")):
        for i, j in T.grid(32, 32):
            with T.sblock("B"):
                vi, vj = T.axis.remap("SS", [i, j])
                T.reads(A[vi, vj])
                T.writes(B[vi, vj])
                B[vi, vj] = A[vi, vj] * T.float32(2.0)
)";

const char* kElementwiseWhole = R"(@I.ir_module
class Module:
    @T.prim_func(s_tir=True)
    def main(A: T.Buffer((32, 32), "float32"), B: T.Buffer((32, 32), "float32")):
        with T.sblock("B_o"):
            vi_o = T.axis.spatial(1, 0)
            vj_o = T.axis.spatial(1, 0)
            T.reads(A[0:32, 0:32])
            T.writes(B[0:32, 0:32])
            for i, j in T.grid(32, 32):
                with T.sblock("B"):
                    vi_i, vj_i = T.axis.remap("SS", [i, j])
                    T.reads(A[vi_i, vj_i])
                    T.writes(B[vi_i, vj_i])
                    B[vi_i, vj_i] = A[vi_i, vj_i] * T.float32(2.0)
)";

const char* kTiled = R"(@I.ir_module
class Module:
    @T.prim_func(s_tir=True)
    def main(A: T.Buffer((32, 32), "float32"), B: T.Buffer((32, 32), "float32")):
        for i_0, j_0, i_1, j_1 in T.grid(4, 4, 8, 8):
            with T.sblock("B"):
                vi = T.axis.spatial(32, i_0 * 8 + i_1)
                vj = T.axis.spatial(32, j_0 * 8 + j_1)
                T.reads(A[vi, vj])
                T.writes(B[vi, vj])
                B[vi, vj] = A[vi, vj] * T.float32(2.0)
)";

const char* kTiledBlockized = R"(@I.ir_module
class Module:
    @T.prim_func(s_tir=True)
    def main(A: T.Buffer((32, 32), "float32"), B: T.Buffer((32, 32), "float32")):
        for i_0, j_0 in T.grid(4, 4):
            with T.sblock("B_o"):
                vi_o, vj_o = T.axis.remap("SS", [i_0, j_0])
                T.reads(A[vi_o * 8:vi_o * 8 + 8, vj_o * 8:vj_o * 8 + 8])
                T.writes(B[vi_o * 8:vi_o * 8 + 8, vj_o * 8:vj_o * 8 + 8])
                for i_1, j_1 in T.grid(8, 8):
                    with T.sblock("B"):
                        vi_i, vj_i = T.axis.remap("SS", [i_1, j_1])
                        T.reads(A[vi_o * 8 + vi_i, vj_o * 8 + vj_i])
                        T.writes(B[vi_o * 8 + vi_i, vj_o * 8 + vj_i])
                        B[vi_o * 8 + vi_i, vj_o * 8 + vj_i] = A[vi_o * 8 + vi_i, vj_o * 8 + vj_i] * T.float32(2.0)
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

// Blockized at k: the reduction moves inside; the outer block's init is a block of its own.
const char* kMatmulBlockizedAtK = R"(@I.ir_module
class Module:
    @T.prim_func(s_tir=True)
    def main(A: T.Buffer((16, 16), "float32"), B: T.Buffer((16, 16), "float32"), C: T.Buffer((16, 16), "float32")):
        for i, j in T.grid(16, 16):
            with T.sblock("C_o"):
                vi_o, vj_o = T.axis.remap("SS", [i, j])
                vk_o = T.axis.reduce(1, 0)
                T.reads(A[vi_o, 0:16], B[0:16, vj_o])
                T.writes(C[vi_o, vj_o])
                with T.init():
                    with T.sblock("C_init"):
                        T.reads()
                        T.writes(C[vi_o, vj_o])
                        C[vi_o, vj_o] = T.float32(0.0)
                for k in range(16):
                    with T.sblock("C"):
                        vk_i = T.axis.reduce(16, k)
                        T.reads(C[vi_o, vj_o], A[vi_o, vk_i], B[vk_i, vj_o])
                        T.writes(C[vi_o, vj_o])
                        C[vi_o, vj_o] = C[vi_o, vj_o] + A[vi_o, vk_i] * B[vk_i, vj_o]
)";

// Blockized at j: the init of the outer block loops over the inner data-parallel iter.
const char* kMatmulBlockizedAtJ = R"(@I.ir_module
class Module:
    @T.prim_func(s_tir=True)
    def main(A: T.Buffer((16, 16), "float32"), B: T.Buffer((16, 16), "float32"), C: T.Buffer((16, 16), "float32")):
        for i in range(16):
            with T.sblock("C_o"):
                vi_o = T.axis.spatial(16, i)
                vj_o = T.axis.spatial(1, 0)
                vk_o = T.axis.reduce(1, 0)
                T.reads(A[vi_o, 0:16], B[0:16, 0:16])
                T.writes(C[vi_o, 0:16])
                with T.init():
                    for j in range(16):
                        with T.sblock("C_init"):
                            vj_i_init = T.axis.spatial(16, j)
                            T.reads()
                            T.writes(C[vi_o, vj_i_init])
                            C[vi_o, vj_i_init] = T.float32(0.0)
                for j, k in T.grid(16, 16):
                    with T.sblock("C"):
                        vj_i, vk_i = T.axis.remap("SR", [j, k])
                        T.reads(C[vi_o, vj_i], A[vi_o, vk_i], B[vk_i, vj_i])
                        T.writes(C[vi_o, vj_i])
                        C[vi_o, vj_i] = C[vi_o, vj_i] + A[vi_o, vk_i] * B[vk_i, vj_i]
)";

const char* kTwoBlocksUnderLoop = R"(@I.ir_module
class Module:
    @T.prim_func(s_tir=True)
    def main(A: T.Buffer((8,), "float32"), C: T.Buffer((8,), "float32")):
        B = T.sblock_alloc_buffer((8,))
        for i in range(8):
            with T.sblock("B"):
                vi = T.axis.spatial(8, i)
                T.reads(A[vi])
                T.writes(B[vi])
                B[vi] = A[vi] + T.float32(1.0)
            with T.sblock("C"):
                vi = T.axis.spatial(8, i)
                T.reads(B[vi])
                T.writes(C[vi])
                C[vi] = B[vi] * T.float32(2.0)
)";

// vi = i + j mixes both loops in one term range: no outer * inner + inner split.
const char* kSkewed = R"(@I.ir_module
class Module:
    @T.prim_func(s_tir=True)
    def main(A: T.Buffer((15,), "float32"), B: T.Buffer((15,), "float32")):
        for i, j in T.grid(8, 8):
            with T.sblock("B"):
                vi = T.axis.spatial(15, i + j)
                T.reads(A[vi])
                T.writes(B[vi])
                B[vi] = A[vi]
)";

}  // namespace

class TestScheduleBlockize : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  void blockizeWholeNest() {
    ir::IRModule before = ParseModule(kElementwise);
    Schedule sch(before);
    SBlockRV b = sch.GetSBlock("B");
    SBlockRV outer = sch.Blockize(sch.GetLoops(b)[0]);
    ExpectModule(before, sch.mod(), kElementwiseWhole);
    QCOMPARE(sch.Get(outer)->name_hint, std::string("B_o"));
    QCOMPARE(sch.Get(b)->name_hint, std::string("B"));
    QCOMPARE(sch.trace().AsPython(),
             std::string("b0 = sch.get_sblock(name=\"B\", func_name=\"main\")\n"
                         "l1, l2 = sch.get_loops(block=b0)\n"
                         "b3 = sch.blockize(target=l1, preserve_unit_iters=True)\n"));
    ExpectReplay(before, sch);
  }

  void blockizeTile() {
    ir::IRModule before = ParseModule(kTiled);
    Schedule sch(before);
    SBlockRV b = sch.GetSBlock("B");
    sch.Blockize(sch.GetLoops(b)[2]);
    ExpectModule(before, sch.mod(), kTiledBlockized);
    ExpectReplay(before, sch);
  }

  // A unit loop above the blockized loops stays the outer iterator's binding with
  // preserve_unit_iters (TVM's test_blockize_outer_int64_shape), and becomes 0 without it.
  void blockizeKeepsUnitOuterLoop() {
    const char* text = R"(@I.ir_module
class Module:
    @T.prim_func(s_tir=True)
    def main(A: T.Buffer((16, 32), "float32"), B: T.Buffer((16, 32), "float32")):
        for i0, j0, i1, j1 in T.grid(1, 2, 16, 16):
            with T.sblock("B"):
                vi = T.axis.spatial(16, i0 * 16 + i1)
                vj = T.axis.spatial(32, j0 * 16 + j1)
                B[vi, vj] = A[vi, vj] + T.float32(1.0)
)";
    auto expected = [](const char* vi_o) {
      return std::string(R"(@I.ir_module
class Module:
    @T.prim_func(s_tir=True)
    def main(A: T.Buffer((16, 32), "float32"), B: T.Buffer((16, 32), "float32")):
        for i0, j0 in T.grid(1, 2):
            with T.sblock("B_o"):
                vi_o = T.axis.spatial(1, )") +
             vi_o + R"()
                vj_o = T.axis.spatial(2, j0)
                T.reads(A[0:16, vj_o * 16:vj_o * 16 + 16])
                T.writes(B[0:16, vj_o * 16:vj_o * 16 + 16])
                for i1, j1 in T.grid(16, 16):
                    with T.sblock("B"):
                        vi_i, vj_i = T.axis.remap("SS", [i1, j1])
                        T.reads(A[vi_i, vj_o * 16 + vj_i])
                        T.writes(B[vi_i, vj_o * 16 + vj_i])
                        B[vi_i, vj_o * 16 + vj_i] = A[vi_i, vj_o * 16 + vj_i] + T.float32(1.0)
)";
    };
    for (bool preserve : {true, false}) {
      ir::IRModule before = ParseModule(text);
      Schedule sch(before);
      sch.Blockize(sch.GetLoops(sch.GetSBlock("B"))[2], preserve);
      ExpectModule(before, sch.mod(), expected(preserve ? "i0" : "0"));
      ExpectReplay(before, sch);
    }
  }

  void blockizeReduction() {
    {
      ir::IRModule before = ParseModule(kMatmul);
      Schedule sch(before);
      SBlockRV c = sch.GetSBlock("C");
      sch.Blockize(sch.GetLoops(c)[2]);
      ExpectModule(before, sch.mod(), kMatmulBlockizedAtK);
      ExpectReplay(before, sch);
    }
    {
      ir::IRModule before = ParseModule(kMatmul);
      Schedule sch(before);
      SBlockRV c = sch.GetSBlock("C");
      sch.Blockize(sch.GetLoops(c)[1]);
      ExpectModule(before, sch.mod(), kMatmulBlockizedAtJ);
      ExpectReplay(before, sch);
    }
  }

  void blockizeErrors() {
    {
      ir::IRModule before = ParseModule(kTwoBlocksUnderLoop);
      Schedule sch(before);
      LoopRV i = sch.GetLoops(sch.GetSBlock("B"))[0];
      QCOMPARE(FailsCleanly(sch, [&] { sch.Blockize(i); }),
               Rendered("blockize",
                        "The loop `i` is required to have exactly one child block, but it has 2"));
    }
    {
      ir::IRModule before = ParseModule(kSkewed);
      Schedule sch(before);
      LoopRV j = sch.GetLoops(sch.GetSBlock("B"))[1];
      QCOMPARE(FailsCleanly(sch, [&] { sch.Blockize(j); }),
               Rendered("blockize",
                        "The bindings of the inner block `B` can not be blockized by the loops "
                        "starting at `j`."));
    }
  }

  void blockizeFromRecipe() {
    ir::IRModule before = ParseModule(kTiled);
    Schedule sch(before);
    DiagnosticList diags = ApplyRecipe(sch,
                                       "i0, j0, i1, j1 = sch.get_loops(\"B\")\n"
                                       "outer = sch.blockize(i1)\n");
    QVERIFY2(diags.empty(), diags.empty() ? "" : diags[0].message.c_str());
    ExpectModule(before, sch.mod(), kTiledBlockized);
  }
};

QTEST_APPLESS_MAIN(TestScheduleBlockize)
#include "tst_schedule_blockize.moc"
