// AnnotateTIROpPattern and the analysis behind it: the pattern of a dozen kernels of the shapes
// LegalizeOps produces (elementwise, bias add, broadcast, transpose, reshape, reduction, matmul
// with and without casts, pooling, softmax's reduce-then-normalize, a constant fill, opaque
// blocks), and the pass on whole modules before -> after.

#include <QTest>

#include "fuse_test_util.h"
#include "relax/analysis/tir_op_pattern_kind.h"
#include "transform/registry.h"
#include "transform/relax/annotate_tir_op_pattern.h"

using namespace wb;

namespace {

// Each kernel with the pattern TVM's analysis gives it.
const char* kKernels = R"(
@I.ir_module
class Module:
    @T.prim_func(private=True)
    def elemwise_add(A: T.Buffer((4, 8), "float32"), B: T.Buffer((4, 8), "float32"), C: T.Buffer((4, 8), "float32")):
        for i, j in T.grid(4, 8):
            with T.sblock("C"):
                vi, vj = T.axis.remap("SS", [i, j])
                C[vi, vj] = A[vi, vj] + B[vi, vj]

    @T.prim_func(private=True)
    def bias_add(A: T.Buffer((4, 8), "float32"), B: T.Buffer((8,), "float32"), C: T.Buffer((4, 8), "float32")):
        for i, j in T.grid(4, 8):
            with T.sblock("C"):
                vi, vj = T.axis.remap("SS", [i, j])
                C[vi, vj] = A[vi, vj] + B[vj]

    @T.prim_func(private=True)
    def broadcast_to(B: T.Buffer((8,), "float32"), C: T.Buffer((4, 8), "float32")):
        for i, j in T.grid(4, 8):
            with T.sblock("C"):
                vi, vj = T.axis.remap("SS", [i, j])
                C[vi, vj] = B[vj]

    @T.prim_func(private=True)
    def broadcast_unit(B: T.Buffer((1, 8), "float32"), C: T.Buffer((4, 8), "float32")):
        for i, j in T.grid(4, 8):
            with T.sblock("C"):
                vi, vj = T.axis.remap("SS", [i, j])
                C[vi, vj] = B[0, vj] * T.float32(2.0)

    @T.prim_func(private=True)
    def transpose(A: T.Buffer((8, 4), "float32"), C: T.Buffer((4, 8), "float32")):
        for i, j in T.grid(4, 8):
            with T.sblock("C"):
                vi, vj = T.axis.remap("SS", [i, j])
                C[vi, vj] = A[vj, vi]

    @T.prim_func(private=True)
    def reshape(A: T.Buffer((8, 4), "float32"), C: T.Buffer((32,), "float32")):
        for i in range(32):
            with T.sblock("C"):
                vi = T.axis.spatial(32, i)
                C[vi] = A[vi // 4, vi % 4]

    @T.prim_func(private=True)
    def sum_rows(A: T.Buffer((4, 8), "float32"), B: T.Buffer((4,), "float32")):
        for i, k in T.grid(4, 8):
            with T.sblock("B"):
                vi, vk = T.axis.remap("SR", [i, k])
                with T.init():
                    B[vi] = T.float32(0.0)
                B[vi] = B[vi] + A[vi, vk]

    @T.prim_func(private=True)
    def matmul(A: T.Buffer((4, 8), "float32"), B: T.Buffer((8, 16), "float32"), C: T.Buffer((4, 16), "float32")):
        for i, j, k in T.grid(4, 16, 8):
            with T.sblock("C"):
                vi, vj, vk = T.axis.remap("SSR", [i, j, k])
                with T.init():
                    C[vi, vj] = T.float32(0.0)
                C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj]

    @T.prim_func(private=True)
    def matmul_f16_acc_f32(A: T.Buffer((4, 8), "float16"), B: T.Buffer((8, 16), "float16"), C: T.Buffer((4, 16), "float32")):
        for i, j, k in T.grid(4, 16, 8):
            with T.sblock("C"):
                vi, vj, vk = T.axis.remap("SSR", [i, j, k])
                with T.init():
                    C[vi, vj] = T.float32(0.0)
                C[vi, vj] = C[vi, vj] + T.Cast("float32", A[vi, vk]) * T.Cast("float32", B[vk, vj])

    @T.prim_func(private=True)
    def max_pool(A: T.Buffer((16,), "float32"), B: T.Buffer((8,), "float32")):
        for i, k in T.grid(8, 2):
            with T.sblock("B"):
                vi, vk = T.axis.remap("SR", [i, k])
                with T.init():
                    B[vi] = T.float32(-3.0e38)
                B[vi] = T.max(B[vi], A[vi * 2 + vk])

    @T.prim_func(private=True)
    def softmax_like(A: T.Buffer((4, 8), "float32"), C: T.Buffer((4, 8), "float32")):
        M = T.alloc_buffer((4,))
        for i, k in T.grid(4, 8):
            with T.sblock("M"):
                vi, vk = T.axis.remap("SR", [i, k])
                with T.init():
                    M[vi] = T.float32(-3.0e38)
                M[vi] = T.max(M[vi], A[vi, vk])
        for i, j in T.grid(4, 8):
            with T.sblock("C"):
                vi, vj = T.axis.remap("SS", [i, j])
                C[vi, vj] = A[vi, vj] - M[vi]

    @T.prim_func(private=True)
    def fill_zero(C: T.Buffer((4, 8), "float32")):
        for i, j in T.grid(4, 8):
            with T.sblock("C"):
                vi, vj = T.axis.remap("SS", [i, j])
                C[vi, vj] = T.float32(0.0)

    @T.prim_func(private=True)
    def cast_f16(A: T.Buffer((8,), "float32"), C: T.Buffer((8,), "float16")):
        for i in range(8):
            with T.sblock("C"):
                vi = T.axis.spatial(8, i)
                C[vi] = T.Cast("float16", A[vi])

    @T.prim_func(private=True)
    def two_stores(A: T.Buffer((8,), "float32"), C: T.Buffer((16,), "float32")):
        for i in range(8):
            with T.sblock("C"):
                vi = T.axis.spatial(8, i)
                C[vi] = A[vi]
                C[vi + 8] = A[vi]

    @T.prim_func(private=True)
    def no_store(A: T.Buffer((8,), "float32")):
        for i in range(8):
            with T.sblock("nothing"):
                vi = T.axis.spatial(8, i)
                T.evaluate(A[vi])

    @T.prim_func(private=True)
    def gather_window(A: T.Buffer((16,), "float32"), C: T.Buffer((8,), "float32")):
        for i, j in T.grid(8, 2):
            with T.sblock("C"):
                vi, vj = T.axis.remap("SS", [i, j])
                C[vi] = A[vi + vj]
)";

struct Expectation {
  const char* kernel;
  relax::OpPatternKind kind;
};

const Expectation kExpected[] = {
    {"elemwise_add", relax::OpPatternKind::kElemWise},
    // Elementwise on the output even though the bias is broadcast.
    {"bias_add", relax::OpPatternKind::kElemWise},
    {"broadcast_to", relax::OpPatternKind::kBroadcast},
    {"broadcast_unit", relax::OpPatternKind::kBroadcast},
    {"transpose", relax::OpPatternKind::kInjective},
    {"reshape", relax::OpPatternKind::kInjective},
    {"sum_rows", relax::OpPatternKind::kCommReduce},
    {"matmul", relax::OpPatternKind::kOutEWiseFusable},
    {"matmul_f16_acc_f32", relax::OpPatternKind::kOutEWiseFusable},
    {"max_pool", relax::OpPatternKind::kOutEWiseFusable},
    // A reduction then an injective block writing the output.
    {"softmax_like", relax::OpPatternKind::kOutEWiseFusable},
    {"fill_zero", relax::OpPatternKind::kElemWise},
    {"cast_f16", relax::OpPatternKind::kElemWise},
    {"two_stores", relax::OpPatternKind::kOpaque},
    {"no_store", relax::OpPatternKind::kOpaque},
    // The window index uses a var the output is not indexed by, and there is no reduction.
    {"gather_window", relax::OpPatternKind::kOpaque},
};

int64_t PatternAttr(const ir::IRModule& module, const std::string& name) {
  auto* f = module->Lookup(name).as<tir::PrimFuncNode>();
  if (!f) return -100;
  auto* v = ir::ObjectRef(f->GetAttr("op_pattern")).as<ir::IntObj>();
  return v ? v->value : -1;
}

}  // namespace

class TestAnnotatePattern : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  void analysisOfEachKernel_data() {
    QTest::addColumn<QString>("kernel");
    QTest::addColumn<int>("expected");
    for (const auto& e : kExpected) QTest::newRow(e.kernel) << QString(e.kernel) << int(e.kind);
  }

  void analysisOfEachKernel() {
    QFETCH(QString, kernel);
    QFETCH(int, expected);
    static ir::IRModule module = fuse_test::Parse(kKernels);
    QVERIFY(module.defined());
    auto* func = module->Lookup(kernel.toStdString()).as<tir::PrimFuncNode>();
    QVERIFY(func);
    relax::OpPatternKind kind = relax::AnalyzeOpPatternKind(ir::GetRef(func));
    QCOMPARE(relax::OpPatternKindName(kind),
             relax::OpPatternKindName(static_cast<relax::OpPatternKind>(expected)));
  }

  void passAnnotatesEveryKernel() {
    ir::IRModule module = fuse_test::Parse(kKernels);
    QVERIFY(module.defined());
    ir::IRModule out = transform::AnnotateTIROpPattern()(module);
    for (const auto& e : kExpected) {
      QCOMPARE(PatternAttr(out, e.kernel), int64_t(e.kind));
    }
    // The input is left as it was.
    QCOMPARE(PatternAttr(module, "matmul"), int64_t(-1));
  }

  // Golden: an MLP's kernels and main, before -> after.
  void goldenMlp() {
    const char* before = R"(
@I.ir_module
class Module:
    @T.prim_func(private=True)
    def matmul(A: T.Buffer((1, 8), "float32"), B: T.Buffer((8, 4), "float32"), C: T.Buffer((1, 4), "float32")):
        for i, j, k in T.grid(1, 4, 8):
            with T.sblock("matmul"):
                vi, vj, vk = T.axis.remap("SSR", [i, j, k])
                with T.init():
                    C[vi, vj] = T.float32(0.0)
                C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj]

    @T.prim_func(private=True)
    def add(A: T.Buffer((1, 4), "float32"), B: T.Buffer((4,), "float32"), C: T.Buffer((1, 4), "float32")):
        for i, j in T.grid(1, 4):
            with T.sblock("T_add"):
                vi, vj = T.axis.remap("SS", [i, j])
                C[vi, vj] = A[vi, vj] + B[vj]

    @T.prim_func(private=True)
    def relu(A: T.Buffer((1, 4), "float32"), C: T.Buffer((1, 4), "float32")):
        for i, j in T.grid(1, 4):
            with T.sblock("compute"):
                vi, vj = T.axis.remap("SS", [i, j])
                C[vi, vj] = T.max(A[vi, vj], T.float32(0.0))

    @R.function
    def main(x: R.Tensor((1, 8), dtype="float32"), w: R.Tensor((8, 4), dtype="float32"), b: R.Tensor((4,), dtype="float32")) -> R.Tensor((1, 4), dtype="float32"):
        cls = Module
        with R.dataflow():
            lv = R.call_tir(cls.matmul, (x, w), out_ty=R.Tensor((1, 4), dtype="float32"))
            lv1 = R.call_tir(cls.add, (lv, b), out_ty=R.Tensor((1, 4), dtype="float32"))
            gv = R.call_tir(cls.relu, (lv1,), out_ty=R.Tensor((1, 4), dtype="float32"))
            R.output(gv)
        return gv
)";
    std::string expected = before;
    auto insert_attr = [&](const std::string& def, int kind) {
      size_t pos = expected.find(def);
      size_t eol = expected.find('\n', pos);
      expected.insert(eol + 1,
                      "        T.func_attr({\"op_pattern\": " + std::to_string(kind) + "})\n");
    };
    insert_attr("def matmul(", 4);
    insert_attr("def add(", 0);
    insert_attr("def relu(", 0);
    ir::IRModule out = transform::AnnotateTIROpPattern()(fuse_test::Parse(before));
    FUSE_COMPARE_MODULES(out, fuse_test::Parse(expected));
    // The comparison sees the attribute: the unannotated module differs.
    QVERIFY(!fuse_test::ModuleDifference(out, fuse_test::Parse(before)).empty());
  }

  // Golden: an existing op_pattern is kept, and a module without PrimFuncs is unchanged.
  void goldenExistingAttributeKept() {
    const char* before = R"(
@I.ir_module
class Module:
    @T.prim_func(private=True)
    def exp(A: T.Buffer((8,), "float32"), C: T.Buffer((8,), "float32")):
        T.func_attr({"op_pattern": 8})
        for i in range(8):
            with T.sblock("C"):
                vi = T.axis.spatial(8, i)
                C[vi] = T.exp(A[vi])

    @T.prim_func(private=True)
    def sum(A: T.Buffer((8,), "float32"), C: T.Buffer((1,), "float32")):
        for k in range(8):
            with T.sblock("C"):
                vk = T.axis.reduce(8, k)
                with T.init():
                    C[0] = T.float32(0.0)
                C[0] = C[0] + A[vk]
)";
    std::string expected = before;
    size_t pos = expected.find("def sum(");
    expected.insert(expected.find('\n', pos) + 1, "        T.func_attr({\"op_pattern\": 3})\n");
    ir::IRModule out = transform::AnnotateTIROpPattern()(fuse_test::Parse(before));
    FUSE_COMPARE_MODULES(out, fuse_test::Parse(expected));
  }

  // Golden: a softmax-like kernel with an internal buffer and a transpose, as a pipeline text.
  void goldenThroughRegistry() {
    const char* before = R"(
@I.ir_module
class Module:
    @T.prim_func(private=True)
    def transpose(A: T.Buffer((8, 4), "float32"), C: T.Buffer((4, 8), "float32")):
        for i, j in T.grid(4, 8):
            with T.sblock("T_transpose"):
                vi, vj = T.axis.remap("SS", [i, j])
                C[vi, vj] = A[vj, vi]
)";
    std::string expected = before;
    size_t pos = expected.find("def transpose(");
    expected.insert(expected.find('\n', pos) + 1, "        T.func_attr({\"op_pattern\": 2})\n");
    DiagnosticList diags;
    auto pipeline = transform::BuildPipeline("AnnotateTIROpPattern", diags);
    QVERIFY(pipeline.has_value());
    ir::IRModule out = (*pipeline)(fuse_test::Parse(before));
    FUSE_COMPARE_MODULES(out, fuse_test::Parse(expected));
  }
};

QTEST_APPLESS_MAIN(TestAnnotatePattern)
#include "tst_annotate_pattern.moc"
