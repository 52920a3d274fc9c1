// transform_block_layout: before/after modules, TVM's errors (leaving the schedule as it was),
// interpreter equivalence on random inputs and trace replay.
#include <QTest>

#include "schedule/primitive/primitives.h"
#include "schedule_test_util.h"

using namespace wb;
using namespace wb::schedule;
using namespace wb::schedule::testing;

namespace {

const char* kElementwise = R"(@I.ir_module
class Module:
    @T.prim_func(s_tir=True)
    def main(A: T.Buffer((16, 8), "float32"), B: T.Buffer((16, 8), "float32")):
        for i, j in T.grid(16, 8):
            with T.sblock("B"):
                vi, vj = T.axis.remap("SS", [i, j])
                T.reads(A[vi, vj])
                T.writes(B[vi, vj])
                B[vi, vj] = A[vi, vj] * T.float32(2.0)
)";

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

std::string Elementwise(const std::string& nest) {
  return R"(@I.ir_module
class Module:
    @T.prim_func(s_tir=True)
    def main(A: T.Buffer((16, 8), "float32"), B: T.Buffer((16, 8), "float32")):
)" + nest;
}

}  // namespace

class TestScheduleBlockLayout : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  void fuse() {
    ir::IRModule before = ParseModule(kElementwise);
    Schedule sch(before);
    Apply(sch, "sch.transform_block_layout(\"B\", lambda i, j: (i * 8 + j,))\n");
    ExpectModule(before, sch.mod(), Elementwise(R"(        for ax0 in range(128):
            with T.sblock("B"):
                v0 = T.axis.spatial(128, ax0)
                T.reads(A[v0 // 8, v0 % 8])
                T.writes(B[v0 // 8, v0 % 8])
                B[v0 // 8, v0 % 8] = A[v0 // 8, v0 % 8] * T.float32(2.0)
)"));
    QVERIFY(sch.trace().AsPython().find(
                "sch.transform_block_layout(block=b0, index_map=lambda i, j: (i * 8 + j,))") !=
            std::string::npos);
    ExpectReplay(before, sch);
  }

  void permute() {
    ir::IRModule before = ParseModule(kElementwise);
    Schedule sch(before);
    TransformBlockLayout(sch, sch.GetSBlock("B"),
                         ParseIndexMap("lambda i, j: (j, i)"));
    ExpectModule(before, sch.mod(), Elementwise(R"(        for ax0, ax1 in T.grid(8, 16):
            with T.sblock("B"):
                v0, v1 = T.axis.remap("SS", [ax0, ax1])
                T.reads(A[v1, v0])
                T.writes(B[v1, v0])
                B[v1, v0] = A[v1, v0] * T.float32(2.0)
)"));
    ExpectReplay(before, sch);
  }

  // The accesses are simplified within the new iterators' ranges: `v1 // 8 * 3 + v0` over
  // v1 < 8 is v0 (TVM's test_transform_block_layout_conv2d_nhwc, where `co // 64` vanishes).
  void simplifiedWithinNewRanges() {
    ir::IRModule before = ParseModule(R"(@I.ir_module
class Module:
    @T.prim_func(s_tir=True)
    def main(A: T.Buffer((16,), "float32"), B: T.Buffer((8, 16), "float32")):
        for i, j in T.grid(8, 16):
            with T.sblock("B"):
                vi, vj = T.axis.remap("SS", [i, j])
                B[vi, vj] = A[vi // 8 * 3 + vj] * T.float32(2.0)
)");
    Schedule sch(before);
    Apply(sch, "sch.transform_block_layout(\"B\", lambda i, j: (j, i))\n");
    ExpectModule(before, sch.mod(), R"(@I.ir_module
class Module:
    @T.prim_func(s_tir=True)
    def main(A: T.Buffer((16,), "float32"), B: T.Buffer((8, 16), "float32")):
        for ax0, ax1 in T.grid(16, 8):
            with T.sblock("B"):
                v0, v1 = T.axis.remap("SS", [ax0, ax1])
                T.reads(A[v0])
                T.writes(B[v1, v0])
                B[v1, v0] = A[v0] * T.float32(2.0)
)");
    ExpectReplay(before, sch);
  }

  // An iterator of extent 1 passed through by the map is its output in the inverse (0 where
  // the map folds it into a sum): the map is still a bijection.
  void unitIterator() {
    const char* unit = R"(@I.ir_module
class Module:
    @T.prim_func(s_tir=True)
    def main(A: T.Buffer((1, 8), "float32"), B: T.Buffer((1, 8), "float32")):
        for i, j in T.grid(1, 8):
            with T.sblock("B"):
                vi, vj = T.axis.remap("SS", [i, j])
                T.reads(A[vi, vj])
                T.writes(B[vi, vj])
                B[vi, vj] = A[vi, vj] * T.float32(2.0)
)";
    ir::IRModule before = ParseModule(unit);
    Schedule sch(before);
    Apply(sch, "sch.transform_block_layout(\"B\", lambda i, j: (j, i))\n");
    ExpectModule(before, sch.mod(), R"(@I.ir_module
class Module:
    @T.prim_func(s_tir=True)
    def main(A: T.Buffer((1, 8), "float32"), B: T.Buffer((1, 8), "float32")):
        for ax0, ax1 in T.grid(8, 1):
            with T.sblock("B"):
                v0, v1 = T.axis.remap("SS", [ax0, ax1])
                T.reads(A[v1, v0])
                T.writes(B[v1, v0])
                B[v1, v0] = A[v1, v0] * T.float32(2.0)
)");
    // A fused map where the leading iterator has extent 1 (TVM's conv2d_nhwc test's form).
    Schedule fused(before);
    Apply(fused, "sch.transform_block_layout(\"B\", lambda i, j: (i * 8 + j,))\n");
    ExpectSameMeaning(before, fused.mod());
    ExpectReplay(before, fused);
  }

  void splitIterator() {
    ir::IRModule before = ParseModule(kElementwise);
    Schedule sch(before);
    Apply(sch, "b = sch.get_sblock(\"B\")\n"
               "sch.transform_block_layout(b, lambda i, j: (i // 4, j, i % 4))\n"
               "sch.vectorize(sch.get_loops(b)[-1])\n");
    ExpectModule(before, sch.mod(), Elementwise(R"(        for ax0, ax1 in T.grid(4, 8):
            for ax2 in T.vectorized(4):
                with T.sblock("B"):
                    v0, v1, v2 = T.axis.remap("SSS", [ax0, ax1, ax2])
                    T.reads(A[v0 * 4 + v2, v1])
                    T.writes(B[v0 * 4 + v2, v1])
                    B[v0 * 4 + v2, v1] = A[v0 * 4 + v2, v1] * T.float32(2.0)
)"));
    ExpectReplay(before, sch);
  }

  // A reduction iterator keeps its kind: here it becomes the outermost loop.
  void reduction() {
    ir::IRModule before = ParseModule(kMatmul);
    Schedule sch(before);
    Apply(sch, "sch.transform_block_layout(\"C\", lambda i, j, k: (k, i * 6 + j))\n");
    ExpectModule(before, sch.mod(), R"(@I.ir_module
class Module:
    @T.prim_func(s_tir=True)
    def main(A: T.Buffer((8, 4), "float32"), B: T.Buffer((4, 6), "float32"), C: T.Buffer((8, 6), "float32")):
        for ax0, ax1 in T.grid(4, 48):
            with T.sblock("C"):
                v0, v1 = T.axis.remap("RS", [ax0, ax1])
                T.reads(A[v1 // 6, v0], B[v0, v1 % 6])
                T.writes(C[v1 // 6, v1 % 6])
                with T.init():
                    C[v1 // 6, v1 % 6] = T.float32(0.0)
                C[v1 // 6, v1 % 6] = C[v1 // 6, v1 % 6] + A[v1 // 6, v0] * B[v0, v1 % 6]
)");
    ExpectReplay(before, sch);
  }

  void errors() {
    Schedule sch(ParseModule(kMatmul));
    SBlockRV c = sch.GetSBlock("C");
    QCOMPARE(FailsCleanly(sch, [&] {
               TransformBlockLayout(sch, c, ParseIndexMap("lambda i, j, k: (i, j * 4 + k)"));
             }),
             Rendered("transform_block_layout",
                      "Cannot detect the block iter type for new iter value #1 of lambda i, j, k: "
                      "(i, j * 4 + k) in `C` because it contains more than one type of original "
                      "iter vars."));
    QCOMPARE(FailsCleanly(sch, [&] {
               TransformBlockLayout(sch, c, ParseIndexMap("lambda i, j: (j, i)"));
             }),
             Rendered("transform_block_layout",
                      "The index map lambda i, j: (j, i) can't be applied to block iters of `C` "
                      "because the number of parameters mismatch. Expected: 2, actual: 3"));
    QCOMPARE(FailsCleanly(sch, [&] {
               TransformBlockLayout(sch, c, ParseIndexMap("lambda i, j, k: (i // 2, j, k)"));
             }),
             Rendered("transform_block_layout",
                      "The index map lambda i, j, k: (i // 2, j, k) is not bijective affine."));

    Schedule split(ParseModule(kElementwise));
    SBlockRV b = split.GetSBlock("B");
    split.Split(split.GetLoops(b)[0], {std::nullopt, 4});
    QCOMPARE(FailsCleanly(split, [&] {
               TransformBlockLayout(split, b, ParseIndexMap("lambda i, j: (j, i)"));
             }),
             Rendered("transform_block_layout",
                      "The binding values of the block `B` are not variables of outer loops."));
  }

 private:
  static tir::IndexMap ParseIndexMap(const std::string& text) {
    std::string error;
    size_t offset = 0;
    tir::IndexMap map = tir::ParseIndexMapLambda(text, ir::DataType::Int(32), &error, &offset);
    if (!map.defined()) qFatal("bad index map %s: %s", text.c_str(), error.c_str());
    return map;
  }
};

QTEST_APPLESS_MAIN(TestScheduleBlockLayout)
#include "tst_schedule_block_layout.moc"
