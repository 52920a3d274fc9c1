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

// The expected module: one reduction block writing D (acc's allocation stays, as in TVM).
std::string Fused(const std::string& reads, const std::string& init,
                  const std::string& update = "D[vi, vj] + A[vi, vk] * B[vk, vj]") {
  return R"(@I.ir_module
class Module:
    @T.prim_func(s_tir=True)
    def main(A: T.Buffer((8, 6), "float32"), B: T.Buffer((6, 8), "float32"), C: T.Buffer((8, 8), "float32"), D: T.Buffer((8, 8), "float32"), E: T.Buffer((8, 8), "float32")):
        acc = T.sblock_alloc_buffer((8, 8))
        for i, j, k in T.grid(8, 8, 6):
            with T.sblock("matmul"):
                vi, vj, vk = T.axis.remap("SSR", [i, j, k])
                T.reads()" + reads + R"()
                T.writes(D[vi, vj])
                with T.init():
                    D[vi, vj] = )" + init + R"(
                D[vi, vj] = )" + update + "\n";
}

// What a per-step epilogue computes, written out: the init is `epilogue(init)` and every update
// step applies `epilogue` to the running value (TVM's reference for the fused ReLU and clip).
std::string PerStep(const std::string& init, const std::string& step) {
  return R"(@I.ir_module
class Module:
    @T.prim_func(s_tir=True)
    def main(A: T.Buffer((8, 6), "float32"), B: T.Buffer((6, 8), "float32"), C: T.Buffer((8, 8), "float32"), D: T.Buffer((8, 8), "float32"), E: T.Buffer((8, 8), "float32")):
        for i, j in T.grid(8, 8):
            with T.sblock("init"):
                vi, vj = T.axis.remap("SS", [i, j])
                D[vi, vj] = )" + init + R"(
        for i, j, k in T.grid(8, 8, 6):
            with T.sblock("step"):
                vi, vj, vk = T.axis.remap("SSR", [i, j, k])
                D[vi, vj] = )" + step + "\n";
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

  // Bias and ReLU: the bias moves to the init, the ReLU shell applies at every step; the result
  // computes what the per-step program does.
  void biasRelu() {
    ir::IRModule before = ParseModule(
        Program("T.float32(0.0)", "T.max(acc[vi, vj] + C[vi, vj], T.float32(0.0))"));
    Schedule sch(before);
    Apply(sch, "sch.fuse_reduction_epilogue(\"matmul\", \"epi\")\n");
    ir::IRModule expected = ParseModule(
        Fused("C[vi, vj], A[vi, vk], B[vk, vj]", "T.max(C[vi, vj], T.float32(0.0))",
              "T.max(D[vi, vj] + A[vi, vk] * B[vk, vj], T.float32(0.0))"));
    if (!ir::StructuralEqual(sch.mod(), expected)) {
      qWarning("got:\n%s", script::PrintModule(sch.mod()).c_str());
      QFAIL("fused ReLU differs");
    }
    ExpectSameMeaning(ParseModule(PerStep("T.max(C[vi, vj], T.float32(0.0))",
                                          "T.max(D[vi, vj] + A[vi, vk] * B[vk, vj], "
                                          "T.float32(0.0))")),
                      sch.mod(), 7);
    ExpectReplay(before, sch);
  }

  // Clipping in each operand order: the init is the clipped init value, each step is clipped.
  void clipVariants() {
    const char* const shells[][2] = {
        {"T.min(T.max(acc[vi, vj], T.float32(-1.0)), T.float32(1.0))",
         "T.min(T.max(@, T.float32(-1.0)), T.float32(1.0))"},
        {"T.min(T.float32(1.0), T.max(acc[vi, vj], T.float32(-1.0)))",
         "T.min(T.float32(1.0), T.max(@, T.float32(-1.0)))"},
        {"T.max(T.float32(-1.0), T.min(acc[vi, vj], T.float32(1.0)))",
         "T.max(T.float32(-1.0), T.min(@, T.float32(1.0)))"},
    };
    for (const auto& shell : shells) {
      auto with = [&](const std::string& inner) {
        std::string text = shell[1];
        return text.replace(text.find('@'), 1, inner);
      };
      ir::IRModule before = ParseModule(Program("T.float32(0.0)", shell[0]));
      Schedule sch(before);
      Apply(sch, "sch.fuse_reduction_epilogue(\"matmul\", \"epi\")\n");
      const std::string step = with("D[vi, vj] + A[vi, vk] * B[vk, vj]");
      // The init, a clip of constants, folds to the init value.
      ir::IRModule expected = ParseModule(Fused("A[vi, vk], B[vk, vj]", "T.float32(0.0)", step));
      if (!ir::StructuralEqual(sch.mod(), expected)) {
        qWarning("got:\n%s", script::PrintModule(sch.mod()).c_str());
        QFAIL(shell[0]);
      }
      ExpectSameMeaning(ParseModule(PerStep(with("T.float32(0.0)"), step)), sch.mod(), 11);
      ExpectReplay(before, sch);
    }
  }

  void errors() {
    auto fails = [](const std::string& program, const char* reduction = "matmul") {
      Schedule sch(ParseModule(program));
      SBlockRV r = sch.GetSBlock(reduction);
      SBlockRV e = sch.GetSBlock("epi");
      return FailsCleanly(sch, [&] { FuseReductionEpilogue(sch, r, e); });
    };
    // Scaling the result, reading it twice, a predicate: TVM's body analysis refuses them.
    const std::string body = Rendered(
        "fuse-reduction-epilogue",
        "The body of the inlined block should be in form of\n"
        "    `B[...] = g(i, j, k, A[f(i, j, k, ...)] ...)`,\n"
        "where A is the reduction's output, read exactly once and combined only by additions and "
        "min/max\n(no multiplication, division or modulo of it), and there should not be "
        "predicates in the\nepilogue block.");
    QCOMPARE(fails(Program("T.float32(0.0)", "acc[vi, vj] * C[vi, vj]")), body);
    QCOMPARE(fails(Program("T.float32(0.0)", "(acc[vi, vj] + C[vi, vj]) * T.float32(2.0)")),
             body);
    QCOMPARE(fails(Program("T.float32(0.0)", "acc[vi, vj] + acc[vi, vj]")), body);
    QCOMPARE(fails(Program("T.float32(0.0)", "C[vi, vj]")), body);
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
                      "must be the only block reading acc, which the fused block no longer "
                      "writes"));
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
