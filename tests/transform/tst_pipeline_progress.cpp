// Progress and cancellation of pipeline runs, deterministically: the progress callback counts
// leaf passes (named pipelines, nested Sequentials, passes the opt level skips), and cancelling
// from the callback before pass k leaves exactly the k finished passes' snapshots, a cancelled
// flag and a message, and no error diagnostic.
#include <QTest>

#include "ir/transform.h"
#include "script/tvmscript.h"
#include "transform/instrument.h"
#include "transform/registry.h"
#include "workbench/session.h"

using namespace wb;

namespace {

const char* kMatmul = R"(# from tvm.script import ir as I
# from tvm.script import tirx as T

@I.ir_module
class Module:
    @T.prim_func(s_tir=True)
    def main(A: T.Buffer((16, 16), "float32"), B: T.Buffer((16, 16), "float32"), C: T.Buffer((16, 16), "float32")):
        for i, j, k in T.grid(16, 16, 16):
            with T.sblock("C"):
                vi, vj, vk = T.axis.remap("SSR", [i, j, k])
                T.reads(A[vi, vk], B[vk, vj])
                T.writes(C[vi, vj])
                with T.init():
                    C[vi, vj] = T.float32(0.0)
                C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj])";

ir::IRModule Parse() {
  auto r = script::Parse(kMatmul, "m.py");
  if (!r.ok()) qFatal("%s", RenderDiagnostics(r.diagnostics).c_str());
  return r.module;
}

ir::Pass Named(const std::string& name, int opt_level = 0) {
  return ir::CreateModulePass([](ir::IRModule m, const ir::PassContext&) { return m; }, opt_level,
                              name);
}

struct Report {
  int index;
  int total;
  std::string name;
};

}  // namespace

class TestPipelineProgress : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  void totalsCountLeafPassesOfNestedSequentials() {
    ir::Pass nested = ir::Sequential(
        {Named("A"), ir::Sequential({Named("B"), Named("C"), Named("Skipped", /*opt_level=*/3)}),
         ir::Sequential({ir::Sequential({Named("D")})})});
    std::vector<Report> reports;
    transform::PipelineOptions options;
    options.on_pass = [&](int i, int n, const std::string& name) {
      reports.push_back({i, n, name});
    };
    auto result = transform::RunPipeline(nested, Parse(), options);
    QVERIFY(result.ok());
    QVERIFY(!result.cancelled);
    QCOMPARE(result.total_passes, 4);
    QCOMPARE(reports.size(), size_t(4));
    const char* names[] = {"A", "B", "C", "D"};
    for (int i = 0; i < 4; ++i) {
      QCOMPARE(reports[i].index, i);
      QCOMPARE(reports[i].total, 4);
      QCOMPARE(QString::fromStdString(reports[i].name), QString(names[i]));
    }
    QVERIFY(result.CancelledMessage().empty());
  }

  void totalsOfANamedPipeline() {
    std::vector<std::string> stages;
    std::vector<double> fractions;
    auto result = workbench::RunPipelineOn(Parse(), "tir_lowering", {},
                                           [&](const std::string& stage, double fraction) {
                                             stages.push_back(stage);
                                             fractions.push_back(fraction);
                                           });
    QVERIFY2(result.ok(), RenderDiagnostics(result.diagnostics).c_str());
    QCOMPARE(result.total_passes, 13);
    QCOMPARE(result.snapshots.size(), size_t(13));
    QCOMPARE(stages.size(), size_t(13));
    QCOMPARE(QString::fromStdString(stages.front()), QString("pass 1 of 13: LowerInitBlock"));
    QCOMPARE(QString::fromStdString(stages.back()), QString("pass 13 of 13: LowerIntrin"));
    QCOMPARE(fractions.front(), 0.0);
    QCOMPARE(fractions[1], 1.0 / 13);
  }

  void cancellingFromTheCallbackStopsBeforeTheNextPass_data() {
    QTest::addColumn<int>("k");
    QTest::newRow("before the first") << 0;
    QTest::newRow("after 3") << 3;
    QTest::newRow("before the last") << 12;
  }
  void cancellingFromTheCallbackStopsBeforeTheNextPass() {
    QFETCH(int, k);
    workbench::CancellationToken token;
    int reported = 0;
    auto result =
        workbench::RunPipelineOn(Parse(), "tir_lowering", token, [&](const std::string&, double) {
          // Called before pass `reported`: k passes finished.
          if (reported++ == k) token.Cancel();
        });
    QVERIFY(result.cancelled);
    QCOMPARE(result.snapshots.size(), size_t(k));
    QCOMPARE(reported, k + 1);
    QVERIFY(result.ok());
    QCOMPARE(result.diagnostics.size(), size_t(0));
    QCOMPARE(QString::fromStdString(result.CancelledMessage()),
             QString("cancelled after %1 of 13 passes").arg(k));
    // The module is what the last finished pass produced.
    if (k > 0)
      QVERIFY(result.module.same_as(result.snapshots.back().after));
    else
      QVERIFY(result.module.defined());
    for (const auto& s : result.snapshots) QVERIFY(s.after.defined());
  }

  void aTokenCancelledBeforeTheRunRunsNothing() {
    workbench::CancellationToken token;
    token.Cancel();
    auto result = workbench::RunPipelineOn(Parse(), "LowerInitBlock, RemoveNoOp", token);
    QVERIFY(result.cancelled);
    QCOMPARE(result.snapshots.size(), size_t(0));
    QCOMPARE(QString::fromStdString(result.CancelledMessage()),
             QString("cancelled after 0 of 2 passes"));
  }

  void runPipelineOnReportsErrorsAsTheSessionDoes() {
    auto unparsed = workbench::RunPipelineOn(ir::IRModule(), "RemoveNoOp");
    QVERIFY(!unparsed.ok());
    QVERIFY(unparsed.diagnostics[0].message.find("does not parse") != std::string::npos);
    auto unknown = workbench::RunPipelineOn(Parse(), "NoSuchPass");
    QVERIFY(unknown.diagnostics[0].message.find("unknown pass 'NoSuchPass'") != std::string::npos);
    QVERIFY(!unknown.cancelled);
  }

  void theSessionAdoptsARunMadeElsewhere() {
    workbench::Session session;
    session.SetDocument(kMatmul, "m.py");
    auto run = workbench::RunPipelineOn(session.analysis().parse.module, "LowerInitBlock");
    QVERIFY(run.ok());
    session.AdoptRun(run);
    QCOMPARE(session.last_run().snapshots.size(), size_t(1));
    // The synchronous call (the LSP server's and batch mode's) gives the same passes.
    const auto& sync = session.RunPipeline("LowerInitBlock, RemoveNoOp");
    QCOMPARE(sync.snapshots.size(), size_t(2));
    QVERIFY(!sync.cancelled);
  }
};

QTEST_APPLESS_MAIN(TestPipelineProgress)
#include "tst_pipeline_progress.moc"
