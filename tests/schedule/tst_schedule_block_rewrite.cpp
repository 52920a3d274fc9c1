// reorder_block_iter_var and unsafe_set_dtype: before/after modules, TVM's errors (leaving the
// schedule as it was), interpreter equivalence and trace replay.
#include <QTest>

#include "schedule_test_util.h"

using namespace wb;
using namespace wb::schedule;
using namespace wb::schedule::testing;

namespace {

const char* kMatmul = R"(@I.ir_module
class Module:
    @T.prim_func(s_tir=True)
    def main(A: T.Buffer((8, 4), "float32"), B: T.Buffer((4, 6), "float32"), C: T.Buffer((8, 6), "float32")):
        for i, j, k in T.grid(8, 6, 4):
            with T.sblock("C"):
                vi, vj, vk = T.axis.remap("SSR", [i, j, k])
                T.reads(A[vi, vk], B[vk, vj])
                T.writes(C[vi, vj])
                with T.init():
                    C[vi, vj] = T.float32(0.0)
                C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj]
)";

// kTwoStage with block B's iterators or B's buffer changed.
std::string TwoStage(const std::string& alloc, const std::string& b_axes, const std::string& b_store,
                     const std::string& c_load) {
  return R"(@I.ir_module
class Module:
    @T.prim_func(s_tir=True)
    def main(A: T.Buffer((16, 16), "float32"), C: T.Buffer((16, 16), "float32")):
        )" + alloc + R"(
        for i, j in T.grid(16, 16):
            with T.sblock("B"):
                )" + b_axes + R"(
                T.reads(A[vi, vj])
                T.writes(B[vi, vj])
                B[vi, vj] = )" + b_store + R"(
        for i, j in T.grid(16, 16):
            with T.sblock("C"):
                vi, vj = T.axis.remap("SS", [i, j])
                T.reads(B[vi, vj])
                T.writes(C[vi, vj])
                C[vi, vj] = )" + c_load + R"( + T.float32(1.0)
)";
}

const std::string kAlloc = "B = T.sblock_alloc_buffer((16, 16))";
const std::string kAxes = "vi, vj = T.axis.remap(\"SS\", [i, j])";
const std::string kStore = "A[vi, vj] * T.float32(2.0)";

}  // namespace

class TestScheduleBlockRewrite : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  void reorderBlockIterVar() {
    ir::IRModule before = ParseModule(kTwoStage);
    Schedule sch(before);
    SBlockRV b = sch.GetSBlock("B");
    sch.ReorderBlockIterVar(b, {1, 0});
    ExpectModule(before, sch.mod(),
                 TwoStage(kAlloc, "vj, vi = T.axis.remap(\"SS\", [j, i])", kStore, "B[vi, vj]"));
    QVERIFY(sch.trace().AsPython().find("sch.reorder_block_iter_var(block=b0, new_order=[1, 0])") !=
            std::string::npos);
    ExpectReplay(before, sch);
    // Back again: the original module.
    sch.ReorderBlockIterVar(b, {1, 0});
    ExpectModule(before, sch.mod(), kTwoStage);
  }

  void reorderBlockIterVarIdentity() {
    ir::IRModule before = ParseModule(kTwoStage);
    Schedule sch(before);
    sch.ReorderBlockIterVar(sch.GetSBlock("C"), {0, 1});
    ExpectModule(before, sch.mod(), kTwoStage);
    QCOMPARE(sch.trace().instructions().size(), size_t(2));
  }

  void reorderBlockIterVarReduction() {
    ir::IRModule before = ParseModule(kMatmul);
    Schedule sch(before);
    DiagnosticList diags = ApplyRecipe(sch, "sch.reorder_block_iter_var(\"C\", [2, 0, 1])\n");
    QVERIFY2(diags.empty(), diags.empty() ? "" : diags[0].message.c_str());
    ExpectModule(before, sch.mod(), R"(@I.ir_module
class Module:
    @T.prim_func(s_tir=True)
    def main(A: T.Buffer((8, 4), "float32"), B: T.Buffer((4, 6), "float32"), C: T.Buffer((8, 6), "float32")):
        for i, j, k in T.grid(8, 6, 4):
            with T.sblock("C"):
                vk = T.axis.reduce(4, k)
                vi = T.axis.spatial(8, i)
                vj = T.axis.spatial(6, j)
                T.reads(A[vi, vk], B[vk, vj])
                T.writes(C[vi, vj])
                with T.init():
                    C[vi, vj] = T.float32(0.0)
                C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj]
)");
    ExpectReplay(before, sch);
    // The reordered block still schedules: decompose_reduction finds its reduction iterator.
    sch.DecomposeReduction(sch.GetSBlock("C"), sch.GetLoops(sch.GetSBlock("C"))[2]);
    ExpectSameMeaning(before, sch.mod());
  }

  void reorderBlockIterVarErrors() {
    Schedule sch(ParseModule(kMatmul));
    SBlockRV c = sch.GetSBlock("C");
    QCOMPARE(FailsCleanly(sch, [&] { sch.ReorderBlockIterVar(c, {0, 0, 1}); }),
             Rendered("reorder_block_iter_var",
                      "The user provided block itervar index order [0, 0, 1] is not a valid "
                      "permutation of [0, 1, ..., num_block_iter_vars-1] in block `C`."));
    QVERIFY(FailsCleanly(sch, [&] { sch.ReorderBlockIterVar(c, {1, 0}); })
                .find("order [1, 0] is not a valid permutation") != std::string::npos);
    QVERIFY(FailsCleanly(sch, [&] { sch.ReorderBlockIterVar(c, {0, 1, 3}); })
                .find("order [0, 1, 3] is not a valid permutation") != std::string::npos);
    DiagnosticList diags = ApplyRecipe(sch, "sch.reorder_block_iter_var(\"C\", new_order=0)\n");
    QCOMPARE(diags.size(), size_t(1));
    QCOMPARE(diags[0].message, std::string("new_order must be a list of integers"));
  }

  void unsafeSetDType() {
    ir::IRModule before = ParseModule(kTwoStage);
    Schedule sch(before);
    SBlockRV b = sch.GetSBlock("B");
    // float64 holds every float32 exactly, so the program still computes the same.
    sch.UnsafeSetDType(b, 0, "float64");
    ExpectModule(before, sch.mod(),
                 TwoStage("B = T.sblock_alloc_buffer((16, 16), \"float64\")", kAxes,
                          "T.Cast(\"float64\", " + kStore + ")",
                          "T.Cast(\"float32\", B[vi, vj])"));
    QVERIFY(sch.trace().AsPython().find(
                "sch.unsafe_set_dtype(block=b0, buffer_index=0, dtype=\"float64\")") !=
            std::string::npos);
    ExpectReplay(before, sch);
  }

  // A buffer matched onto the retyped one is retyped too, its uses converted through it, and
  // the match and its uses stay one buffer (the mutator maps a match buffer's definition).
  void unsafeSetDTypeOfMatchedBuffer() {
    auto module = [](const std::string& dtype_arg, const std::string& store,
                     const std::string& load) {
      return R"(@I.ir_module
class Module:
    @T.prim_func(s_tir=True)
    def main(A: T.Buffer((8, 8), "float32"), C: T.Buffer((8, 8), "float32")):
        B = T.sblock_alloc_buffer((8, 8))" + dtype_arg + R"()
        for i, j in T.grid(8, 8):
            with T.sblock("B"):
                vi, vj = T.axis.remap("SS", [i, j])
                T.reads(A[vi, vj])
                T.writes(B[vi, vj])
                s = T.match_buffer(B[vi, vj], ())" + dtype_arg + R"(, offset_factor=1)
                s[()] = )" + store + R"(
        for i, j in T.grid(8, 8):
            with T.sblock("C"):
                vi, vj = T.axis.remap("SS", [i, j])
                T.reads(B[vi, vj])
                T.writes(C[vi, vj])
                t = T.match_buffer(B[vi, vj], ())" + dtype_arg + R"(, offset_factor=1)
                C[vi, vj] = )" + load + R"( + T.float32(1.0)
)";
    };
    ir::IRModule before = ParseModule(module("", "A[vi, vj] * T.float32(2.0)", "t[()]"));
    Schedule sch(before);
    sch.UnsafeSetDType(sch.GetSBlock("B"), 0, "float64");
    ExpectModule(before, sch.mod(),
                 module(", \"float64\"", "T.Cast(\"float64\", A[vi, vj] * T.float32(2.0))",
                        "T.Cast(\"float32\", t[()])"));
    ExpectReplay(before, sch);
  }

  void unsafeSetDTypeSameIsRecorded() {
    ir::IRModule before = ParseModule(kTwoStage);
    Schedule sch(before);
    sch.UnsafeSetDType(sch.GetSBlock("B"), 0, "float32");
    QVERIFY(sch.mod().same_as(before));
    QCOMPARE(sch.trace().instructions().size(), size_t(2));
    ExpectReplay(before, sch);
  }

  // After set_scope the buffer is B_shared; the dtype follows it there, and a narrowing type
  // really changes values (float16 cannot hold every float32), which is why TVM calls it unsafe.
  void unsafeSetDTypeAfterSetScope() {
    ir::IRModule before = ParseModule(kTwoStage);
    Schedule sch(before);
    DiagnosticList diags = ApplyRecipe(sch, "b = sch.get_sblock(\"B\")\n"
                                            "sch.set_scope(b, 0, \"shared\")\n"
                                            "sch.unsafe_set_dtype(b, 0, \"float16\")\n");
    QVERIFY2(diags.empty(), diags.empty() ? "" : diags[0].message.c_str());
    ir::IRModule expected = ParseModule(
        R"(@I.ir_module
class Module:
    @T.prim_func(s_tir=True)
    def main(A: T.Buffer((16, 16), "float32"), C: T.Buffer((16, 16), "float32")):
        B_shared = T.sblock_alloc_buffer((16, 16), "float16", scope="shared")
        for i, j in T.grid(16, 16):
            with T.sblock("B"):
                vi, vj = T.axis.remap("SS", [i, j])
                T.reads(A[vi, vj])
                T.writes(B_shared[vi, vj])
                B_shared[vi, vj] = T.Cast("float16", A[vi, vj] * T.float32(2.0))
        for i, j in T.grid(16, 16):
            with T.sblock("C"):
                vi, vj = T.axis.remap("SS", [i, j])
                T.reads(B_shared[vi, vj])
                T.writes(C[vi, vj])
                C[vi, vj] = T.Cast("float32", B_shared[vi, vj]) + T.float32(1.0)
)");
    QVERIFY2(ir::StructuralEqual(sch.mod(), expected), script::PrintModule(sch.mod()).c_str());
    ExpectReplay(before, sch);
  }

  void unsafeSetDTypeErrors() {
    Schedule sch(ParseModule(kTwoStage));
    SBlockRV c = sch.GetSBlock("C");
    QCOMPARE(FailsCleanly(sch, [&] { sch.UnsafeSetDType(c, 0, "float16"); }),
             Rendered("set-dtype",
                      "The input buffer C is not allocated by a block. This means the buffer is "
                      "either a function parameter or defined in `match_buffer` of a block."));
    SBlockRV b = sch.GetSBlock("B");
    QVERIFY(FailsCleanly(sch, [&] { sch.UnsafeSetDType(b, 1, "float16"); })
                .find("has 1 write regions, so `buffer_index` is required to be in [0, 1)") !=
            std::string::npos);
    ir::IRModule kept = sch.mod();
    size_t steps = sch.trace().instructions().size();
    DiagnosticList diags = ApplyRecipe(sch, "sch.unsafe_set_dtype(\"B\", 0, \"float33\")\n");
    QCOMPARE(diags.size(), size_t(1));
    QCOMPARE(diags[0].message, std::string("unknown dtype \"float33\""));
    QVERIFY(sch.mod().same_as(kept));
    QCOMPARE(sch.trace().instructions().size(), steps + 1);  // only the recipe's get_sblock
  }
};

QTEST_APPLESS_MAIN(TestScheduleBlockRewrite)
#include "tst_schedule_block_rewrite.moc"
