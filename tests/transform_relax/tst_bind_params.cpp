// BindParams: parameters become constants (by name or by Var), symbolic dims take the constants'
// extents in every type and shape (simplified), the result prints and parses back, and it
// computes what the function as written computes with those constants as arguments. Files:
// BindParams(params_dir=...) reads <param>.npy. Every misuse is an error naming what is there.
#include <QTemporaryDir>
#include <QTest>

#include "relax/type.h"
#include "relax_pass_test.h"
#include "runtime/ndarray.h"
#include "transform/relax/bind_params.h"
#include "workbench/run_check.h"

using namespace relax_pass_test;
using namespace wb;

namespace {

const char* kScalar = R"(
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((), dtype="float32"), s: R.Tensor((), dtype="float32")) -> R.Tensor((), dtype="float32"):
        y = R.multiply(x, s)
        return y
)";

// A dense layer whose weight rows are symbolic until bound.
const char* kDense = R"(
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2, 3), dtype="float32"), w: R.Tensor(("n", 3), dtype="float32")) -> R.Tensor(("n * 2",), dtype="float32"):
        n = T.int64()
        R.func_attr({"num_input": 1})
        with R.dataflow():
            wt = R.permute_dims(w)
            y = R.matmul(x, wt)
            z = R.reshape(y, R.shape([n * 2]))
            R.output(z)
        return z
)";

runtime::NDArray Random(std::vector<int64_t> shape, uint64_t seed) {
  runtime::NDArray a = runtime::NDArray::Empty(std::move(shape), runtime::Float(32));
  runtime::FillRandom(a, seed);
  return a;
}

relax::Constant ConstantOf(const runtime::NDArray& a) {
  std::string bytes(a.CompactBytes(), '\0');
  a.CopyToBytes(bytes.data(), bytes.size());
  return relax::MakeConstant(ir::DataType::Float(32), a.shape(), std::move(bytes));
}

ir::IRModule Parse(const std::string& text) {
  std::string error;
  ir::IRModule m = ParseModule(text, &error);
  if (!m.defined()) qFatal("%s", error.c_str());
  return m;
}

// Runs `pass`; the PassError's message goes to *error.
ir::IRModule Run(const ir::Pass& pass, const ir::IRModule& m, std::string* error) {
  try {
    return pass(m);
  } catch (const ir::PassError& e) {
    *error = e.diagnostic().message;
    return {};
  }
}

// "" when after's main on `inputs` computes what before's main computes on `inputs` + `bound`.
std::string SameAsBound(const ir::IRModule& before, const ir::IRModule& after,
                        const std::vector<runtime::NDArray>& inputs,
                        const std::vector<runtime::NDArray>& bound) {
  std::vector<relax::Value> all, some;
  for (const auto& a : inputs) {
    all.push_back(relax::Value::Tensor(a));
    some.push_back(relax::Value::Tensor(a));
  }
  for (const auto& a : bound) all.push_back(relax::Value::Tensor(a));
  auto r1 = relax::InterpretRelax(before, "main", all, transform::InterpreterOptions());
  if (!r1.ok()) return "the original does not run: " + r1.diagnostics[0].message;
  auto r2 = relax::InterpretRelax(after, "main", some, transform::InterpreterOptions());
  if (!r2.ok()) return "the bound function does not run: " + r2.diagnostics[0].message;
  relax::ValueComparison cmp = relax::CompareValues(r2.value, r1.value);
  return cmp.ok ? "" : cmp.message;
}

std::string RoundTrip(const ir::IRModule& module) {
  std::string error;
  std::string text = script::PrintModule(module);
  auto reparsed = ParseModule(text, &error);
  if (!reparsed.defined()) return "the printed module does not parse:\n" + error + text;
  if (auto mismatch = ir::FindFirstMismatch(reparsed, module)) {
    return "the printed module parses to another module at " + mismatch->lhs_path + ":\n" + text;
  }
  return "";
}

transform::ParamBindings ByName(const std::string& name, const runtime::NDArray& a) {
  return {{transform::ParamKey{name, {}}, ConstantOf(a)}};
}

}  // namespace

class TestBindParams : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  void scalarGolden() {
    ir::IRModule in = Parse(kScalar);
    runtime::NDArray s = runtime::NDArray::Empty({}, runtime::Float(32));
    float value = 2.5f;
    QVERIFY(s.CopyFromBytes(&value, sizeof(value)));
    std::string error;
    ir::IRModule out = Run(transform::BindParams("main", ByName("s", s)), in, &error);
    QVERIFY2(out.defined(), error.c_str());
    ir::IRModule want = Parse(R"(
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((), dtype="float32")) -> R.Tensor((), dtype="float32"):
        y = R.multiply(x, R.const(2.5, "float32"))
        return y
)");
    auto mismatch = ir::FindFirstMismatch(out, want);
    QVERIFY2(!mismatch, (mismatch ? mismatch->lhs_path + "\n" + script::PrintModule(out) : "").c_str());
    QVERIFY2(RoundTrip(out).empty(), RoundTrip(out).c_str());
    std::string diff = SameAsBound(in, out, {Random({}, 3)}, {s});
    QVERIFY2(diff.empty(), diff.c_str());
  }

  void symbolicDimsTakeTheConstantsExtents() {
    ir::IRModule in = Parse(kDense);
    runtime::NDArray w = Random({4, 3}, 1);
    std::string error;
    ir::IRModule out = Run(transform::BindParams("main", ByName("w", w)), in, &error);
    QVERIFY2(out.defined(), error.c_str());
    auto f = out->Lookup("main").as_ref<relax::FunctionNode>();
    QCOMPARE(f->params.size(), size_t{1});
    QCOMPARE(QString::fromStdString(relax::TypeToString(f->ret_struct_info)),
             QString("R.Tensor((8,), \"float32\")"));
    std::string text = script::PrintModule(out);
    QVERIFY2(text.find("R.shape([8])") != std::string::npos, text.c_str());
    QVERIFY2(text.find("R.Tensor((3, 4), dtype=\"float32\") = R.permute_dims") != std::string::npos,
             text.c_str());
    QVERIFY2(text.find("metadata[\"relax.expr.Constant\"][0]") != std::string::npos, text.c_str());
    // The attributes stay, num_input too, as in TVM.
    QVERIFY(f->GetAttr("num_input"));
    DiagnosticList wf = relax::VerifyWellFormed(out);
    QVERIFY2(!wf.HasErrors(), wf.empty() ? "" : wf[0].message.c_str());
    QVERIFY2(RoundTrip(out).empty(), RoundTrip(out).c_str());
    for (uint64_t seed : {5, 6}) {
      std::string diff = SameAsBound(in, out, {Random({2, 3}, seed)}, {w});
      QVERIFY2(diff.empty(), diff.c_str());
    }
  }

  void byVar() {
    ir::IRModule in = Parse(kDense);
    auto f = in->Lookup("main").as_ref<relax::FunctionNode>();
    runtime::NDArray w = Random({5, 3}, 2);
    transform::ParamBindings bindings{{transform::ParamKey{"", f->params[1]}, ConstantOf(w)}};
    std::string error;
    ir::IRModule out = Run(transform::BindParams("main", bindings), in, &error);
    QVERIFY2(out.defined(), error.c_str());
    QCOMPARE(QString::fromStdString(relax::TypeToString(out->Lookup("main").as<relax::FunctionNode>()->ret_struct_info)),
             QString("R.Tensor((10,), \"float32\")"));
    std::string diff = SameAsBound(in, out, {Random({2, 3}, 9)}, {w});
    QVERIFY2(diff.empty(), diff.c_str());
  }

  void thenFoldConstantFoldsTheWeightTranspose() {
    // Bound weights are constants, so FoldConstant does the weight's layout work at compile time.
    ir::IRModule in = Parse(kDense);
    runtime::NDArray w = Random({4, 3}, 4);
    std::string error;
    ir::IRModule bound = Run(transform::BindParams("main", ByName("w", w)), in, &error);
    QVERIFY2(bound.defined(), error.c_str());
    ir::IRModule out = RunPasses("FoldConstant, DeadCodeElimination", bound, &error);
    QVERIFY2(out.defined(), error.c_str());
    std::string text = script::PrintModule(out);
    QVERIFY2(text.find("R.permute_dims") == std::string::npos, text.c_str());
    std::string diff = SameAsBound(in, out, {Random({2, 3}, 8)}, {w});
    QVERIFY2(diff.empty(), diff.c_str());
  }

  void errors_data() {
    QTest::addColumn<QString>("func");
    QTest::addColumn<QString>("param");
    QTest::addColumn<int>("rows");
    QTest::addColumn<QString>("message");
    QTest::newRow("no such parameter")
        << "main" << "w3" << 4
        << "BindParams: 'main' has no parameter named 'w3' (its parameters: x, w)";
    QTest::newRow("no such function")
        << "predict" << "w" << 4
        << "BindParams: the module has no Relax function 'predict' (its Relax functions: main)";
    QTest::newRow("shape does not fit")
        << "main" << "x" << 4
        << "BindParams: the constant for parameter 'x' is R.Tensor((4, 3), \"float32\"), which does not "
           "fit its type R.Tensor((2, 3), \"float32\")";
  }
  void errors() {
    QFETCH(QString, func);
    QFETCH(QString, param);
    QFETCH(int, rows);
    QFETCH(QString, message);
    std::string error;
    ir::IRModule out = Run(transform::BindParams(func.toStdString(), ByName(param.toStdString(), Random({rows, 3}, 0))),
                           Parse(kDense), &error);
    QVERIFY(!out.defined());
    QCOMPARE(QString::fromStdString(error), message);
  }

  void boundTwiceAndConflictingExtents() {
    ir::IRModule in = Parse(R"(
@I.ir_module
class Module:
    @R.function
    def main(a: R.Tensor(("n",), dtype="float32"), b: R.Tensor(("n",), dtype="float32")) -> R.Tensor(("n",), dtype="float32"):
        n = T.int64()
        y = R.add(a, b)
        return y
)");
    std::string error;
    transform::ParamBindings twice = ByName("a", Random({3}, 0));
    twice.push_back(twice[0]);
    QVERIFY(!Run(transform::BindParams("main", twice), in, &error).defined());
    QCOMPARE(QString::fromStdString(error), QString("BindParams: parameter 'a' of 'main' is bound twice"));
    transform::ParamBindings conflict = ByName("a", Random({3}, 0));
    conflict.push_back(ByName("b", Random({4}, 0))[0]);
    QVERIFY(!Run(transform::BindParams("main", conflict), in, &error).defined());
    QCOMPARE(QString::fromStdString(error),
             QString("BindParams: the constants give the symbolic var 'n' two extents, 3 and 4 (parameter 'b')"));
    // Both with the same extent: the function keeps no parameter and its result is static.
    runtime::NDArray a = Random({3}, 1), b = Random({3}, 2);
    transform::ParamBindings both = ByName("a", a);
    both.push_back(ByName("b", b)[0]);
    ir::IRModule out = Run(transform::BindParams("main", both), in, &error);
    QVERIFY2(out.defined(), error.c_str());
    QVERIFY(out->Lookup("main").as<relax::FunctionNode>()->params.empty());
    std::string diff = SameAsBound(in, out, {}, {a, b});
    QVERIFY2(diff.empty(), diff.c_str());
  }

  void fromFilesThroughThePipeline() {
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    runtime::NDArray w = Random({4, 3}, 11);
    std::string why;
    QVERIFY2(runtime::SaveNpy(dir.filePath("w.npy").toStdString(), w, &why), why.c_str());
    ir::IRModule in = Parse(kDense);
    std::string error;
    ir::IRModule out = RunPasses("BindParams(params_dir=\"" + dir.path().toStdString() + "\")", in, &error);
    QVERIFY2(out.defined(), error.c_str());
    QCOMPARE(out->Lookup("main").as<relax::FunctionNode>()->params.size(), size_t{1});
    std::string diff = SameAsBound(in, out, {Random({2, 3}, 12)}, {w});
    QVERIFY2(diff.empty(), diff.c_str());
    // A named parameter without its file, and a parameter that is not there.
    std::string path = dir.path().toStdString();
    QVERIFY(!RunPasses("BindParams(params_dir=\"" + path + "\", names=[\"x\"])", in, &error).defined());
    QCOMPARE(QString::fromStdString(error),
             QString::fromStdString("pipeline failed: pass 'BindParams' failed: BindParams: no file '" + path +
                                    "/x.npy' for parameter 'x'"));
    QVERIFY(!RunPasses("BindParams(params_dir=\"" + path + "\", names=[\"v\"])", in, &error).defined());
    QCOMPARE(QString::fromStdString(error),
             QString("pipeline failed: pass 'BindParams' failed: BindParams: 'main' has no parameter named 'v' "
                     "(its parameters: x, w)"));
    QVERIFY(!RunPasses("BindParams(params_dir=\"" + path + "/nothing\")", in, &error).defined());
    QCOMPARE(QString::fromStdString(error),
             QString::fromStdString("pipeline failed: pass 'BindParams' failed: BindParams: params_dir '" + path +
                                    "/nothing' is not a directory"));
  }

  void boundModuleRunsThroughTheVM() {
    // The run path: the built module has main(x), the reference main(x, w). The reference gets w
    // from the inputs directory (the same file BindParams read); without the file it cannot be
    // checked and says so; without a reference it runs. A different file is a mismatch.
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    std::string why;
    QVERIFY2(runtime::SaveNpy(dir.filePath("w.npy").toStdString(), Random({4, 3}, 21), &why), why.c_str());
    ir::IRModule in = Parse(kDense);
    std::string error;
    ir::IRModule out =
        RunPasses("BindParams(params_dir=\"" + dir.path().toStdString() + "\"), FoldConstant", in, &error);
    QVERIFY2(out.defined(), error.c_str());
    workbench::RunCheckRequest request;
    request.module = out;
    request.reference_module = in;
    request.reference = workbench::ReferenceKind::kInterpreter;
    request.isolate = false;
    request.functions = {"main"};
    request.inputs = dir.path().toStdString();
    auto checked = workbench::RunAndCheck(request);
    QVERIFY2(checked.message.empty(), checked.message.c_str());
    QVERIFY2(checked.Find("main")->ok() && checked.Find("main")->checked(), checked.Find("main")->message.c_str());
    request.inputs = "";
    auto unchecked = workbench::RunAndCheck(request);
    QCOMPARE(unchecked.Find("main")->status, workbench::RunStatus::kFailed);
    QCOMPARE(QString::fromStdString(unchecked.Find("main")->message),
             QString("the pipeline bound the parameter(s) w of main to constants (BindParams): give the reference "
                     "their values as input files (<param>.npy in the inputs directory), or run without a reference"));
    request.reference = workbench::ReferenceKind::kNone;
    QVERIFY(workbench::RunAndCheck(request).Find("main")->ok());
    QTemporaryDir other;
    QVERIFY2(runtime::SaveNpy(other.filePath("w.npy").toStdString(), Random({4, 3}, 22), &why), why.c_str());
    request.inputs = other.path().toStdString();
    request.reference = workbench::ReferenceKind::kInterpreter;
    QCOMPARE(workbench::RunAndCheck(request).Find("main")->status, workbench::RunStatus::kMismatch);
  }

  void registered() {
    const auto* entry = transform::PassRegistry::Global().Find("BindParams");
    QVERIFY(entry);
    QCOMPARE(entry->params.size(), size_t{3});
    QCOMPARE(QString::fromStdString(entry->params[0].name), QString("func_name"));
  }
};

QTEST_APPLESS_MAIN(TestBindParams)
#include "tst_bind_params.moc"
