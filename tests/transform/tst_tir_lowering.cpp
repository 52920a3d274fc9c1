// Golden before/after cases for the TIR lowering passes: each `before` is run through the pass
// and must be structurally equal to `after` (both written in TVMScript).
#include <QTest>

#include "ir/structural_equal.h"
#include "script/tvmscript.h"
#include "transform/instrument.h"
#include "transform/registry.h"

using namespace wb;

namespace {

const char* kHeader =
    "# from tvm.script import ir as I\n# from tvm.script import tirx as T\n"
    "# from tvm.tirx.layout import Axis\n\n";

ir::IRModule ParseOrFail(const std::string& body) {
  auto r = script::Parse(std::string(kHeader) + body, "case.py");
  if (!r.ok()) qFatal("%s", RenderDiagnostics(r.diagnostics).c_str());
  return r.module;
}

struct Case {
  const char* pass;
  const char* before;
  const char* after;
};

const Case kCases[] = {
    // --- LowerInitBlock ---------------------------------------------------------------------
    {"LowerInitBlock", R"(@I.ir_module
class Module:
    @T.prim_func(s_tir=True)
    def main(A: T.Buffer((4, 4), "float32"), B: T.Buffer((4, 4), "float32"), C: T.Buffer((4, 4), "float32")):
        for i, j, k in T.grid(4, 4, 4):
            with T.sblock("C"):
                vi, vj, vk = T.axis.remap("SSR", [i, j, k])
                T.reads(C[vi, vj], A[vi, vk], B[vk, vj])
                T.writes(C[vi, vj])
                with T.init():
                    C[vi, vj] = T.float32(0.0)
                C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj])",
     R"(@I.ir_module
class Module:
    @T.prim_func(s_tir=True)
    def main(A: T.Buffer((4, 4), "float32"), B: T.Buffer((4, 4), "float32"), C: T.Buffer((4, 4), "float32")):
        for i, j, k in T.grid(4, 4, 4):
            with T.sblock("C"):
                vi, vj, vk = T.axis.remap("SSR", [i, j, k])
                T.reads(C[vi, vj], A[vi, vk], B[vk, vj])
                T.writes(C[vi, vj])
                if vk == 0:
                    C[vi, vj] = T.float32(0.0)
                C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj])"},
    // Two reduction axes, one with a non-zero start.
    {"LowerInitBlock", R"(@I.ir_module
class Module:
    @T.prim_func(s_tir=True)
    def main(A: T.Buffer((8, 8), "float32"), S: T.Buffer((1,), "float32")):
        for i, j in T.grid(8, 6):
            with T.sblock("S"):
                vi = T.axis.reduce(8, i)
                vj = T.axis.reduce((2, 8), j + 2)
                T.reads(S[0], A[vi, vj])
                T.writes(S[0])
                with T.init():
                    S[0] = T.float32(1.0)
                S[0] = S[0] * A[vi, vj])",
     R"(@I.ir_module
class Module:
    @T.prim_func(s_tir=True)
    def main(A: T.Buffer((8, 8), "float32"), S: T.Buffer((1,), "float32")):
        for i, j in T.grid(8, 6):
            with T.sblock("S"):
                vi = T.axis.reduce(8, i)
                vj = T.axis.reduce((2, 8), j + 2)
                T.reads(S[0], A[vi, vj])
                T.writes(S[0])
                if vi == 0 and vj == 2:
                    S[0] = T.float32(1.0)
                S[0] = S[0] * A[vi, vj])"},
    // --- ConvertBlocksToOpaque ---------------------------------------------------------------
    {"ConvertBlocksToOpaque", R"(@I.ir_module
class Module:
    @T.prim_func(s_tir=True)
    def main(A: T.Buffer((16,), "float32"), B: T.Buffer((16,), "float32")):
        for i0, i1 in T.grid(4, 4):
            with T.sblock("B"):
                vi = T.axis.spatial(16, i0 * 4 + i1)
                T.reads(A[vi])
                T.writes(B[vi])
                B[vi] = A[vi] + T.float32(1.0))",
     R"(@I.ir_module
class Module:
    @T.prim_func(s_tir=True)
    def main(A: T.Buffer((16,), "float32"), B: T.Buffer((16,), "float32")):
        for i0, i1 in T.grid(4, 4):
            with T.sblock("B"):
                T.reads(A[i0 * 4 + i1])
                T.writes(B[i0 * 4 + i1])
                B[i0 * 4 + i1] = A[i0 * 4 + i1] + T.float32(1.0))"},
    // Nested blocks: the inner binding refers to the outer block's iter var.
    {"ConvertBlocksToOpaque", R"(@I.ir_module
class Module:
    @T.prim_func(s_tir=True)
    def main(A: T.Buffer((8, 8), "float32")):
        for i in range(8):
            with T.sblock("outer"):
                vi = T.axis.spatial(8, i)
                T.reads()
                T.writes(A[vi, 0:8])
                for j in range(8):
                    with T.sblock("inner"):
                        vj = T.axis.spatial(8, j)
                        wi = T.axis.spatial(8, vi)
                        T.reads()
                        T.writes(A[wi, vj])
                        A[wi, vj] = T.float32(0.0))",
     R"(@I.ir_module
class Module:
    @T.prim_func(s_tir=True)
    def main(A: T.Buffer((8, 8), "float32")):
        for i in range(8):
            with T.sblock("outer"):
                T.reads()
                T.writes(A[i, 0:8])
                for j in range(8):
                    with T.sblock("inner"):
                        T.reads()
                        T.writes(A[i, j])
                        A[i, j] = T.float32(0.0))"},
    // --- LowerOpaqueBlock --------------------------------------------------------------------
    {"LowerOpaqueBlock", R"(@I.ir_module
class Module:
    @T.prim_func(s_tir=True)
    def main(A: T.Buffer((16,), "float32"), B: T.Buffer((16,), "float32")):
        C = T.sblock_alloc_buffer((16,))
        for i in range(16):
            with T.sblock("C"):
                T.where(i < 12)
                T.reads(A[i])
                T.writes(C[i])
                C[i] = A[i] * T.float32(2.0)
        for i in range(16):
            with T.sblock("B"):
                T.reads(C[i])
                T.writes(B[i])
                B[i] = C[i])",
     R"(@I.ir_module
class Module:
    @T.prim_func(s_tir=True)
    def main(A: T.Buffer((16,), "float32"), B: T.Buffer((16,), "float32")):
        C = T.alloc_buffer((16,))
        for i in range(16):
            if i < 12:
                C[i] = A[i] * T.float32(2.0)
        for i in range(16):
            B[i] = C[i])"},
    // Thread-bound loops become thread_extent attributes. (Loop pragmas become `pragma_*`
    // attributes on the loop body: checked in pragmaAttributesWrapTheLoopBody.)
    {"LowerOpaqueBlock", R"(@I.ir_module
class Module:
    @T.prim_func(s_tir=True)
    def main(A: T.Buffer((256,), "float32")):
        for bx in T.thread_binding(8, thread="blockIdx.x"):
            for tx in T.thread_binding(32, thread="threadIdx.x"):
                with T.sblock("A"):
                    T.reads()
                    T.writes(A[bx * 32 + tx])
                    A[bx * 32 + tx] = T.float32(0.0)
        for i in range(4):
            with T.sblock("B"):
                T.reads()
                T.writes(A[i])
                A[i] = T.float32(1.0))",
     R"(@I.ir_module
class Module:
    @T.prim_func(s_tir=True)
    def main(A: T.Buffer((256,), "float32")):
        with T.launch_thread("blockIdx.x", 8) as bx:
            tx = T.launch_thread("threadIdx.x", 32)
            A[bx * 32 + tx] = T.float32(0.0)
        for i in range(4):
            A[i] = T.float32(1.0))"},
    // --- Simplify -----------------------------------------------------------------------------
    // Split/fuse index arithmetic folds back using the loop ranges; a provable `if` disappears.
    {"Simplify", R"(@I.ir_module
class Module:
    @T.prim_func
    def main(A: T.Buffer((64,), "float32"), B: T.Buffer((16, 4), "float32")):
        for i, j in T.grid(16, 4):
            if i * 4 + j < 64:
                B[(i * 4 + j) // 4, (i * 4 + j) % 4] = A[i * 4 + j + 0])",
     R"(@I.ir_module
class Module:
    @T.prim_func
    def main(A: T.Buffer((64,), "float32"), B: T.Buffer((16, 4), "float32")):
        for i, j in T.grid(16, 4):
            B[i, j] = A[i * 4 + j])"},
    {"Simplify", R"(@I.ir_module
class Module:
    @T.prim_func
    def main(A: T.Buffer((256,), "float32")):
        for fused in range(256):
            A[fused // 16 * 16 + fused % 16] = T.float32(1.0)
        for k in range(8):
            if k < 4:
                A[k] = T.float32(2.0)
            else:
                if k >= 4:
                    A[k] = T.float32(3.0))",
     R"(@I.ir_module
class Module:
    @T.prim_func
    def main(A: T.Buffer((256,), "float32")):
        for fused in range(256):
            A[fused] = T.float32(1.0)
        for k in range(8):
            if k < 4:
                A[k] = T.float32(2.0)
            else:
                A[k] = T.float32(3.0))"},
    // --- RemoveNoOp ---------------------------------------------------------------------------
    {"RemoveNoOp", R"(@I.ir_module
class Module:
    @T.prim_func
    def main(A: T.Buffer((8,), "float32"), n: T.int32):
        for i in range(8):
            T.evaluate(0)
        if n > 0:
            T.evaluate(1)
        else:
            A[0] = T.float32(1.0)
        for j in range(0):
            A[j] = T.float32(2.0)
        A[1] = T.float32(3.0))",
     R"(@I.ir_module
class Module:
    @T.prim_func
    def main(A: T.Buffer((8,), "float32"), n: T.int32):
        if not n > 0:
            A[0] = T.float32(1.0)
        A[1] = T.float32(3.0))"},
};

}  // namespace

class TestTirLowering : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  void golden_data() {
    QTest::addColumn<int>("index");
    for (size_t i = 0; i < std::size(kCases); ++i) {
      QTest::newRow((std::string(kCases[i].pass) + "#" + std::to_string(i)).c_str())
          << static_cast<int>(i);
    }
  }
  void golden() {
    QFETCH(int, index);
    const Case& c = kCases[index];
    DiagnosticList diags;
    auto pass = transform::BuildPipeline(c.pass, diags);
    QVERIFY2(pass.has_value(), RenderDiagnostics(diags).c_str());
    auto result = transform::RunPipeline(*pass, ParseOrFail(c.before));
    QVERIFY2(result.ok(), RenderDiagnostics(result.diagnostics).c_str());
    ir::IRModule expected = ParseOrFail(c.after);
    auto mismatch = ir::FindFirstMismatch(result.module, expected);
    if (mismatch) {
      QFAIL(("mismatch at " + mismatch->lhs_path + " (" + mismatch->reason + ")\n--- got:\n" +
             script::PrintModule(result.module) + "\n--- expected:\n" +
             script::PrintModule(expected))
                .c_str());
    }
  }

  void passesRefuseWhatTheyCannotLower() {
    DiagnosticList diags;
    auto pass = transform::BuildPipeline("LowerOpaqueBlock", diags);
    auto result = transform::RunPipeline(*pass, ParseOrFail(kCases[0].before));
    QVERIFY(!result.ok());
    QCOMPARE(QString::fromStdString(result.diagnostics[0].message),
             QString("pass 'LowerOpaqueBlock' failed: block 'C' is not opaque; run "
                     "ConvertBlocksToOpaque first"));
    auto convert = transform::BuildPipeline("ConvertBlocksToOpaque", diags);
    auto r2 = transform::RunPipeline(*convert, ParseOrFail(kCases[0].before));
    QVERIFY(!r2.ok());
    QVERIFY(r2.diagnostics[0].message.find("run LowerInitBlock first") != std::string::npos);
    QVERIFY(r2.diagnostics[0].span.defined());
  }

  void pragmaAttributesWrapTheLoopBody() {
    auto before = ParseOrFail(R"(@I.ir_module
class Module:
    @T.prim_func
    def main(A: T.Buffer((4,), "float32")):
        for i in T.serial(4, annotations={"pragma_auto_unroll_max_step": 16, "other": 1}):
            A[i] = T.float32(1.0))");
    DiagnosticList diags;
    auto result = transform::RunPipeline(*transform::BuildPipeline("LowerOpaqueBlock", diags), before);
    QVERIFY2(result.ok(), RenderDiagnostics(result.diagnostics).c_str());
    auto func = ir::Downcast<tir::PrimFuncNode>(result.module->functions[0]);
    auto* loop = func->body.as<tir::ForNode>();
    QVERIFY(loop);
    QVERIFY(loop->annotations.empty());
    auto* attr = loop->body.as<tir::AttrStmtNode>();
    QVERIFY(attr);
    QCOMPARE(QString::fromStdString(attr->attr_key), QString("pragma_auto_unroll_max_step"));
    QVERIFY(tir::IsConstInt(attr->value, 16));
    QVERIFY(attr->node.same_as(loop->loop_var));
    QVERIFY(attr->body.as<tir::BufferStoreNode>());
  }

  void chainIsWellFormedAtEveryStep() {
    DiagnosticList diags;
    auto pass = transform::BuildPipeline(
        "LowerInitBlock, ConvertBlocksToOpaque, LowerOpaqueBlock, RemoveNoOp", diags);
    QVERIFY(pass.has_value());
    auto result = transform::RunPipeline(*pass, ParseOrFail(kCases[0].before));
    QVERIFY2(result.ok(), RenderDiagnostics(result.diagnostics).c_str());
    QCOMPARE(result.snapshots.size(), size_t(4));
    for (const auto& s : result.snapshots) QVERIFY2(s.changed() || s.name == "RemoveNoOp", s.name.c_str());
    std::string text = script::PrintModule(result.module);
    QVERIFY2(text.find("T.sblock") == std::string::npos, text.c_str());
  }
};

QTEST_APPLESS_MAIN(TestTirLowering)
#include "tst_tir_lowering.moc"
