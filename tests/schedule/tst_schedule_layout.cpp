// Tests of transform_layout and pad_einsum, each result compared structurally with the TVMScript
// we expect, run against the original through the interpreter (transform_layout: intermediate
// buffers only, since a parameter's new layout changes the signature), and replayed from the
// trace; maps and paddings that do not fit are refused with TVM's messages.

#include <QTest>
#include <string>

#include "schedule_test_util.h"
#include "tir/index_map.h"
#include "tir/op.h"

using namespace wb;
using namespace wb::schedule;
using namespace wb::schedule::testing;

namespace {

const char* kTransposed = R"(@I.ir_module
class Module:
    @T.prim_func(s_tir=True)
    def main(A: T.Buffer((16, 16), "float32"), C: T.Buffer((16, 16), "float32")):
        B = T.sblock_alloc_buffer((16, 16))
        for i, j in T.grid(16, 16):
            with T.sblock("B"):
                vi, vj = T.axis.remap("SS", [i, j])
                T.reads(A[vi, vj])
                T.writes(B[vj, vi])
                B[vj, vi] = A[vi, vj] * T.float32(2.0)
        for i, j in T.grid(16, 16):
            with T.sblock("C"):
                vi, vj = T.axis.remap("SS", [i, j])
                T.reads(B[vj, vi])
                T.writes(C[vi, vj])
                C[vi, vj] = B[vj, vi] + T.float32(1.0)
)";

const char* kTiled = R"(@I.ir_module
class Module:
    @T.prim_func(s_tir=True)
    def main(A: T.Buffer((16, 16), "float32"), C: T.Buffer((16, 16), "float32")):
        B = T.sblock_alloc_buffer((4, 4, 4, 4))
        for i, j in T.grid(16, 16):
            with T.sblock("B"):
                vi, vj = T.axis.remap("SS", [i, j])
                T.reads(A[vi, vj])
                T.writes(B[vi // 4, vj // 4, vi % 4, vj % 4])
                B[vi // 4, vj // 4, vi % 4, vj % 4] = A[vi, vj] * T.float32(2.0)
        for i, j in T.grid(16, 16):
            with T.sblock("C"):
                vi, vj = T.axis.remap("SS", [i, j])
                T.reads(B[vi // 4, vj // 4, vi % 4, vj % 4])
                T.writes(C[vi, vj])
                C[vi, vj] = B[vi // 4, vj // 4, vi % 4, vj % 4] + T.float32(1.0)
)";

const char* kParamFlattened = R"(@I.ir_module
class Module:
    @T.prim_func(s_tir=True)
    def main(A: T.Buffer((256,), "float32"), C: T.Buffer((16, 16), "float32")):
        B = T.sblock_alloc_buffer((16, 16))
        for i, j in T.grid(16, 16):
            with T.sblock("B"):
                vi, vj = T.axis.remap("SS", [i, j])
                T.reads(A[vi * 16 + vj])
                T.writes(B[vi, vj])
                B[vi, vj] = A[vi * 16 + vj] * T.float32(2.0)
        for i, j in T.grid(16, 16):
            with T.sblock("C"):
                vi, vj = T.axis.remap("SS", [i, j])
                T.reads(B[vi, vj])
                T.writes(C[vi, vj])
                C[vi, vj] = B[vi, vj] + T.float32(1.0)
)";

// --- pad_einsum ----------------------------------------------------------------------------------

const char* kSmallMatmul = R"(@I.ir_module
class Module:
    @T.prim_func(s_tir=True)
    def main(A: T.Buffer((7, 5), "float32"), B: T.Buffer((5, 7), "float32"), C: T.Buffer((7, 7), "float32")):
        for i, j, k in T.grid(7, 7, 5):
            with T.sblock("C"):
                vi, vj, vk = T.axis.remap("SSR", [i, j, k])
                T.reads(A[vi, vk], B[vk, vj])
                T.writes(C[vi, vj])
                with T.init():
                    C[vi, vj] = T.float32(0.0)
                C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj]
)";

const char* kSmallMatmulPadded = R"(@I.ir_module
class Module:
    @T.prim_func(s_tir=True)
    def main(A: T.Buffer((7, 5), "float32"), B: T.Buffer((5, 7), "float32"), C: T.Buffer((7, 7), "float32")):
        A_pad = T.sblock_alloc_buffer((8, 8))
        B_pad = T.sblock_alloc_buffer((8, 8))
        C_pad = T.sblock_alloc_buffer((8, 8))
        for i0, i1 in T.grid(8, 8):
            with T.sblock("A_pad"):
                v0, v1 = T.axis.remap("SS", [i0, i1])
                T.reads(A[v0, v1])
                T.writes(A_pad[v0, v1])
                A_pad[v0, v1] = T.if_then_else(v0 < 7 and v1 < 5, A[v0, v1], T.float32(0.0))
        for i0, i1 in T.grid(8, 8):
            with T.sblock("B_pad"):
                v0, v1 = T.axis.remap("SS", [i0, i1])
                T.reads(B[v0, v1])
                T.writes(B_pad[v0, v1])
                B_pad[v0, v1] = T.if_then_else(v0 < 5 and v1 < 7, B[v0, v1], T.float32(0.0))
        for i, j, k in T.grid(8, 8, 8):
            with T.sblock("C"):
                vi, vj, vk = T.axis.remap("SSR", [i, j, k])
                T.reads(A_pad[vi, vk], B_pad[vk, vj])
                T.writes(C_pad[vi, vj])
                with T.init():
                    C_pad[vi, vj] = T.float32(0.0)
                C_pad[vi, vj] = C_pad[vi, vj] + A_pad[vi, vk] * B_pad[vk, vj]
        for i0, i1 in T.grid(7, 7):
            with T.sblock("C_pad"):
                v0, v1 = T.axis.remap("SS", [i0, i1])
                T.reads(C_pad[v0, v1])
                T.writes(C[v0, v1])
                C[v0, v1] = C_pad[v0, v1]
)";

// j is already a multiple of 7: only what i or k index is padded.
const char* kSmallMatmulPaddedIK = R"(@I.ir_module
class Module:
    @T.prim_func(s_tir=True)
    def main(A: T.Buffer((7, 5), "float32"), B: T.Buffer((5, 7), "float32"), C: T.Buffer((7, 7), "float32")):
        A_pad = T.sblock_alloc_buffer((8, 6))
        B_pad = T.sblock_alloc_buffer((6, 7))
        C_pad = T.sblock_alloc_buffer((8, 7))
        for i0, i1 in T.grid(8, 6):
            with T.sblock("A_pad"):
                v0, v1 = T.axis.remap("SS", [i0, i1])
                T.reads(A[v0, v1])
                T.writes(A_pad[v0, v1])
                A_pad[v0, v1] = T.if_then_else(v0 < 7 and v1 < 5, A[v0, v1], T.float32(0.0))
        for i0, i1 in T.grid(6, 7):
            with T.sblock("B_pad"):
                v0, v1 = T.axis.remap("SS", [i0, i1])
                T.reads(B[v0, v1])
                T.writes(B_pad[v0, v1])
                B_pad[v0, v1] = T.if_then_else(v0 < 5, B[v0, v1], T.float32(0.0))
        for i, j, k in T.grid(8, 7, 6):
            with T.sblock("C"):
                vi, vj, vk = T.axis.remap("SSR", [i, j, k])
                T.reads(A_pad[vi, vk], B_pad[vk, vj])
                T.writes(C_pad[vi, vj])
                with T.init():
                    C_pad[vi, vj] = T.float32(0.0)
                C_pad[vi, vj] = C_pad[vi, vj] + A_pad[vi, vk] * B_pad[vk, vj]
        for i0, i1 in T.grid(7, 7):
            with T.sblock("C_pad"):
                v0, v1 = T.axis.remap("SS", [i0, i1])
                T.reads(C_pad[v0, v1])
                T.writes(C[v0, v1])
                C[v0, v1] = C_pad[v0, v1]
)";

const char* kVector = R"(@I.ir_module
class Module:
    @T.prim_func(s_tir=True)
    def main(A: T.Buffer((5,), "float32"), B: T.Buffer((5,), "float32")):
        for i in range(5):
            with T.sblock("B"):
                vi = T.axis.spatial(5, i)
                T.reads(A[vi])
                T.writes(B[vi])
                B[vi] = A[vi] + T.float32(1.0)
)";

const char* kVectorPadded = R"(@I.ir_module
class Module:
    @T.prim_func(s_tir=True)
    def main(A: T.Buffer((5,), "float32"), B: T.Buffer((5,), "float32")):
        A_pad = T.sblock_alloc_buffer((8,))
        B_pad = T.sblock_alloc_buffer((8,))
        for i0 in range(8):
            with T.sblock("A_pad"):
                v0 = T.axis.spatial(8, i0)
                T.reads(A[v0])
                T.writes(A_pad[v0])
                A_pad[v0] = T.if_then_else(v0 < 5, A[v0], T.float32(0.0))
        for i in range(8):
            with T.sblock("B"):
                vi = T.axis.spatial(8, i)
                T.reads(A_pad[vi])
                T.writes(B_pad[vi])
                B_pad[vi] = A_pad[vi] + T.float32(1.0)
        for i0 in range(5):
            with T.sblock("B_pad"):
                v0 = T.axis.spatial(5, i0)
                T.reads(B_pad[v0])
                T.writes(B[v0])
                B[v0] = B_pad[v0]
)";

const char* kStrided = R"(@I.ir_module
class Module:
    @T.prim_func(s_tir=True)
    def main(A: T.Buffer((10,), "float32"), B: T.Buffer((5,), "float32")):
        for i in range(5):
            with T.sblock("B"):
                vi = T.axis.spatial(5, i)
                T.reads(A[vi * 2])
                T.writes(B[vi])
                B[vi] = A[vi * 2]
)";


// --- transform_layout with padding ---------------------------------------------------------------

// B (14 elements) between two stages; laid out as 4 x 4 it gains two padding elements.
const char* kPadTwoStage = R"(@I.ir_module
class Module:
    @T.prim_func(s_tir=True)
    def main(A: T.Buffer((14,), "int32"), C: T.Buffer((14,), "int32")):
        B = T.sblock_alloc_buffer((14,), "int32")
        for i in range(14):
            with T.sblock("B"):
                vi = T.axis.spatial(14, i)
                T.reads(A[vi])
                T.writes(B[vi])
                B[vi] = A[vi] + 1
        for i in range(14):
            with T.sblock("C"):
                vi = T.axis.spatial(14, i)
                T.reads(B[vi])
                T.writes(C[vi])
                C[vi] = B[vi] * 2
)";

// The producer sweeps B row-major: it is rebuilt as a sweep of the 4 x 4 layout that stores the
// pad value in the padding.
const char* kPadReplaced = R"(@I.ir_module
class Module:
    @T.prim_func(s_tir=True)
    def main(A: T.Buffer((14,), "int32"), C: T.Buffer((14,), "int32")):
        B = T.sblock_alloc_buffer((4, 4), "int32")
        for axis0, axis1 in T.grid(4, 4):
            with T.sblock("B"):
                v_axis0, v_axis1 = T.axis.remap("SS", [axis0, axis1])
                T.reads(A[v_axis0 * 4 + v_axis1])
                T.writes(B[v_axis0, v_axis1])
                B[v_axis0, v_axis1] = T.if_then_else(v_axis0 == 3 and 2 <= v_axis1, 7, A[v_axis0 * 4 + v_axis1] + 1)
        for i in range(14):
            with T.sblock("C"):
                vi = T.axis.spatial(14, i)
                T.reads(B[vi // 4, vi % 4])
                T.writes(C[vi])
                C[vi] = B[vi // 4, vi % 4] * 2
)";

// The producer also writes D, so it cannot sweep the padding: a block after it fills it.
const char* kPadSideEffect = R"(@I.ir_module
class Module:
    @T.prim_func(s_tir=True)
    def main(A: T.Buffer((14,), "int32"), C: T.Buffer((14,), "int32"), D: T.Buffer((14,), "int32")):
        B = T.sblock_alloc_buffer((14,), "int32")
        for i in range(14):
            with T.sblock("B"):
                vi = T.axis.spatial(14, i)
                T.reads(A[vi])
                T.writes(B[vi], D[vi])
                B[vi] = A[vi] + 1
                D[vi] = A[vi]
        for i in range(14):
            with T.sblock("C"):
                vi = T.axis.spatial(14, i)
                T.reads(B[vi])
                T.writes(C[vi])
                C[vi] = B[vi] * 2
)";

const char* kPadEpilogue = R"(@I.ir_module
class Module:
    @T.prim_func(s_tir=True)
    def main(A: T.Buffer((14,), "int32"), C: T.Buffer((14,), "int32"), D: T.Buffer((14,), "int32")):
        B = T.sblock_alloc_buffer((4, 4), "int32")
        for i in range(14):
            with T.sblock("B"):
                vi = T.axis.spatial(14, i)
                T.reads(A[vi])
                T.writes(B[vi // 4, vi % 4], D[vi])
                B[vi // 4, vi % 4] = A[vi] + 1
                D[vi] = A[vi]
        for axis0, axis1 in T.grid(4, 4):
            with T.sblock("buffer_B_padding"):
                v_axis0, v_axis1 = T.axis.remap("SS", [axis0, axis1])
                T.where(axis0 == 3 and 2 <= axis1)
                T.reads()
                T.writes(B[v_axis0, v_axis1])
                B[v_axis0, v_axis1] = v_axis0 + v_axis1
        for i in range(14):
            with T.sblock("C"):
                vi = T.axis.spatial(14, i)
                T.reads(B[vi // 4, vi % 4])
                T.writes(C[vi])
                C[vi] = B[vi // 4, vi % 4] * 2
)";

// An input laid out with padding: the function assumes the padding holds the pad value.
const char* kPadInputAssumed = R"(@I.ir_module
class Module:
    @T.prim_func(s_tir=True)
    def main(A: T.Buffer((4, 4), "int32"), C: T.Buffer((14,), "int32")):
        B = T.sblock_alloc_buffer((14,), "int32")
        for axis0, axis1 in T.grid(4, 4):
            with T.sblock("buffer_A_assumptions"):
                v_axis0, v_axis1 = T.axis.remap("SS", [axis0, axis1])
                T.reads(A[v_axis0, v_axis1])
                T.writes()
                T.evaluate(T.assume(not (v_axis0 == 3 and 2 <= v_axis1) or A[v_axis0, v_axis1] == 0))
        for i in range(14):
            with T.sblock("B"):
                vi = T.axis.spatial(14, i)
                T.reads(A[vi // 4, vi % 4])
                T.writes(B[vi])
                B[vi] = A[vi // 4, vi % 4] + 1
        for i in range(14):
            with T.sblock("C"):
                vi = T.axis.spatial(14, i)
                T.reads(B[vi])
                T.writes(C[vi])
                C[vi] = B[vi] * 2
)";

tir::IndexMap Map(const std::string& text) {
  std::string error;
  size_t offset = 0;
  tir::IndexMap m = tir::ParseIndexMapLambda(text, ir::DataType::Int(32), &error, &offset);
  if (!m.defined()) qFatal("bad index map in test: %s", error.c_str());
  return m;
}

}  // namespace

class TestScheduleLayout : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  void transposeIntermediate() {
    ir::IRModule before = ParseModule(kTwoStage);
    Schedule sch(before);
    SBlockRV b = sch.GetSBlock("B");
    sch.TransformLayout(b, std::pair<std::string, int64_t>{"write", 0}, Map("lambda i, j: (j, i)"));
    ExpectModule(before, sch.mod(), kTransposed);
    QCOMPARE(sch.trace().AsPython(),
             std::string("b0 = sch.get_sblock(name=\"B\", func_name=\"main\")\n"
                         "sch.transform_layout(block=b0, buffer=(\"write\", 0), index_map=lambda "
                         "i, j: (j, i), pad_value=None, assume_injective_transform=False)\n"));
    ExpectReplay(before, sch);
  }

  void tileIntermediateFromReader() {
    // The buffer named through the block that reads it: every access in the function moves.
    ir::IRModule before = ParseModule(kTwoStage);
    Schedule sch(before);
    SBlockRV c = sch.GetSBlock("C");
    sch.TransformLayout(c, std::string("B"), Map("lambda i, j: (i // 4, j // 4, i % 4, j % 4)"));
    ExpectModule(before, sch.mod(), kTiled);
    QVERIFY(sch.trace().AsPython().find("buffer=(\"read\", 0)") != std::string::npos);
    ExpectReplay(before, sch);
  }

  void flattenParameter() {
    ir::IRModule before = ParseModule(kTwoStage);
    Schedule sch(before);
    sch.TransformLayout(sch.GetSBlock("B"), std::pair<std::string, int64_t>{"read", 0},
                        Map("lambda i, j: (i * 16 + j,)"));
    // The signature changes, so the check is structural only.
    ir::IRModule expected = ParseModule(kParamFlattened);
    if (!ir::StructuralEqual(sch.mod(), expected)) {
      qWarning("got:\n%s", script::PrintModule(sch.mod()).c_str());
      QFAIL("flattened parameter differs");
    }
    ExpectReplay(before, sch);
  }

  void layoutErrors() {
    ir::IRModule before = ParseModule(kTwoStage);
    Schedule sch(before);
    SBlockRV b = sch.GetSBlock("B");
    using Spec = std::pair<std::string, int64_t>;
    QCOMPARE(FailsCleanly(sch, [&] {
               sch.TransformLayout(b, Spec{"write", 0}, Map("lambda i, j: (i // 3, j, i % 3)"));
             }),
             Rendered("transform_layout",
                      "The transformation lambda i, j: (i // 3, j, i % 3) applied on buffer B of "
                      "shape [16, 16] would result in shape [6, 16, 3].  However, this would "
                      "introduce padding wherever ((axis0 == 5) and (1 <= axis2)) is true."));
    QCOMPARE(FailsCleanly(sch, [&] { sch.TransformLayout(b, Spec{"write", 0}, Map("lambda i: (i,)")); }),
             Rendered("transform_layout",
                      "The index map takes 1 indices, but the buffer B has 2 dimensions"));
    QCOMPARE(FailsCleanly(sch, [&] {
               sch.TransformLayout(b, Spec{"read", 3}, Map("lambda i, j: (j, i)"));
             }),
             Rendered("transform_layout",
                      "The block `B` has 1 read regions, so `buffer_index` is required to be in "
                      "[0, 1). However, the input `buffer_index` is 3, which is out of the "
                      "expected range."));
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument,
                             sch.TransformLayout(b, std::string("Z"), Map("lambda i, j: (j, i)")));
  }

  void padEinsumMatmul() {
    ir::IRModule before = ParseModule(kSmallMatmul);
    Schedule sch(before);
    SBlockRV c = sch.GetSBlock("C");
    sch.PadEinsum(c, {8, 8, 8});
    ExpectModule(before, sch.mod(), kSmallMatmulPadded);
    QCOMPARE(sch.Get(c)->name_hint, std::string("C"));
    QVERIFY(sch.trace().AsPython().find("sch.pad_einsum(block=b0, padding=[8, 8, 8])\n") !=
            std::string::npos);
    ExpectReplay(before, sch);
    // The padded block schedules like any other: its loops are multiples of 8 now.
    std::vector<LoopRV> loops = sch.GetLoops(c);
    sch.Split(loops[0], {std::nullopt, 4});
    ExpectSameMeaning(before, sch.mod());
  }

  void padEinsumOnlyWhatNeedsIt() {
    ir::IRModule before = ParseModule(kSmallMatmul);
    Schedule sch(before);
    sch.PadEinsum(sch.GetSBlock("C"), {4, 7, 3});
    ExpectModule(before, sch.mod(), kSmallMatmulPaddedIK);
    ExpectReplay(before, sch);
  }

  void padEinsumVector() {
    ir::IRModule before = ParseModule(kVector);
    Schedule sch(before);
    DiagnosticList diags = ApplyRecipe(sch, "sch.pad_einsum(\"B\", [8])\n");
    QVERIFY2(diags.empty(), diags.empty() ? "" : diags[0].message.c_str());
    ExpectModule(before, sch.mod(), kVectorPadded);
  }

  // The copy out of the padded buffer covers only the original rows: inlined into the padded
  // producer (reverse_compute_inline), the store is guarded by that smaller domain as a
  // predicate instead of writing past the end of the output, and the guard survives a later
  // reverse_compute_at that rebuilds the block's loops.
  void padEinsumCopyBackReverseInlined() {
    ir::IRModule before = ParseModule(kVector);
    Schedule sch(before);
    sch.PadEinsum(sch.GetSBlock("B"), {8});
    std::vector<SBlockRV> copy = sch.GetConsumers(sch.GetSBlock("B"));
    QCOMPARE(copy.size(), size_t(1));
    sch.ReverseComputeInline(copy[0]);
    ExpectSameMeaning(before, sch.mod());
    ExpectReplay(before, sch);
    // The matmul's padded result through a write cache: the copy-back inlined into the cache's
    // write-back, whose domain is the padded one.
    ir::IRModule mm = ParseModule(kSmallMatmul);
    Schedule s2(mm);
    SBlockRV c = s2.GetSBlock("C");
    s2.PadEinsum(c, {8, 8, 8});
    std::vector<SBlockRV> back = s2.GetConsumers(c);
    QCOMPARE(back.size(), size_t(1));
    SBlockRV write_back = s2.CacheWrite(c, 0, "local");
    s2.ReverseComputeInline(back[0]);
    ExpectSameMeaning(mm, s2.mod());
    ExpectReplay(mm, s2);
    // ... and the write-back, predicated now, computed at a tile of the matmul.
    std::vector<LoopRV> loops = s2.GetLoops(c);
    std::vector<LoopRV> is = s2.Split(loops[0], {std::nullopt, 4});
    std::vector<LoopRV> js = s2.Split(loops[1], {std::nullopt, 4});
    s2.Reorder({is[0], js[0], is[1], js[1]});
    s2.ReverseComputeAt(write_back, js[0]);
    ExpectSameMeaning(mm, s2.mod());
    // The write-back keeps the padded domain (8 x 8, as TVM) and carries its guard to the new
    // loops: `T.where(i_0 * 4 + ax0 < 7 and j_0 * 4 + ax1 < 7)`.
    QCOMPARE(*tir::AsConstInt(s2.Get(write_back)->iter_vars[0]->dom->extent), int64_t(8));
    s2.DecomposeReduction(c, loops[2]);
    ExpectSameMeaning(mm, s2.mod());
    ExpectReplay(mm, s2);
  }

  void padEinsumErrors() {
    ir::IRModule before = ParseModule(kSmallMatmul);
    Schedule sch(before);
    SBlockRV c = sch.GetSBlock("C");
    QCOMPARE(FailsCleanly(sch, [&] { sch.PadEinsum(c, {8, 8}); }),
             Rendered("pad-einsum", "The padding for the block `C` are invalid. It should be a "
                                    "list of 3 positive integers. Got [8, 8]"));
    QCOMPARE(FailsCleanly(sch, [&] { sch.PadEinsum(c, {8, 0, 8}); }),
             Rendered("pad-einsum", "The padding for the block `C` are invalid. It should be a "
                                    "list of 3 positive integers. Got [8, 0, 8]"));
    ir::IRModule strided = ParseModule(kStrided);
    Schedule s2(strided);
    SBlockRV b = s2.GetSBlock("B");
    QCOMPARE(FailsCleanly(s2, [&] { s2.PadEinsum(b, {8}); }),
             Rendered("pad-einsum", "The block `B` not a computation of Einsum pattern."));
  }

  // A pad_value with a map that pads nothing changes nothing, as in TVM; it must have the
  // buffer's dtype (a Python int on a float buffer stays int32); a map that would pad is refused
  // with one too, padding not being implemented.
  void layoutPadValue() {
    ir::IRModule before = ParseModule(kTwoStage);
    Schedule sch(before);
    DiagnosticList diags = ApplyRecipe(
        sch, "sch.transform_layout(\"B\", (\"write\", 0), lambda i, j: (j, i), pad_value=1.5)\n");
    QVERIFY2(diags.empty(), diags.empty() ? "" : diags[0].message.c_str());
    ExpectModule(before, sch.mod(), kTransposed);
    QVERIFY2(sch.trace().AsPython().find("pad_value=T.float32(1.5), ") != std::string::npos,
             sch.trace().AsPython().c_str());
    ExpectReplay(before, sch);
    Schedule typed(before);
    SBlockRV b = typed.GetSBlock("B");
    using Spec = std::pair<std::string, int64_t>;
    QCOMPARE(FailsCleanly(typed, [&] {
               typed.TransformLayout(b, Spec{"write", 0}, Map("lambda i, j: (j, i)"),
                                     tir::make_const(ir::DataType::Int(32), int64_t(0)));
             }),
             Rendered("transform_layout",
                      "Buffer B has elements of type float32, but the transformation fills "
                      "padding with 0, which is of type int32"));
    diags = ApplyRecipe(typed, "sch.transform_layout(\"B\", \"B\", lambda i, j: (j, i), pad_value=0)\n");
    QCOMPARE(diags.size(), size_t(1));
    QVERIFY2(diags[0].message.find("fills padding with 0, which is of type int32") != std::string::npos,
             diags[0].message.c_str());
    QVERIFY(typed.mod().same_as(before));
    // A map that pads, with a pad value: 16 rows become 6 groups of 3.
    typed.TransformLayout(b, Spec{"write", 0}, Map("lambda i, j: (i // 3, j, i % 3)"),
                          tir::make_const(ir::DataType::Float(32), 0.0));
    ExpectSameMeaning(before, typed.mod());
    ExpectReplay(before, typed);
  }

  void layoutPaddingReplacesRowMajorWriter() {
    ir::IRModule before = ParseModule(kPadTwoStage);
    Schedule sch(before);
    Apply(sch, "sch.transform_layout(\"B\", (\"write\", 0), lambda i: (i // 4, i % 4), pad_value=7)\n");
    ExpectModule(before, sch.mod(), kPadReplaced);
    QVERIFY2(sch.trace().AsPython().find("pad_value=7, ") != std::string::npos,
             sch.trace().AsPython().c_str());
    ExpectReplay(before, sch);
  }

  void layoutPaddingEpilogueAfterWriter() {
    // The pad value computed from the new indices, as a lambda.
    ir::IRModule before = ParseModule(kPadSideEffect);
    Schedule sch(before);
    Apply(sch, "sch.transform_layout(\"C\", \"B\", lambda i: (i // 4, i % 4), "
               "pad_value=lambda i, j: i + j)\n");
    ExpectModule(before, sch.mod(), kPadEpilogue);
    QVERIFY2(sch.trace().AsPython().find("pad_value=lambda i, j: (i + j,), ") != std::string::npos,
             sch.trace().AsPython().c_str());
    ExpectReplay(before, sch);
  }

  void layoutPaddingInputAssumed() {
    ir::IRModule before = ParseModule(kPadTwoStage);
    Schedule sch(before);
    Apply(sch, "sch.transform_layout(\"B\", \"A\", lambda i: (i // 4, i % 4), pad_value=0)\n");
    // The signature changes, so the check is structural only.
    ir::IRModule expected = ParseModule(kPadInputAssumed);
    if (!ir::StructuralEqual(sch.mod(), expected)) {
      qWarning("got:\n%s", script::PrintModule(sch.mod()).c_str());
      QFAIL("padded input differs");
    }
    ExpectReplay(before, sch);
  }

  void layoutPaddingErrors() {
    ir::IRModule before = ParseModule(kPadTwoStage);
    Schedule sch(before);
    SBlockRV b = sch.GetSBlock("B");
    using Spec = std::pair<std::string, int64_t>;
    QCOMPARE(FailsCleanly(sch, [&] {
               sch.TransformLayout(b, Spec{"write", 0}, Map("lambda i: (i // 4, i % 4)"));
             }),
             Rendered("transform_layout",
                      "The transformation lambda i: (i // 4, i % 4) applied on buffer B of shape "
                      "[14] would result in shape [4, 4].  However, this would introduce padding "
                      "wherever ((axis0 == 3) and (2 <= axis1)) is true."));
    DiagnosticList diags = ApplyRecipe(
        sch, "sch.transform_layout(\"B\", \"B\", lambda i: (i // 4, i % 4), pad_value=lambda i, j: (i, j))\n");
    QCOMPARE(diags.size(), size_t(1));
    QVERIFY2(diags[0].message.find("which has 2 outputs, but should only have one output") !=
                 std::string::npos,
             diags[0].message.c_str());
    QVERIFY(sch.mod().same_as(before));
    // Assumed injective: the padding is left alone and the loops keep their extent.
    Schedule assumed(before);
    Apply(assumed, "sch.transform_layout(\"B\", \"B\", lambda i: (i // 4, i % 4), "
                   "assume_injective_transform=True)\n");
    ExpectSameMeaning(before, assumed.mod());
  }

  void layoutFromRecipe() {
    ir::IRModule before = ParseModule(kTwoStage);
    Schedule sch(before);
    DiagnosticList diags = ApplyRecipe(
        sch, "sch.transform_layout(\"B\", (\"write\", 0), lambda i, j: (j, i))\n");
    QVERIFY2(diags.empty(), diags.empty() ? "" : diags[0].message.c_str());
    ExpectModule(before, sch.mod(), kTransposed);
    Schedule named(before);
    diags = ApplyRecipe(named,
                        "sch.transform_layout(block=\"C\", buffer=\"B\", index_map=lambda a, b: "
                        "(a // 4, b // 4, a % 4, b % 4))\n");
    QVERIFY2(diags.empty(), diags.empty() ? "" : diags[0].message.c_str());
    ExpectModule(before, named.mod(), kTiled);
    Schedule bad(before);
    diags = ApplyRecipe(bad, "sch.transform_layout(\"B\", \"B\", lambda i, j: (j, k))\n");
    QCOMPARE(diags.size(), size_t(1));
    QVERIFY2(diags[0].message.find("`k` is not a parameter of the lambda") != std::string::npos,
             diags[0].message.c_str());
  }
};

QTEST_APPLESS_MAIN(TestScheduleLayout)
#include "tst_schedule_layout.moc"
