// The named pipeline "tir_lowering" end to end: matmul, conv2d, softmax and a scheduled
// (split + vectorize + parallel + cache_write) matmul lower to flat TIR that keeps their
// meaning (interpreter on random inputs), prints and parses back, and shows every pass as a
// snapshot in TVM's order.
#include <QDir>
#include <QTest>

#include <fstream>
#include <sstream>

#include "lowering_check.h"
#include "tir/functor.h"

using namespace wb;

namespace {

const char* kScheduledMatmul = R"(@I.ir_module
class Module:
    @T.prim_func(s_tir=True)
    def main(A: T.Buffer((64, 64), "float32"), B: T.Buffer((64, 64), "float32"), C: T.Buffer((64, 64), "float32")):
        C_global = T.sblock_alloc_buffer((64, 64))
        for i_0_j_0_fused in T.parallel(4):
            for k_0, i_1, k_1 in T.grid(16, 32, 4):
                for j_1 in T.vectorized(32):
                    with T.sblock("C"):
                        vi = T.axis.spatial(64, i_0_j_0_fused // 2 * 32 + i_1)
                        vj = T.axis.spatial(64, i_0_j_0_fused % 2 * 32 + j_1)
                        vk = T.axis.reduce(64, k_0 * 4 + k_1)
                        T.reads(A[vi, vk], B[vk, vj])
                        T.writes(C_global[vi, vj])
                        with T.init():
                            C_global[vi, vj] = T.float32(0.0)
                        C_global[vi, vj] = C_global[vi, vj] + A[vi, vk] * B[vk, vj]
            for ax0 in range(32):
                for ax1 in T.vectorized(32):
                    with T.sblock("C_global"):
                        v0 = T.axis.spatial(64, i_0_j_0_fused // 2 * 32 + ax0)
                        v1 = T.axis.spatial(64, i_0_j_0_fused % 2 * 32 + ax1)
                        T.reads(C_global[v0, v1])
                        T.writes(C[v0, v1])
                        C[v0, v1] = C_global[v0, v1])";

std::string ReadSource(const std::string& relative) {
  std::ifstream in(qgetenv("WB_SOURCE_DIR").toStdString() + "/" + relative);
  std::stringstream buf;
  buf << in.rdbuf();
  return buf.str();
}

// What lowered TIR must not hold any more.
std::string LeftoverHighLevel(const ir::IRModule& module) {
  std::string found;
  for (const auto& f : module->functions) {
    auto func = f.as_ref<tir::PrimFuncNode>();
    if (!func.defined()) continue;
    tir::PostOrderVisit(func->body, [&](const ir::Object* node) {
      switch (node->type_index()) {
        case ir::TypeIndex::kSBlock:
          found += "a block; ";
          break;
        case ir::TypeIndex::kFloorDiv:
        case ir::TypeIndex::kFloorMod:
          found += "floordiv/floormod; ";
          break;
        case ir::TypeIndex::kFor:
          if (static_cast<const tir::ForNode*>(node)->kind == tir::ForKind::kVectorized) {
            found += "a vectorized loop; ";
          }
          break;
        case ir::TypeIndex::kBufferLoad:
          if (static_cast<const tir::BufferLoadNode*>(node)->indices.size() != 1) {
            found += "a multi-dimensional load; ";
          }
          break;
        case ir::TypeIndex::kBufferStore:
          if (static_cast<const tir::BufferStoreNode*>(node)->indices.size() != 1) {
            found += "a multi-dimensional store; ";
          }
          break;
        default:
          break;
      }
    });
  }
  return found;
}

}  // namespace

class TestTirPipeline : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  void pipelineIsRegisteredInTvmOrder() {
    DiagnosticList diags;
    auto specs = transform::ParsePipeline("tir_lowering", diags);
    QVERIFY2(specs.has_value(), RenderDiagnostics(diags).c_str());
    std::vector<std::string> names;
    for (const auto& s : *specs) names.push_back(s.name);
    const std::vector<std::string> expected = {
        "LowerInitBlock", "PlanAndUpdateBufferAllocationLocation", "ConvertBlocksToOpaque",
        "CompactBufferAllocation", "LowerMatchBuffer", "LowerOpaqueBlock", "FlattenBuffer",
        "Simplify", "VectorizeLoop", "UnrollLoop", "RemoveNoOp", "StorageRewrite", "LowerIntrin"};
    QCOMPARE(names, expected);
  }

  void lowersAndKeepsMeaning_data() {
    QTest::addColumn<QString>("source");
    QTest::newRow("matmul") << "tests/script/corpus/tir/01_matmul_init.py";
    QTest::newRow("conv2d") << "tests/script/corpus/tir/07_conv2d_nchw_pad.py";
    QTest::newRow("softmax") << "tests/script/corpus/tir/11_softmax.py";
    QTest::newRow("scheduled matmul") << "";
  }
  void lowersAndKeepsMeaning() {
    QFETCH(QString, source);
    std::string text = source.isEmpty() ? std::string(testing::kScriptHeader) + kScheduledMatmul
                                        : ReadSource(source.toStdString());
    auto parsed = script::Parse(text, "input.py");
    QVERIFY2(parsed.ok(), RenderDiagnostics(parsed.diagnostics).c_str());

    DiagnosticList diags;
    auto pass = transform::BuildPipeline("tir_lowering", diags);
    QVERIFY2(pass.has_value(), RenderDiagnostics(diags).c_str());
    auto result = transform::RunPipeline(*pass, parsed.module);
    QVERIFY2(result.ok(), RenderDiagnostics(result.diagnostics).c_str());
    QCOMPARE(result.snapshots.size(), size_t(13));
    QCOMPARE(QString::fromStdString(result.snapshots.front().name), QString("LowerInitBlock"));
    QCOMPARE(QString::fromStdString(result.snapshots.back().name), QString("LowerIntrin"));

    std::string printed = script::PrintModule(result.module);
    std::string leftover = LeftoverHighLevel(result.module);
    QVERIFY2(leftover.empty(), (leftover + "\n" + printed).c_str());
    std::string error = testing::CheckSameMeaning(parsed.module, result.module);
    QVERIFY2(error.empty(), error.c_str());
    error = testing::CheckRoundTrip(result.module);
    QVERIFY2(error.empty(), error.c_str());

    if (source.isEmpty()) {
      // The schedule's intent survives: a parallel outer loop, 32-lane vector code, and the
      // cache buffer compacted to one 32x32 tile allocated inside the parallel loop.
      QVERIFY2(printed.find("T.parallel(4)") != std::string::npos, printed.c_str());
      QVERIFY2(printed.find("T.Broadcast(T.float32(0.0), 32)") != std::string::npos, printed.c_str());
      QVERIFY2(printed.find("C_global = T.alloc_buffer((1024,))") != std::string::npos,
               printed.c_str());
    }
  }

  // Every corpus program and bundled example that lowers prints as TVMScript that parses back
  // to the same module and prints the same again; the few that do not lower say why.
  void loweredCorpusRoundTrips() {
    QString root = QString::fromUtf8(qgetenv("WB_SOURCE_DIR"));
    DiagnosticList diags;
    auto pass = transform::BuildPipeline("tir_lowering", diags);
    QVERIFY(pass.has_value());
    int lowered = 0;
    QStringList problems;
    for (const char* dir : {"/tests/script/corpus/tir", "/resources/examples"}) {
      QDir d(root + dir);
      for (const QString& name : d.entryList({"*.py"}, QDir::Files, QDir::Name)) {
        std::string path = d.filePath(name).toStdString();
        auto parsed = script::Parse(ReadSource(path.substr(root.size() + 1)), path);
        if (!parsed.ok()) continue;
        auto result = transform::RunPipeline(*pass, parsed.module);
        if (!result.ok()) {
          QVERIFY2(!result.diagnostics.empty() && !result.diagnostics[0].message.empty(),
                   path.c_str());
          continue;
        }
        ++lowered;
        if (std::string e = testing::CheckRoundTrip(result.module); !e.empty()) {
          problems << QString::fromStdString(path + ": " + e);
        }
      }
    }
    QVERIFY2(problems.isEmpty(), qPrintable(problems.join("\n")));
    QVERIFY2(lowered >= 70, qPrintable(QString("only %1 programs lowered").arg(lowered)));
  }
};

QTEST_APPLESS_MAIN(TestTirPipeline)
#include "tst_tir_pipeline.moc"
