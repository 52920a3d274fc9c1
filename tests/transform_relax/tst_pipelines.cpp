// TVM's named pipelines: registered as text, documented with what is missing here, and, run on a
// two-layer MLP written with Relax ops, they lower it as TVM's do and keep what it computes
// (checked through the Relax interpreter, which evaluates the original's op calls by legalizing
// them).
#include <QTest>

#include "relax/expr.h"
#include "relax/well_formed.h"
#include "relax_pass_test.h"

using namespace relax_pass_test;
using namespace wb;

namespace {

const char* kMlp = R"(
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2, 8), dtype="float32"), w0: R.Tensor((8, 16), dtype="float32"), b0: R.Tensor((16,), dtype="float32"), w1: R.Tensor((16, 4), dtype="float32"), b1: R.Tensor((4,), dtype="float32")) -> R.Tensor((2, 4), dtype="float32"):
        with R.dataflow():
            lv = R.matmul(x, w0)
            lv1 = R.add(lv, b0)
            lv2 = R.nn.relu(lv1)
            lv3 = R.matmul(lv2, w1)
            gv = R.add(lv3, b1)
            R.output(gv)
        return gv
)";

// Counts the op calls named `op` in the printed module.
int Count(const std::string& text, const std::string& what) {
  int n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

bool AllRegistered(const std::string& pipeline, std::string* missing) {
  const std::string* text = transform::PassRegistry::Global().FindPipeline(pipeline);
  if (!text) return false;
  std::string name;
  for (char c : *text + ",") {
    if (c == ',') {
      if (!transform::PassRegistry::Global().Find(name)) *missing += name + " ";
      name.clear();
    } else if (c != ' ') {
      name += c;
    }
  }
  return missing->empty();
}

}  // namespace

class TestPipelines : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  void registeredAsTvmNamesThem() {
    auto& registry = transform::PassRegistry::Global();
    const std::string* zero = registry.FindPipeline("zero_pipeline");
    QVERIFY(zero);
    QCOMPARE(*zero, std::string("LegalizeOps, AnnotateTIROpPattern, FoldConstant, FuseOps, FuseTIR"));
    const std::string* build = registry.FindPipeline("default_build_pipeline");
    QVERIFY(build);
    QCOMPARE(*build,
             std::string("LegalizeOps, ApplyDefaultSchedule, ToNonDataflow, RemovePurityChecking, "
                         "CallTIRRewrite, StaticPlanBlockMemory, AttachGlobalSymbol"));
    // Every pass of ours that the pipelines name is registered under that name.
    for (const char* name : {"FoldConstant", "ApplyDefaultSchedule", "ToNonDataflow", "RemovePurityChecking", "CallTIRRewrite",
                             "StaticPlanBlockMemory", "AttachGlobalSymbol"}) {
      QVERIFY2(registry.Find(name), name);
    }
  }

  void defaultBuildPipelineAllocatesExplicitly() {
    std::string error;
    ir::IRModule m = ParseModule(kMlp, &error);
    QVERIFY2(m.defined(), error.c_str());
    ir::IRModule out = RunPasses("default_build_pipeline", m, &error);
    QVERIFY2(out.defined(), error.c_str());
    std::string text = script::PrintModule(out);
    QVERIFY2(Count(text, "R.call_tir(") == 0 && Count(text, "R.matmul(") == 0 &&
                 Count(text, "R.add(") == 0 && Count(text, "R.dataflow") == 0,
             text.c_str());
    // Five results: the returned one keeps its own allocation; the four intermediates share two
    // storages (StaticPlanBlockMemory).
    QVERIFY2(Count(text, "R.builtin.alloc_tensor(") == 1, text.c_str());
    QVERIFY2(Count(text, "R.memory.alloc_tensor(") == 4 && Count(text, "R.memory.alloc_storage(") == 2, text.c_str());
    QVERIFY2(Count(text, "\"relax.force_pure\": True") == 1, text.c_str());
    QVERIFY2(Count(text, "@T.prim_func") >= 3, text.c_str());
    DiagnosticList wf = relax::VerifyWellFormed(out);
    QVERIFY2(!wf.HasErrors(), wf.empty() ? "" : wf[0].message.c_str());
    std::string diff = SameResults(m, out);
    QVERIFY2(diff.empty(), diff.c_str());
  }

  void zeroPipelineFusesAndKeepsMeaning() {
    std::string missing;
    if (!AllRegistered("zero_pipeline", &missing)) {
      QSKIP(("passes of another branch not in this build: " + missing).c_str());
    }
    std::string error;
    ir::IRModule m = ParseModule(kMlp, &error);
    QVERIFY2(m.defined(), error.c_str());
    ir::IRModule out = RunPasses("zero_pipeline", m, &error);
    QVERIFY2(out.defined(), error.c_str());
    std::string text = script::PrintModule(out);
    QVERIFY2(Count(text, "R.matmul(") == 0 && Count(text, "R.call_tir(") >= 1, text.c_str());
    std::string diff = SameResults(m, out);
    QVERIFY2(diff.empty(), diff.c_str());
  }
};

QTEST_APPLESS_MAIN(TestPipelines)
#include "tst_pipelines.moc"
