// PipelineText: the canonical text of a composed pipeline (what the GUI's composer writes into
// the pipeline box) reads back through ParsePipeline to the same passes and arguments, for every
// registered pass and every argument type, and names only the arguments that differ from their
// defaults.
#include <QTest>
#include <set>

#include "transform/registry.h"

using namespace wb;
using transform::ParamType;
using transform::PassSpec;

namespace {

// A value of `param`'s type that differs from its default.
ir::ObjectRef OtherValue(const transform::PassParam& param) {
  const ir::ObjectRef& d = param.default_value;
  switch (param.type) {
    case ParamType::kInt:
      return ir::MakeInt(d.as<ir::IntObj>()->value + 3);
    case ParamType::kFloat:
      return ir::MakeFloat((d.as<ir::FloatObj>() ? d.as<ir::FloatObj>()->value : 0.0) + 0.125);
    case ParamType::kBool:
      return ir::MakeBool(!d.as<ir::BoolObj>()->value);
    case ParamType::kString:
      return ir::MakeString(d.as<ir::StringObj>()->value + "_x");
    case ParamType::kStringList: {
      std::vector<ir::ObjectRef> items = d.as<ir::ArrayObj>()->items;
      items.push_back(ir::MakeString("main"));
      items.push_back(ir::MakeString("other fn"));
      return ir::MakeArray(std::move(items));
    }
  }
  return ir::ObjectRef();
}

std::string Messages(const DiagnosticList& diags) {
  std::string out;
  for (const auto& d : diags) out += d.message + "\n";
  return out;
}

}  // namespace

class TestPipelineText : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  void defaultsPrintAsBareNames() {
    DiagnosticList diags;
    auto specs = transform::ParsePipeline("FuseOps(fuse_opt_level=-1), LowerInitBlock", diags);
    QVERIFY(specs);
    // fuse_opt_level=-1 is FuseOps's default: not written.
    QCOMPARE(QString::fromStdString(transform::PipelineText(*specs)),
             QString("FuseOps, LowerInitBlock"));
  }

  void everyPassRoundTripsWithNonDefaultArguments() {
    std::vector<PassSpec> specs;
    std::set<ParamType> types_seen;
    for (const transform::PassEntry* entry : transform::PassRegistry::Global().Passes()) {
      PassSpec spec;
      spec.name = entry->name;
      for (const auto& p : entry->params) {
        spec.args.values[p.name] = OtherValue(p);
        types_seen.insert(p.type);
        QVERIFY2(!transform::IsDefaultValue(p, spec.args.values[p.name]), p.name.c_str());
      }
      specs.push_back(std::move(spec));
    }
    // The registry's passes (with tests/testing's, linked in) cover every argument type, so the
    // round trip below covers them too.
    QCOMPARE(types_seen.size(), size_t(5));
    std::string text = transform::PipelineText(specs);
    DiagnosticList diags;
    auto back = transform::ParsePipeline(text, diags);
    QVERIFY2(back, (text + "\n" + Messages(diags)).c_str());
    QCOMPARE(back->size(), specs.size());
    for (size_t i = 0; i < specs.size(); ++i) {
      QCOMPARE((*back)[i].name, specs[i].name);
      const transform::PassEntry* entry = transform::PassRegistry::Global().Find(specs[i].name);
      for (const auto& p : entry->params) {
        const ir::ObjectRef& got = (*back)[i].args.values.at(p.name);
        QVERIFY2(transform::ParamValueText(got) ==
                     transform::ParamValueText(specs[i].args.values.at(p.name)),
                 (specs[i].name + "." + p.name + ": " + transform::ParamValueText(got)).c_str());
        QVERIFY(!transform::IsDefaultValue(p, got));
      }
    }
    // Printing again gives the same text: it is canonical.
    QCOMPARE(transform::PipelineText(*back), text);
  }

  void valuesPrintAsPipelineText() {
    QCOMPARE(transform::ParamValueText(ir::MakeFloat(2.0)), std::string("2.0"));
    QCOMPARE(transform::ParamValueText(ir::MakeFloat(0.1)), std::string("0.1"));
    QCOMPARE(transform::ParamValueText(ir::MakeInt(-7)), std::string("-7"));
    QCOMPARE(transform::ParamValueText(ir::MakeBool(true)), std::string("True"));
    QCOMPARE(transform::ParamValueText(ir::MakeString("shared.dyn")),
             std::string("\"shared.dyn\""));
    // A double quote inside switches to single quotes, which ParsePipeline reads as well.
    QCOMPARE(transform::ParamValueText(ir::MakeString("a\"b")), std::string("'a\"b'"));
    QCOMPARE(transform::ParamValueText(ir::MakeArray({ir::MakeString("f"), ir::MakeString("g")})),
             std::string("[\"f\", \"g\"]"));
    QCOMPARE(transform::ParamValueText(ir::MakeArray({})), std::string("[]"));
  }

  void aQuotedStringRoundTrips() {
    DiagnosticList diags;
    auto specs = transform::ParsePipeline("ThreadSync(storage_scope='sha\"red')", diags);
    QVERIFY2(specs, Messages(diags).c_str());
    std::string text = transform::PipelineText(*specs);
    auto back = transform::ParsePipeline(text, diags);
    QVERIFY(back);
    QCOMPARE((*back)[0].args.String("storage_scope"), std::string("sha\"red"));
  }
};

QTEST_APPLESS_MAIN(TestPipelineText)
#include "tst_pipeline_text.moc"
