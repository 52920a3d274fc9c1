// transform/pass_control.h: the checks every face shares (registered keys and fields, pass names
// with near matches, opt level range, the manifest/LSP JSON shape), what a control does to a
// PassContext (fields merged, passes appended), and RunPipeline running under the current
// context's settings with the control over them.
#include <QTest>
#include <nlohmann/json.hpp>

#include "script/tvmscript.h"
#include "transform/instrument.h"
#include "transform/pass_control.h"

using namespace wb;
using nlohmann::json;

namespace {

const char* kScale = R"(@T.prim_func
def scale(A: T.Buffer((8,), "float32"), B: T.Buffer((8,), "float32")):
    for i in range(8):
        B[i] = A[i] * T.float32(2.0)
)";

int64_t IntField(const transform::PassControl& c, const std::string& key, const std::string& field) {
  auto* map = c.config.at(key).as<ir::MapObj>();
  return map->items.at(field).as<ir::IntObj>()->value;
}

}  // namespace

class TestPassControl : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  void nearMatches() {
    std::vector<std::string> names = {"RemoveNoOp", "UnrollLoop", "Simplify", "FuseOps", "FuseTIR"};
    QCOMPARE(transform::NearMatches("RemoveNoop", names), std::vector<std::string>{"RemoveNoOp"});
    QCOMPARE(transform::NearMatches("unroll", names), std::vector<std::string>{"UnrollLoop"});
    QCOMPARE(transform::NearMatches("FuseOp", names), std::vector<std::string>{"FuseOps"});
    QCOMPARE(transform::NearMatches("fuse", names), (std::vector<std::string>{"FuseOps", "FuseTIR"}));
    QVERIFY(transform::NearMatches("Qqqqqqqq", names).empty());
  }

  void configTextIsCheckedAndMerged() {
    transform::PassControl c;
    DiagnosticList d;
    QVERIFY(transform::AddConfigText(R"(tirx.UnrollLoop={"auto_max_step": 4, "explicit_unroll": false})", &c, d));
    QVERIFY(transform::AddConfigText(R"(tirx.UnrollLoop={"auto_max_step": 16})", &c, d));
    QVERIFY(d.empty());
    QCOMPARE(IntField(c, "tirx.UnrollLoop", "auto_max_step"), int64_t(16));
    QVERIFY(!c.config.at("tirx.UnrollLoop").as<ir::MapObj>()->items.at("explicit_unroll").as<ir::BoolObj>()->value);
    QVERIFY(!transform::AddConfigText(R"(tirx.UnrollLoop={"explicit_unroll": 1})", &c, d));
    QVERIFY(d[0].message.find("expects a bool (True or False), got 1") != std::string::npos);
    QVERIFY(!transform::AddConfigText(R"(tirx.UnrollLoop=[1])", &c, d));
    QVERIFY(d[1].message.find("takes a JSON object of its fields (auto_max_step,") != std::string::npos);
    // A refused value leaves the control as it was.
    QCOMPARE(IntField(c, "tirx.UnrollLoop", "auto_max_step"), int64_t(16));
  }

  void applyToMergesIntoTheContext() {
    ir::PassContext context;
    context.config["tirx.UnrollLoop"] = ir::MakeMap({{"auto_max_depth", ir::MakeInt(2)}});
    context.disabled_passes = {"Simplify"};
    transform::PassControl c;
    DiagnosticList d;
    QVERIFY(transform::SetOptLevel(3, &c, d));
    QVERIFY(transform::AddConfigText(R"(tirx.UnrollLoop={"auto_max_step": 8})", &c, d));
    QVERIFY(transform::AddDisabledPass("Simplify", &c, d));
    QVERIFY(transform::AddDisabledPass("RemoveNoOp", &c, d));
    c.ApplyTo(context);
    QCOMPARE(context.opt_level, 3);
    QCOMPARE(context.disabled_passes, (std::vector<std::string>{"Simplify", "RemoveNoOp"}));
    QVERIFY(context.GetConfig("tirx.UnrollLoop", "auto_max_depth"));
    QVERIFY(context.GetConfig("tirx.UnrollLoop", "auto_max_step"));
    QVERIFY(!transform::SetOptLevel(5, &c, d));
    QVERIFY(d.HasErrors());
  }

  void readsTheJsonShapeAndWritesItBack() {
    json in = {{"opt_level", 1},
               {"pass_config", {{"relax.FuseOps", {{"max_depth", 3}}}}},
               {"disabled_passes", {"RemoveNoOp"}},
               {"required_passes", {"Simplify"}}};
    transform::PassControl c;
    DiagnosticList d;
    QVERIFY(transform::ReadPassControl(in, &c, d, "case 'x': "));
    QVERIFY2(c.ToJson() == in, c.ToJson().dump().c_str());
    json bad = {{"disabled_passes", "RemoveNoOp"}, {"pass_config", {{"nope", json::object()}}}};
    transform::PassControl c2;
    QVERIFY(!transform::ReadPassControl(bad, &c2, d, "case 'x': "));
    bool list = false, key = false;
    for (const auto& diag : d) {
      list |= diag.message == "case 'x': field 'disabled_passes' must be a list of pass names";
      key |= diag.message.rfind("case 'x': field 'pass_config': unknown pass config key 'nope'", 0) == 0;
    }
    QVERIFY(list && key);
  }

  void runPipelineRunsUnderTheCurrentContextAndTheControl() {
    script::ParseResult parsed = script::Parse(kScale, "scale.py");
    QVERIFY(parsed.ok());
    DiagnosticList d;
    auto pass = transform::BuildPipeline("UnrollLoop, RemoveNoOp", d);
    QVERIFY(pass);
    // The context a face entered for the whole command.
    transform::PassControl outer;
    QVERIFY(transform::AddConfigText(R"(tirx.UnrollLoop={"auto_max_step": 8})", &outer, d));
    ir::PassContext context = transform::ContextWith(outer);
    ir::PassContext::Scope scope(context);
    transform::PipelineOptions options;
    QVERIFY(transform::AddDisabledPass("RemoveNoOp", &options.control, d));
    transform::PipelineResult run = transform::RunPipeline(*pass, parsed.module, options);
    QVERIFY(run.ok());
    QCOMPARE(run.snapshots.size(), size_t(1));
    QVERIFY(run.snapshots[0].changed());
    QVERIFY(run.snapshots[0].AfterText().find("for i") == std::string::npos);
    // The control wins over the context.
    QVERIFY(transform::AddConfigText(R"(tirx.UnrollLoop={"auto_max_step": 4})", &options.control, d));
    run = transform::RunPipeline(*pass, parsed.module, options);
    QVERIFY(!run.snapshots[0].changed());
  }
};

QTEST_APPLESS_MAIN(TestPassControl)
#include "tst_pass_control.moc"
