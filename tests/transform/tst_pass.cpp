// The pass infrastructure: Sequential, PassContext (opt level, required/disabled passes, config),
// instruments (snapshots with structural hashes and timing, well-formedness after each pass), the
// registry with typed arguments and pipeline text, and failures that name the pass.
#include <QTest>

#include "ir/transform.h"
#include "script/tvmscript.h"
#include "tir/functor.h"
#include "tir/op.h"
#include "tir/transform.h"
#include "tir/verifier.h"
#include "transform/instrument.h"
#include "transform/registry.h"

using namespace wb;
using tir::PrimFunc;

namespace {

const char* kModule = R"(# from tvm.script import ir as I
# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis

@I.ir_module
class Module:
    @T.prim_func
    def scale(A: T.Buffer((8,), "float32"), B: T.Buffer((8,), "float32")):
        for i in range(8):
            B[i] = A[i] * T.float32(2.0))";

ir::IRModule Parse() {
  auto r = script::Parse(kModule, "m.py");
  if (!r.ok()) qFatal("%s", RenderDiagnostics(r.diagnostics).c_str());
  return r.module;
}

// Multiplies every float literal by a factor.
class ScaleFloats : public tir::StmtExprMutator {
 public:
  explicit ScaleFloats(double f) : factor_(f) {}
  using tir::StmtExprMutator::VisitExpr_;
  ir::PrimExpr VisitExpr_(const tir::FloatImmNode* op) override {
    return tir::MakeFloatImm(op->dtype, op->value * factor_);
  }

 private:
  double factor_;
};

ir::Pass ScaleConstantsPass(double factor, int opt_level = 0) {
  return tir::CreateBodyRewritePass(
      [factor](const tir::Stmt& body) { return ScaleFloats(factor)(body); }, opt_level,
      "ScaleConstants");
}

ir::Pass IdentityPass(std::vector<std::string> required = {}) {
  return ir::CreateModulePass([](ir::IRModule m, const ir::PassContext&) { return m; }, 0,
                              "Identity", std::move(required));
}

// Replaces every loop variable use with a fresh, undefined variable.
class Unbind : public tir::StmtExprMutator {
 public:
  using tir::StmtExprMutator::VisitExpr_;
  ir::PrimExpr VisitExpr_(const tir::VarNode* op) override {
    if (op->dtype.is_int()) return tir::MakeVar("ghost", op->dtype);
    return ir::GetRef(op);
  }
};

ir::Pass BreakItPass() {
  return tir::CreatePrimFuncPass(
      [](PrimFunc f, const ir::IRModule&, const ir::PassContext&) {
        PrimFunc copy = f;
        copy.CopyOnWrite()->body = Unbind()(f->body);
        return copy;
      },
      0, "BreakIt");
}

ir::Pass ThrowingPass() {
  return ir::CreateModulePass(
      [](ir::IRModule, const ir::PassContext&) -> ir::IRModule {
        throw ir::PassError(Diagnostic::Error("unsupported construct: T.frobnicate"));
      },
      0, "Throwing");
}

void RegisterTestPasses() {
  static bool done = false;
  if (done) return;
  done = true;
  auto& reg = transform::PassRegistry::Global();
  reg.Register({"ScaleConstants",
                "multiplies float literals",
                {{"factor", transform::ParamType::kFloat, ir::MakeFloat(2.0), "the factor"},
                 {"verbose", transform::ParamType::kBool, ir::MakeBool(false), ""},
                 {"only", transform::ParamType::kStringList, ir::MakeArray({}), ""}},
                [](const transform::PassArgs& a) { return ScaleConstantsPass(a.Float("factor")); }});
  reg.Register({"Identity", "does nothing", {}, [](const transform::PassArgs&) {
                  return IdentityPass();
                }});
  reg.RegisterPipeline("test_pipeline", "Identity, ScaleConstants(factor=10)", "for tests");
}

QString Messages(const DiagnosticList& diags) {
  QString out;
  for (const auto& d : diags) out += QString::fromStdString(d.message) + "\n";
  return out;
}

}  // namespace

class TestPass : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  void initTestCase() { RegisterTestPasses(); }

  void snapshotsRecordEveryPassAndWhetherItChanged() {
    ir::Pass seq = ir::Sequential({IdentityPass(), ScaleConstantsPass(3.0), IdentityPass()});
    auto result = transform::RunPipeline(seq, Parse());
    QVERIFY2(result.ok(), qPrintable(Messages(result.diagnostics)));
    QCOMPARE(result.snapshots.size(), size_t(3));
    QCOMPARE(QString::fromStdString(result.snapshots[1].name), QString("ScaleConstants"));
    QVERIFY(!result.snapshots[0].changed());
    QVERIFY(result.snapshots[1].changed());
    QVERIFY(!result.snapshots[2].changed());
    QVERIFY(result.snapshots[1].BeforeText().find("T.float32(2.0)") != std::string::npos);
    QVERIFY(result.snapshots[1].AfterText().find("T.float32(6.0)") != std::string::npos);
    QVERIFY(result.snapshots[1].milliseconds >= 0);
    // Unchanged functions keep their identity through a PrimFunc pass.
    QVERIFY(result.snapshots[0].after.same_as(result.snapshots[0].before));
  }

  void optLevelRequiredAndDisabled() {
    ir::Pass seq = ir::Sequential({ScaleConstantsPass(3.0, /*opt_level=*/3)});
    transform::PipelineOptions opts;
    opts.control.opt_level = 2;
    QCOMPARE(transform::RunPipeline(seq, Parse(), opts).snapshots.size(), size_t(0));
    opts.control.opt_level = 3;
    QCOMPARE(transform::RunPipeline(seq, Parse(), opts).snapshots.size(), size_t(1));

    ir::PassContext ctx;
    ctx.opt_level = 0;
    ctx.required_passes = {"ScaleConstants"};
    QVERIFY(ctx.PassEnabled(ScaleConstantsPass(1.0, 3).info()));
    ctx.disabled_passes = {"ScaleConstants"};
    ctx.required_passes.clear();
    QVERIFY(!ctx.PassEnabled(ScaleConstantsPass(1.0, 0).info()));
  }

  void requiredPassesRunFirstOnce() {
    std::vector<std::string> order;
    auto recorder = [&order](std::string name, std::vector<std::string> req) {
      return ir::CreateModulePass(
          [&order, name](ir::IRModule m, const ir::PassContext&) {
            order.push_back(name);
            return m;
          },
          0, name, std::move(req));
    };
    ir::Pass seq = ir::Sequential({recorder("A", {}), recorder("B", {"A"}), recorder("C", {"A"})});
    ir::PassContext ctx;
    seq.Run(Parse(), ctx);
    QCOMPARE(order, (std::vector<std::string>{"A", "B", "C"}));
    order.clear();
    ir::Pass seq2 = ir::Sequential({recorder("B", {"A"}), recorder("A", {})});
    seq2.Run(Parse(), ctx);
    QCOMPARE(order, (std::vector<std::string>{"A", "B", "A"}));
  }

  void instrumentCanSkipPasses() {
    class SkipScale : public ir::PassInstrument {
     public:
      std::string name() const override { return "SkipScale"; }
      bool ShouldRun(const ir::IRModule&, const ir::PassInfo& info) override {
        return info.name != "ScaleConstants";
      }
    };
    ir::PassContext ctx;
    ctx.instruments.push_back(std::make_shared<SkipScale>());
    ir::IRModule in = Parse();
    ir::IRModule out = ir::Sequential({ScaleConstantsPass(5.0)}).Run(in, ctx);
    QVERIFY(out.same_as(in));
  }

  void verifierNamesThePassThatBrokeTheIR() {
    auto result = transform::RunPipeline(ir::Sequential({IdentityPass(), BreakItPass()}), Parse());
    QVERIFY(!result.ok());
    QString message = QString::fromStdString(result.diagnostics[0].message);
    QVERIFY2(message.startsWith("pass 'BreakIt' produced ill-formed IR: variable 'ghost'"),
             qPrintable(message));
    // Each finding is said once: the first as the headline, every other one as a note.
    ir::IRModule broken = BreakItPass()(Parse());
    size_t findings = tir::VerifyWellFormed(broken).size();
    QVERIFY(findings >= 1);
    QCOMPARE(result.diagnostics[0].notes.size(), findings - 1);
    QCOMPARE(result.snapshots.size(), size_t(2));
  }

  void failingPassIsReportedByName() {
    auto result = transform::RunPipeline(ir::Sequential({IdentityPass(), ThrowingPass()}), Parse());
    QVERIFY(!result.ok());
    QCOMPARE(QString::fromStdString(result.diagnostics[0].message),
             QString("pass 'Throwing' failed: unsupported construct: T.frobnicate"));
    QVERIFY(result.module.defined());
  }

  void contextConfig() {
    ir::PassContext ctx;
    ctx.config["tirx.UnrollLoop"] = ir::MakeMap({{"auto_max_step", ir::MakeInt(10)}});
    const ir::Object* v = ctx.GetConfig("tirx.UnrollLoop", "auto_max_step");
    QVERIFY(v && v->type_index() == ir::TypeIndex::kInt);
    QVERIFY(!ctx.GetConfig("tirx.UnrollLoop", "explicit_unroll"));
    QVERIFY(!ctx.GetConfig("other", "x"));
    {
      ir::PassContext::Scope scope(ctx);
      QCOMPARE(&ir::PassContext::Current(), &ctx);
    }
    QVERIFY(&ir::PassContext::Current() != &ctx);
  }

  void pipelineTextBuildsPasses() {
    DiagnosticList diags;
    auto specs = transform::ParsePipeline(
        " Identity , ScaleConstants(factor=3, verbose=True, only=[\"a\", \"b\"])", diags);
    QVERIFY2(specs.has_value(), qPrintable(Messages(diags)));
    QCOMPARE(specs->size(), size_t(2));
    QCOMPARE((*specs)[1].args.Float("factor"), 3.0);
    QCOMPARE((*specs)[1].args.Bool("verbose"), true);
    QCOMPARE((*specs)[1].args.StringList("only"), (std::vector<std::string>{"a", "b"}));
    QCOMPARE((*specs)[1].column, 13u);
    QCOMPARE((*specs)[0].args.values.size(), size_t(0));

    auto pass = transform::BuildPipeline("ScaleConstants(factor=0.5)", diags);
    QVERIFY(pass.has_value());
    auto result = transform::RunPipeline(*pass, Parse());
    QVERIFY(result.module->functions.size() == 1);
    QVERIFY(script::PrintModule(result.module).find("T.float32(1.0)") != std::string::npos);
  }

  void namedPipelines() {
    DiagnosticList diags;
    auto specs = transform::ParsePipeline("test_pipeline", diags);
    QVERIFY(specs.has_value());
    QCOMPARE(specs->size(), size_t(2));
    QCOMPARE((*specs)[1].args.Float("factor"), 10.0);
  }

  void pipelineErrors_data() {
    QTest::addColumn<QString>("text");
    QTest::addColumn<QString>("message");
    QTest::newRow("unknown") << "Identity, LegalizeOpz"
                             << "unknown pass 'LegalizeOpz' (column 11)";
    QTest::newRow("bad arg") << "ScaleConstants(level=2)"
                             << "pass 'ScaleConstants' has no argument 'level' (it takes: factor, "
                                "verbose, only) (column 16)";
    QTest::newRow("no args") << "Identity(x=1)"
                             << "pass 'Identity' has no argument 'x' (it takes none) (column 10)";
    QTest::newRow("type") << "ScaleConstants(verbose=3)"
                          << "argument 'verbose' of ScaleConstants expects a bool (True or False), "
                             "got '3' (column 24)";
    QTest::newRow("unclosed") << "ScaleConstants(factor=2"
                              << "missing ')' after the arguments of ScaleConstants (column 1)";
    QTest::newRow("empty") << "  " << "the pipeline is empty (column 3)";
    QTest::newRow("separator") << "Identity Identity"
                               << "expected ',' between passes, found 'I' (column 10)";
    QTest::newRow("not a name") << "Identity, (x)" << "expected a pass name, found '(' (column 11)";
  }
  void pipelineErrors() {
    QFETCH(QString, text);
    QFETCH(QString, message);
    DiagnosticList diags;
    auto specs = transform::ParsePipeline(text.toStdString(), diags);
    QVERIFY(!specs.has_value());
    QVERIFY(!diags.empty());
    QCOMPARE(QString::fromStdString(diags[0].message), message);
  }

  void pipelineErrorsPointIntoTheSource() {
    auto file = std::make_shared<SourceFile>("pipeline.txt", "Identity, Nope");
    DiagnosticList diags;
    QVERIFY(!transform::ParsePipeline(file->text(), diags, file).has_value());
    QCOMPARE(diags[0].span.start().column, 11u);
    QCOMPARE(QString::fromStdString(std::string(diags[0].span.text())), QString("Nope"));
  }
};

QTEST_APPLESS_MAIN(TestPass)
#include "tst_pass.moc"
