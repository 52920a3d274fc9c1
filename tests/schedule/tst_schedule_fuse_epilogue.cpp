// fuse_reduction_epilogue: before/after modules, TVM's errors and the refusals (leaving the
// schedule as it was), interpreter equivalence on random inputs and trace replay.
#include <QTest>

#include "schedule/primitive/primitives.h"
#include "schedule_test_util.h"

using namespace wb;
using namespace wb::schedule;
using namespace wb::schedule::testing;

namespace {

// A matmul into `acc` and an epilogue `epi` over it.
std::string Program(const std::string& init, const std::string& epilogue,
                    const std::string& extra = "") {
  return R"(@I.ir_module
class Module:
    @T.prim_func(s_tir=True)
    def main(A: T.Buffer((8, 6), "float32"), B: T.Buffer((6, 8), "float32"), C: T.Buffer((8, 8), "float32"), D: T.Buffer((8, 8), "float32"), E: T.Buffer((8, 8), "float32")):
        acc = T.sblock_alloc_buffer((8, 8))
        for i, j, k in T.grid(8, 8, 6):
            with T.sblock("matmul"):
                vi, vj, vk = T.axis.remap("SSR", [i, j, k])
                T.reads(A[vi, vk], B[vk, vj])
                T.writes(acc[vi, vj])
                with T.init():
                    acc[vi, vj] = )" + init + R"(
                acc[vi, vj] = acc[vi, vj] + A[vi, vk] * B[vk, vj]
        for i, j in T.grid(8, 8):
            with T.sblock("epi"):
                vi, vj = T.axis.remap("SS", [i, j])
                D[vi, vj] = )" + epilogue + "\n" + extra;
}

// The expected module: one reduction block writing D.
std::string Fused(const std::string& reads, const std::string& init) {
  return R"(@I.ir_module
class Module:
    @T.prim_func(s_tir=True)
    def main(A: T.Buffer((8, 6), "float32"), B: T.Buffer((6, 8), "float32"), C: T.Buffer((8, 8), "float32"), D: T.Buffer((8, 8), "float32"), E: T.Buffer((8, 8), "float32")):
        for i, j, k in T.grid(8, 8, 6):
            with T.sblock("matmul"):
                vi, vj, vk = T.axis.remap("SSR", [i, j, k])
                T.reads()" + reads + R"()
                T.writes(D[vi, vj])
                with T.init():
                    D[vi, vj] = )" + init + R"(
                D[vi, vj] = D[vi, vj] + A[vi, vk] * B[vk, vj]
)";
}

}  // namespace

class TestScheduleFuseEpilogue : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  // TVM's bias add: the init becomes the bias.
  void biasAdd() {
    ir::IRModule before = ParseModule(Program("T.float32(0.0)", "acc[vi, vj] + C[vi, vj]"));
    Schedule sch(before);
    SBlockRV epi = sch.GetSBlock("epi");
    FuseReductionEpilogue(sch, sch.GetSBlock("matmul"), epi);
    ExpectModule(before, sch.mod(),
                 Fused("C[vi, vj], A[vi, vk], B[vk, vj]", "C[vi, vj]"));
    QVERIFY(sch.trace().AsPython().find("sch.fuse_reduction_epilogue(reduction_block=b1, "
                                        "epilogue_block=b0)") != std::string::npos);
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, sch.GetLoops(epi));
    ExpectReplay(before, sch);
  }

  // The addend first, an expression of another buffer, and an init that is not 0: the init is
  // the addend plus the reduction's init.
  void addendFirstNonZeroInit() {
    ir::IRModule before =
        ParseModule(Program("T.float32(1.5)", "C[vj, vi] * T.float32(2.0) + acc[vi, vj]"));
    Schedule sch(before);
    Apply(sch, "sch.fuse_reduction_epilogue(\"matmul\", epilogue_block=\"epi\")\n");
    ExpectModule(before, sch.mod(),
                 Fused("C[vj, vi], A[vi, vk], B[vk, vj]", "C[vj, vi] * T.float32(2.0) + T.float32(1.5)"));
    ExpectReplay(before, sch);
  }

  // A copy epilogue: the reduction writes D directly.
  void copy() {
    ir::IRModule before = ParseModule(Program("T.float32(0.0)", "acc[vi, vj]"));
    Schedule sch(before);
    Apply(sch, "sch.fuse_reduction_epilogue(reduction_block=\"matmul\", epilogue_block=\"epi\")\n");
    ExpectModule(before, sch.mod(), Fused("A[vi, vk], B[vk, vj]", "T.float32(0.0)"));
    ExpectReplay(before, sch);
  }

  void errors() {
    auto fails = [](const std::string& program, const char* reduction = "matmul") {
      Schedule sch(ParseModule(program));
      SBlockRV r = sch.GetSBlock(reduction);
      SBlockRV e = sch.GetSBlock("epi");
      return FailsCleanly(sch, [&] { FuseReductionEpilogue(sch, r, e); });
    };
    // ReLU (TVM fuses it into every update step, which clamps partial sums).
    QCOMPARE(fails(Program("T.float32(0.0)", "T.max(acc[vi, vj] + C[vi, vj], T.float32(0.0))")),
             Rendered("fuse-reduction-epilogue",
                      "The epilogue block `epi` cannot be fused into the reduction `matmul`: its "
                      "body must be `D[...] = acc[...] + X` (or `X + acc[...]`, or a copy of acc) "
                      "with X not reading acc"));
    QCOMPARE(fails(Program("T.float32(0.0)", "acc[vi, vj] * C[vi, vj]")),
             Rendered("fuse-reduction-epilogue",
                      "The epilogue block `epi` cannot be fused into the reduction `matmul`: its "
                      "body must be `D[...] = acc[...] + X` (or `X + acc[...]`, or a copy of acc) "
                      "with X not reading acc"));
    // The transposed read: the epilogue's element is not the reduction's.
    QCOMPARE(fails(Program("T.float32(0.0)", "acc[vj, vi] + C[vi, vj]")),
             Rendered("fuse-reduction-epilogue",
                      "The epilogue block `epi` cannot be fused into the reduction `matmul`: its "
                      "iterators must span the reduction's data-parallel iterators, in order, and "
                      "read acc where the reduction writes it"));
    // Another reader of acc would lose it.
    QCOMPARE(fails(Program("T.float32(0.0)", "acc[vi, vj] + C[vi, vj]", R"(        for i, j in T.grid(8, 8):
            with T.sblock("other"):
                vi, vj = T.axis.remap("SS", [i, j])
                E[vi, vj] = acc[vi, vj]
)")),
             Rendered("fuse-reduction-epilogue",
                      "The epilogue block `epi` cannot be fused into the reduction `matmul`: it "
                      "must be the only block reading acc"));
    // Not a reduction / an output block.
    QCOMPARE(fails(Program("T.float32(0.0)", "acc[vi, vj] + C[vi, vj]", R"(        for i, j in T.grid(8, 8):
            with T.sblock("other"):
                vi, vj = T.axis.remap("SS", [i, j])
                E[vi, vj] = D[vi, vj]
)"), "other"),
             Rendered("fuse-reduction-epilogue",
                      "The block `other` is not a reduction block - it violates condition #1"));
    Schedule sch(ParseModule(Program("T.float32(0.0)", "acc[vi, vj] + C[vi, vj]")));
    DiagnosticList diags =
        ApplyRecipe(sch, "sch.fuse_reduction_epilogue(\"matmul\", \"matmul\")\n");
    QCOMPARE(diags.size(), size_t(1));
    QCOMPARE(diags[0].notes.size(), size_t(1));
  }
};

QTEST_APPLESS_MAIN(TestScheduleFuseEpilogue)
#include "tst_schedule_fuse_epilogue.moc"
