// Tests of compute_inline and reverse_compute_inline: results compared structurally with
// expected TVMScript and run through the interpreter against the original, TVM's error cases
// with their messages, and replay from the trace.

#include <QTest>
#include <string>

#include "schedule_test_util.h"

using namespace wb;
using namespace wb::schedule;
using namespace wb::schedule::testing;

namespace {

const char* kTwoStageInlined = R"(@I.ir_module
class Module:
    @T.prim_func(s_tir=True)
    def main(A: T.Buffer((16, 16), "float32"), C: T.Buffer((16, 16), "float32")):
        for i, j in T.grid(16, 16):
            with T.sblock("C"):
                vi, vj = T.axis.remap("SS", [i, j])
                T.reads(A[vi, vj])
                T.writes(C[vi, vj])
                C[vi, vj] = A[vi, vj] * T.float32(2.0) + T.float32(1.0)
)";

const char* kTwoStageReverseInlined = R"(@I.ir_module
class Module:
    @T.prim_func(s_tir=True)
    def main(A: T.Buffer((16, 16), "float32"), C: T.Buffer((16, 16), "float32")):
        for i, j in T.grid(16, 16):
            with T.sblock("B"):
                vi, vj = T.axis.remap("SS", [i, j])
                T.reads(A[vi, vj])
                T.writes(C[vi, vj])
                C[vi, vj] = A[vi, vj] * T.float32(2.0) + T.float32(1.0)
)";

// The consumer reads B transposed and twice.
const char* kTransposed = R"(@I.ir_module
class Module:
    @T.prim_func(s_tir=True)
    def main(A: T.Buffer((8, 16), "float32"), C: T.Buffer((16, 8), "float32")):
        B = T.sblock_alloc_buffer((8, 16))
        for i, j in T.grid(8, 16):
            with T.sblock("B"):
                vi, vj = T.axis.remap("SS", [i, j])
                T.reads(A[vi, vj])
                T.writes(B[vi, vj])
                B[vi, vj] = A[vi, vj] + T.float32(3.0)
        for i, j in T.grid(16, 8):
            with T.sblock("C"):
                vi, vj = T.axis.remap("SS", [i, j])
                T.reads(B[vj, vi])
                T.writes(C[vi, vj])
                C[vi, vj] = B[vj, vi] * B[vj, vi]
)";

const char* kTransposedInlined = R"(@I.ir_module
class Module:
    @T.prim_func(s_tir=True)
    def main(A: T.Buffer((8, 16), "float32"), C: T.Buffer((16, 8), "float32")):
        for i, j in T.grid(16, 8):
            with T.sblock("C"):
                vi, vj = T.axis.remap("SS", [i, j])
                T.reads(A[vj, vi])
                T.writes(C[vi, vj])
                C[vi, vj] = (A[vj, vi] + T.float32(3.0)) * (A[vj, vi] + T.float32(3.0))
)";

const char* kTransposedReverseInlined = R"(@I.ir_module
class Module:
    @T.prim_func(s_tir=True)
    def main(A: T.Buffer((8, 16), "float32"), C: T.Buffer((16, 8), "float32")):
        for i, j in T.grid(8, 16):
            with T.sblock("B"):
                vi, vj = T.axis.remap("SS", [i, j])
                T.reads(A[vi, vj])
                T.writes(C[vj, vi])
                C[vj, vi] = (A[vi, vj] + T.float32(3.0)) * (A[vi, vj] + T.float32(3.0))
)";

// A chain of three elementwise stages and a consumer that reads only part of its producer.
const char* kChain = R"(@I.ir_module
class Module:
    @T.prim_func(s_tir=True)
    def main(A: T.Buffer((16,), "float32"), D: T.Buffer((8,), "float32")):
        B = T.sblock_alloc_buffer((16,))
        C = T.sblock_alloc_buffer((16,))
        for i in range(16):
            with T.sblock("B"):
                vi = T.axis.spatial(16, i)
                T.reads(A[vi])
                T.writes(B[vi])
                B[vi] = A[vi] + T.float32(1.0)
        for i in range(16):
            with T.sblock("C"):
                vi = T.axis.spatial(16, i)
                T.reads(B[vi])
                T.writes(C[vi])
                C[vi] = B[vi] * T.float32(2.0)
        for i in range(8):
            with T.sblock("D"):
                vi = T.axis.spatial(8, i)
                T.reads(C[vi])
                T.writes(D[vi])
                D[vi] = C[vi] - T.float32(5.0)
)";

const char* kChainMiddleInlined = R"(@I.ir_module
class Module:
    @T.prim_func(s_tir=True)
    def main(A: T.Buffer((16,), "float32"), D: T.Buffer((8,), "float32")):
        B = T.sblock_alloc_buffer((16,))
        for i in range(16):
            with T.sblock("B"):
                vi = T.axis.spatial(16, i)
                T.reads(A[vi])
                T.writes(B[vi])
                B[vi] = A[vi] + T.float32(1.0)
        for i in range(8):
            with T.sblock("D"):
                vi = T.axis.spatial(8, i)
                T.reads(B[vi])
                T.writes(D[vi])
                D[vi] = B[vi] * T.float32(2.0) - T.float32(5.0)
)";

// D only needs C[0:8]: the folded store is guarded to the consumer's domain.
const char* kChainLastReverseInlined = R"(@I.ir_module
class Module:
    @T.prim_func(s_tir=True)
    def main(A: T.Buffer((16,), "float32"), D: T.Buffer((8,), "float32")):
        B = T.sblock_alloc_buffer((16,))
        for i in range(16):
            with T.sblock("B"):
                vi = T.axis.spatial(16, i)
                T.reads(A[vi])
                T.writes(B[vi])
                B[vi] = A[vi] + T.float32(1.0)
        for i in range(16):
            with T.sblock("C"):
                vi = T.axis.spatial(16, i)
                T.where(i < 8)
                T.reads(B[vi])
                T.writes(D[vi])
                D[vi] = B[vi] * T.float32(2.0) - T.float32(5.0)
)";

const char* kMatmulRelu = R"(@I.ir_module
class Module:
    @T.prim_func(s_tir=True)
    def main(A: T.Buffer((8, 8), "float32"), B: T.Buffer((8, 8), "float32"), D: T.Buffer((8, 8), "float32")):
        C = T.sblock_alloc_buffer((8, 8))
        for i, j, k in T.grid(8, 8, 8):
            with T.sblock("C"):
                vi, vj, vk = T.axis.remap("SSR", [i, j, k])
                T.reads(A[vi, vk], B[vk, vj])
                T.writes(C[vi, vj])
                with T.init():
                    C[vi, vj] = T.float32(0.0)
                C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj]
        for i, j in T.grid(8, 8):
            with T.sblock("D"):
                vi, vj = T.axis.remap("SS", [i, j])
                T.reads(C[vi, vj])
                T.writes(D[vi, vj])
                D[vi, vj] = T.max(C[vi, vj], T.float32(0.0))
)";


// The producer computes one row more than C uses, and already skips it with a predicate.
const char* kPredicatedProducer = R"(@I.ir_module
class Module:
    @T.prim_func(s_tir=True)
    def main(A: T.Buffer((128,), "float32"), C: T.Buffer((127,), "float32")):
        B = T.sblock_alloc_buffer((128,))
        for i in range(128):
            with T.sblock("B"):
                vi = T.axis.spatial(128, i)
                T.where(i < 127)
                T.reads(A[vi])
                T.writes(B[vi])
                B[vi] = A[vi] * T.float32(2.0)
        for i in range(127):
            with T.sblock("C"):
                vi = T.axis.spatial(127, i)
                T.reads(B[vi])
                T.writes(C[vi])
                C[vi] = B[vi] + T.float32(1.0)
)";

// The guard C's domain asks for is the predicate the producer had: it replaces it.
const char* kPredicatedProducerInlined = R"(@I.ir_module
class Module:
    @T.prim_func(s_tir=True)
    def main(A: T.Buffer((128,), "float32"), C: T.Buffer((127,), "float32")):
        for i in range(128):
            with T.sblock("B"):
                vi = T.axis.spatial(128, i)
                T.where(i < 127)
                T.reads(A[vi])
                T.writes(C[vi])
                C[vi] = A[vi] * T.float32(2.0) + T.float32(1.0)
)";

}  // namespace

// A consumer that reads the producer's buffer through an affine map of its iterators: C's
// 4 x 8 x 8 points flatten to B's 16 x 16 rows (a reshape).
constexpr const char* kReshapeConsumer = R"(@I.ir_module
class Module:
    @T.prim_func(s_tir=True)
    def main(A: T.Buffer((16, 16), "float32"), C: T.Buffer((4, 8, 8), "float32")):
        B = T.sblock_alloc_buffer((16, 16))
        for i, j in T.grid(16, 16):
            with T.sblock("B"):
                vi, vj = T.axis.remap("SS", [i, j])
                B[vi, vj] = A[vi, vj] + T.float32(3.0)
        for i, j, k in T.grid(4, 8, 8):
            with T.sblock("C"):
                vi, vj, vk = T.axis.remap("SSS", [i, j, k])
                C[vi, vj, vk] = B[(vi * 64 + vj * 8 + vk) // 16, (vi * 64 + vj * 8 + vk) % 16] * T.float32(0.5)
)";

// TVM's inverse of the flattening, unsimplified: the fused index `vj + vi * 16` split back into
// C's three iterators; the region stays as the store writes it.
constexpr const char* kReshapeConsumerInlined = R"(@I.ir_module
class Module:
    @T.prim_func(s_tir=True)
    def main(A: T.Buffer((16, 16), "float32"), C: T.Buffer((4, 8, 8), "float32")):
        for i, j in T.grid(16, 16):
            with T.sblock("B"):
                vi, vj = T.axis.remap("SS", [i, j])
                T.reads(A[vi, vj])
                T.writes(C[(vj + vi * 16) // 64, (vj + vi * 16) // 8 % 8, (vj + vi * 16) % 8])
                C[(vj + vi * 16) // 64, (vj + vi * 16) // 8 % 8, (vj + vi * 16) % 8] = (A[vi, vj] + T.float32(3.0)) * T.float32(0.5)
)";

// A unit iterator the load does not use (vu) takes its domain's minimum; a second input D is
// read through the same iterators.
constexpr const char* kUnitIterConsumer = R"(@I.ir_module
class Module:
    @T.prim_func(s_tir=True)
    def main(A: T.Buffer((32, 8), "float32"), D: T.Buffer((4, 8, 1), "float32"), C: T.Buffer((1, 4, 8, 8), "float32")):
        B = T.sblock_alloc_buffer((32, 8))
        for i, j in T.grid(32, 8):
            with T.sblock("B"):
                vi, vj = T.axis.remap("SS", [i, j])
                B[vi, vj] = A[vi, vj] * T.float32(2.0)
        for u, i, j, k in T.grid(1, 4, 8, 8):
            with T.sblock("C"):
                vu, vi, vj, vk = T.axis.remap("SSSS", [u, i, j, k])
                C[vu, vi, vj, vk] = B[vi * 8 + vj, vk] - D[vi, vj, vu]
)";

constexpr const char* kUnitIterConsumerInlined = R"(@I.ir_module
class Module:
    @T.prim_func(s_tir=True)
    def main(A: T.Buffer((32, 8), "float32"), D: T.Buffer((4, 8, 1), "float32"), C: T.Buffer((1, 4, 8, 8), "float32")):
        for i, j in T.grid(32, 8):
            with T.sblock("B"):
                vi, vj = T.axis.remap("SS", [i, j])
                T.reads(A[vi, vj], D[vi // 8, vi % 8, 0])
                T.writes(C[0, vi // 8, vi % 8, vj])
                C[0, vi // 8, vi % 8, vj] = A[vi, vj] * T.float32(2.0) - D[vi // 8, vi % 8, 0]
)";

// The load's indices are not an affine map of the consumer's iterators (a product of two).
constexpr const char* kNonAffineConsumer = R"(@I.ir_module
class Module:
    @T.prim_func(s_tir=True)
    def main(A: T.Buffer((16, 16), "float32"), C: T.Buffer((4, 4), "float32")):
        B = T.sblock_alloc_buffer((16, 16))
        for i, j in T.grid(16, 16):
            with T.sblock("B"):
                vi, vj = T.axis.remap("SS", [i, j])
                B[vi, vj] = A[vi, vj] + T.float32(1.0)
        for i, j in T.grid(4, 4):
            with T.sblock("C"):
                vi, vj = T.axis.remap("SS", [i, j])
                C[vi, vj] = B[vi * vj, vj]
)";

// A sliding window `B[vi + vk]`: two iterators add up in one index, which no inverse splits.
constexpr const char* kWindowConsumer = R"(@I.ir_module
class Module:
    @T.prim_func(s_tir=True)
    def main(A: T.Buffer((16,), "float32"), C: T.Buffer((14, 3), "float32")):
        B = T.sblock_alloc_buffer((16,))
        for i in range(16):
            with T.sblock("B"):
                vi = T.axis.remap("S", [i])
                B[vi] = A[vi] * T.float32(2.0)
        for i, k in T.grid(14, 3):
            with T.sblock("C"):
                vi, vk = T.axis.remap("SS", [i, k])
                C[vi, vk] = B[vi + vk]
)";

// Two loads of B with different indices: not one map to invert.
constexpr const char* kTwoLoadsConsumer = R"(@I.ir_module
class Module:
    @T.prim_func(s_tir=True)
    def main(A: T.Buffer((16,), "float32"), C: T.Buffer((8,), "float32")):
        B = T.sblock_alloc_buffer((16,))
        for i in range(16):
            with T.sblock("B"):
                vi = T.axis.remap("S", [i])
                B[vi] = A[vi] * T.float32(2.0)
        for i in range(8):
            with T.sblock("C"):
                vi = T.axis.remap("S", [i])
                C[vi] = B[vi * 2] + B[vi * 2 + 1]
)";

class TestScheduleInline : public QObject {
  Q_OBJECT
 private Q_SLOTS:
  void computeInline() {
    ir::IRModule mod = ParseModule(kTwoStage);
    Schedule sch(mod);
    SBlockRV b = sch.GetSBlock("B");
    SBlockRV c = sch.GetSBlock("C");
    sch.ComputeInline(b);
    ExpectModule(mod, sch.mod(), kTwoStageInlined);
    QCOMPARE(sch.Get(c)->name_hint, std::string("C"));
    try {
      sch.Get(b);
      QFAIL("the inlined block's handle still resolves");
    } catch (const std::invalid_argument& e) {
      QCOMPARE(std::string(e.what()), std::string("The block no longer exists in the IRModule"));
    }
    QVERIFY(sch.trace().AsPython().find("sch.compute_inline(block=b0)\n") != std::string::npos);
    ExpectReplay(mod, sch);
  }

  void computeInlineTransposed() {
    ir::IRModule mod = ParseModule(kTransposed);
    Schedule sch(mod);
    sch.ComputeInline(sch.GetSBlock("B"));
    ExpectModule(mod, sch.mod(), kTransposedInlined);
    ExpectReplay(mod, sch);
  }

  void computeInlineChain() {
    ir::IRModule mod = ParseModule(kChain);
    Schedule sch(mod);
    sch.ComputeInline(sch.GetSBlock("C"));
    ExpectModule(mod, sch.mod(), kChainMiddleInlined);
    // Then the first stage too, from a recipe as users write it.
    DiagnosticList diags = ApplyRecipe(sch, "sch.compute_inline(\"B\")\n");
    QVERIFY2(diags.empty(), diags.empty() ? "" : diags[0].message.c_str());
    ExpectSameMeaning(mod, sch.mod());
    ExpectReplay(mod, sch);
  }

  void computeInlineErrors() {
    Schedule sch(ParseModule(kTwoStage));
    SBlockRV c = sch.GetSBlock("C");
    QCOMPARE(FailsCleanly(sch, [&] { sch.ComputeInline(c); }),
             Rendered("compute-inline", "The block `C` is an output block: it writes a buffer "
                                        "that its scope does not allocate"));
    Schedule mm(ParseModule(kMatmulRelu));
    SBlockRV mc = mm.GetSBlock("C");
    QCOMPARE(FailsCleanly(mm, [&] { mm.ComputeInline(mc); }),
             Rendered("compute-inline", "The block has init statement: `C`"));
    // The only leaf of its scope cannot be removed.
    std::string single = kTwoStage;
    single = single.substr(0, single.find("        for i, j in T.grid(16, 16):\n            with "
                                          "T.sblock(\"C\")"));
    Schedule leaf(ParseModule(single));
    SBlockRV lb = leaf.GetSBlock("B");
    QCOMPARE(FailsCleanly(leaf, [&] { leaf.ComputeInline(lb); }),
             Rendered("compute-inline", "The block `B` is the only leaf in the scope `root`, "
                                        "which cannot be removed; Otherwise the scope will be "
                                        "empty."));
    // A body that is not `B[v...] = f(v...)`.
    std::string shifted = kChain;
    shifted.replace(shifted.find("B[vi] = A[vi] + T.float32(1.0)"), 30,
                    "B[15 - vi] = A[vi] + T.float32(1.0)");
    shifted.replace(shifted.find("T.writes(B[vi])"), 15, "T.writes(B[15 - vi])");
    Schedule body(ParseModule(shifted));
    SBlockRV bb = body.GetSBlock("B");
    QVERIFY(FailsCleanly(body, [&] {
              body.ComputeInline(bb);
            }).find("Error message: The body of the inlined block should be in form of") !=
            std::string::npos);
  }

  void reverseComputeInline() {
    ir::IRModule mod = ParseModule(kTwoStage);
    Schedule sch(mod);
    SBlockRV b = sch.GetSBlock("B");
    sch.ReverseComputeInline(sch.GetSBlock("C"));
    ExpectModule(mod, sch.mod(), kTwoStageReverseInlined);
    // The producer keeps its name and its handle.
    QCOMPARE(sch.Get(b)->name_hint, std::string("B"));
    ExpectReplay(mod, sch);
  }

  void reverseComputeInlineTransposed() {
    ir::IRModule mod = ParseModule(kTransposed);
    Schedule sch(mod);
    sch.ReverseComputeInline(sch.GetSBlock("C"));
    ExpectModule(mod, sch.mod(), kTransposedReverseInlined);
    ExpectReplay(mod, sch);
  }

  void reverseComputeInlinePartial() {
    ir::IRModule mod = ParseModule(kChain);
    Schedule sch(mod);
    sch.ReverseComputeInline(sch.GetSBlock("D"));
    ExpectModule(mod, sch.mod(), kChainLastReverseInlined);
    ExpectReplay(mod, sch);
  }

  void reverseComputeInlineAffineLoad() {
    ir::IRModule mod = ParseModule(kReshapeConsumer);
    Schedule sch(mod);
    SBlockRV b = sch.GetSBlock("B");
    sch.ReverseComputeInline(sch.GetSBlock("C"));
    ExpectModule(mod, sch.mod(), kReshapeConsumerInlined);
    QCOMPARE(sch.Get(b)->name_hint, std::string("B"));
    ExpectReplay(mod, sch);
  }

  void reverseComputeInlineUnitIter() {
    ir::IRModule mod = ParseModule(kUnitIterConsumer);
    Schedule sch(mod);
    sch.ReverseComputeInline(sch.GetSBlock("C"));
    ExpectModule(mod, sch.mod(), kUnitIterConsumerInlined);
    ExpectReplay(mod, sch);
  }

  // A unit iterator that is a load index by itself takes the producer's index there (TVM's
  // test_reverse_compute_inline_slicing_then_cachewrite), not its domain's minimum.
  void reverseComputeInlineUnitIndex() {
    ir::IRModule mod = ParseModule(R"(@I.ir_module
class Module:
    @T.prim_func(s_tir=True)
    def main(A: T.Buffer((1, 8), "float32"), C: T.Buffer((1, 6), "float32")):
        B = T.sblock_alloc_buffer((1, 8))
        for u, j in T.grid(1, 8):
            with T.sblock("B"):
                vu, vj = T.axis.remap("SS", [u, j])
                B[vu, vj] = A[vu, vj] + T.float32(1.0)
        for u, j in T.grid(1, 6):
            with T.sblock("C"):
                vu, vj = T.axis.remap("SS", [u, j])
                C[vu, vj] = B[vu, vj]
)");
    Schedule sch(mod);
    sch.ReverseComputeInline(sch.GetSBlock("C"));
    ExpectModule(mod, sch.mod(), R"(@I.ir_module
class Module:
    @T.prim_func(s_tir=True)
    def main(A: T.Buffer((1, 8), "float32"), C: T.Buffer((1, 6), "float32")):
        for u, j in T.grid(1, 8):
            with T.sblock("B"):
                vu, vj = T.axis.remap("SS", [u, j])
                T.where(j < 6)
                T.reads(A[vu, vj])
                T.writes(C[vu, vj])
                C[vu, vj] = A[vu, vj] + T.float32(1.0)
)");
    ExpectReplay(mod, sch);
  }

  // A consumer that passes a table to an intrinsic by pointer (`T.tvm_access_ptr`, mask "r"):
  // after inlining, its inferred reads still name the whole table, first, as TVM's region
  // detection has it; no write of it appears.
  void computeInlineKeepsAccessPointerRead() {
    Schedule sch(ParseModule(R"(@I.ir_module
class Module:
    @T.prim_func(s_tir=True)
    def main(lookup_table: T.Buffer((1024,), "int8"), x: T.Buffer((16,), "float16"), compute: T.Buffer((16,), "float16")):
        compute_1 = T.sblock_alloc_buffer((16,), "float16")
        for i0 in range(16):
            with T.sblock("compute"):
                i0_1 = T.axis.spatial(16, i0)
                compute_1[i0_1] = T.exp(x[i0_1])
        for i0 in range(16):
            with T.sblock("compute_1"):
                i0_2 = T.axis.spatial(16, i0)
                T.reads(lookup_table[0:1024], compute_1[i0_2])
                T.writes(compute[i0_2])
                T.evaluate(lookup_table.access_ptr("r"))
                compute[i0_2] = T.exp(compute_1[i0_2])
)"));
    SBlockRV consumer = sch.GetSBlock("compute_1");
    sch.ComputeInline(sch.GetSBlock("compute"));
    tir::SBlock block = sch.Get(consumer);
    QCOMPARE(block->reads.size(), size_t(2));
    QCOMPARE(block->reads[0]->buffer->name, std::string("lookup_table"));
    QCOMPARE(*tir::AsConstInt(block->reads[0]->region[0]->extent), int64_t(1024));
    QCOMPARE(block->reads[1]->buffer->name, std::string("x"));
    QCOMPARE(block->writes.size(), size_t(1));
    QCOMPARE(block->writes[0]->buffer->name, std::string("compute"));
  }

  void reverseComputeInlineNotInvertible() {
    const std::string message = Rendered(
        "reverse-compute-inline",
        "The body of the inlined block should be in form of\n"
        "    `B[...] = g(i, j, k, A[f(i, j, k, ...)] ...)`,\n"
        "where A is the only buffer the block consumes, whose indices are distinct atomic "
        "variables,\nand there should be no variables other than the index variables), and f is "
        "a bijective affine\nmapping and there should not be predicates in the inlined block. The "
        "iter domains of the inlined\nblock should be covered by the producer block.");
    for (const char* text : {kNonAffineConsumer, kWindowConsumer, kTwoLoadsConsumer}) {
      Schedule sch(ParseModule(text));
      SBlockRV c = sch.GetSBlock("C");
      QCOMPARE(FailsCleanly(sch, [&] { sch.ReverseComputeInline(c); }), message);
    }
  }

  // A producer accumulating into B (init and update, its reduction loop of extent 1 dropped)
  // and a transposing copy: the producer accumulates into C instead (TVM's test_inline_with_
  // reduction). A consumer that is no copy would apply its function to every partial value.
  void reverseComputeInlineIntoAccumulation() {
    auto program = [](const std::string& consumer_value) {
      return R"(@I.ir_module
class Module:
    @T.prim_func(s_tir=True)
    def main(A: T.Buffer((4, 6), "float32"), S: T.Buffer((4,), "float32"), C: T.Buffer((6, 4), "float32")):
        B = T.sblock_alloc_buffer((4, 6))
        for i, j in T.grid(4, 6):
            with T.sblock("B"):
                vi, vj = T.axis.remap("SS", [i, j])
                T.reads(S[vi], A[vi, vj])
                T.writes(B[vi, vj])
                with T.init():
                    B[vi, vj] = T.float32(0.0)
                B[vi, vj] = B[vi, vj] + S[vi] * A[vi, vj]
        for i, j in T.grid(4, 6):
            with T.sblock("C"):
                vi, vj = T.axis.remap("SS", [i, j])
                T.reads(B[vi, vj])
                T.writes(C[vj, vi])
                C[vj, vi] = )" + consumer_value + "\n";
    };
    ir::IRModule mod = ParseModule(program("B[vi, vj]"));
    Schedule sch(mod);
    sch.ReverseComputeInline(sch.GetSBlock("C"));
    ExpectModule(mod, sch.mod(), R"(@I.ir_module
class Module:
    @T.prim_func(s_tir=True)
    def main(A: T.Buffer((4, 6), "float32"), S: T.Buffer((4,), "float32"), C: T.Buffer((6, 4), "float32")):
        for i, j in T.grid(4, 6):
            with T.sblock("B"):
                vi, vj = T.axis.remap("SS", [i, j])
                T.reads(S[vi], A[vi, vj])
                T.writes(C[vj, vi])
                with T.init():
                    C[vj, vi] = T.float32(0.0)
                C[vj, vi] = C[vj, vi] + S[vi] * A[vi, vj]
)");
    ExpectReplay(mod, sch);
    Schedule bad(ParseModule(program("B[vi, vj] * T.float32(2.0)")));
    SBlockRV c = bad.GetSBlock("C");
    QVERIFY(FailsCleanly(bad, [&] { bad.ReverseComputeInline(c); })
                .find("The body of the inlined block should be in form of") != std::string::npos);
  }

  void reverseComputeInlineImpliedPredicate() {
    ir::IRModule mod = ParseModule(kPredicatedProducer);
    Schedule sch(mod);
    sch.ReverseComputeInline(sch.GetSBlock("C"));
    ExpectModule(mod, sch.mod(), kPredicatedProducerInlined);
    ExpectReplay(mod, sch);
  }

  void reverseComputeInlineErrors() {
    Schedule sch(ParseModule(kMatmulRelu));
    SBlockRV c = sch.GetSBlock("C");
    SBlockRV d = sch.GetSBlock("D");
    // D's producer C is a reduction, not a complete block.
    QCOMPARE(FailsCleanly(sch, [&] { sch.ReverseComputeInline(d); }),
             Rendered("reverse-compute-inline",
                      "The consumer block `D` to be inlined is required to have only a single "
                      "producer block, and the producer block should be a complete block who "
                      "has only a single consumer"));
    // The init check comes first.
    QCOMPARE(FailsCleanly(sch, [&] { sch.ReverseComputeInline(c); }),
             Rendered("reverse-compute-inline", "The block has init statement: `C`"));
    Schedule two(ParseModule(kTwoStage));
    SBlockRV tb = two.GetSBlock("B");
    QCOMPARE(FailsCleanly(two, [&] { two.ReverseComputeInline(tb); }),
             Rendered("reverse-compute-inline",
                      "The block is only allowed to read a single buffer region, but it reads 1 "
                      "region(s): `B`"));
    // B has two consumers: folding one into B would take B away from the other.
    std::string two_readers = kChain;
    two_readers.replace(two_readers.find("T.reads(C[vi])"), 14, "T.reads(C[vi], B[vi])");
    two_readers.replace(two_readers.find("D[vi] = C[vi] - T.float32(5.0)"), 30,
                        "D[vi] = C[vi] - B[vi]");
    Schedule shared(ParseModule(two_readers));
    SBlockRV sc = shared.GetSBlock("C");
    QCOMPARE(FailsCleanly(shared, [&] { shared.ReverseComputeInline(sc); }),
             Rendered("reverse-compute-inline",
                      "The consumer block `C` to be inlined is required to have only a single "
                      "producer block, and the producer block should be a complete block who "
                      "has only a single consumer"));
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, two.ComputeInline(SBlockRV{42}));
    // From a recipe: the error at the call, with a note at the block in the module's source.
    DiagnosticList diags = ApplyRecipe(two, "sch.compute_inline(\"C\")\n");
    QCOMPARE(diags.size(), size_t(1));
    QCOMPARE(std::string(diags[0].span.text()), std::string("sch.compute_inline(\"C\")"));
    QCOMPARE(diags[0].notes.size(), size_t(1));
    QVERIFY(std::string(diags[0].notes[0].span.text()).find("T.sblock(\"C\")") !=
            std::string::npos);
  }
};

QTEST_APPLESS_MAIN(TestScheduleInline)
#include "tst_schedule_inline.moc"
