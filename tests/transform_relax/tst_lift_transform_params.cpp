// LiftTransformParams: the bindings that read only weights (the parameters after num_input) move
// into <name>_transform_params, and <name> takes its inputs and the transformed values; symbolic
// vars only the weights define travel as an R.shape; bindings outside dataflow blocks and those
// that read an input stay; lift_constants moves computations on R.const data. Every case is
// checked against the module as written on random inputs (the transform function run first, as
// callers run it), through the Relax interpreter and, for the model, through the VM.
#include <QTest>

#include "frontend/onnx/onnx_frontend.h"
#include "relax/type.h"
#include "runtime/ndarray.h"
#include "relax_pass_test.h"
#include "transform/relax/lift_transform_params.h"
#include "workbench/run_check.h"

using namespace relax_pass_test;

namespace {

// A dense layer whose weight is stored transposed: the permute_dims of the weight is per-call
// work until it is lifted.
const char* kDense = R"(
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2, 3), dtype="float32"), w: R.Tensor((4, 3), dtype="float32"), b: R.Tensor((4,), dtype="float32")) -> R.Tensor((2, 4), dtype="float32"):
        R.func_attr({"num_input": 1})
        with R.dataflow():
            wt = R.permute_dims(w, axes=[1, 0])
            y = R.matmul(x, wt)
            z = R.add(y, b)
            R.output(z)
        return z
)";

const char* kDenseLifted = R"(
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2, 3), dtype="float32"), b: R.Tensor((4,), dtype="float32"), wt: R.Tensor((3, 4), dtype="float32")) -> R.Tensor((2, 4), dtype="float32"):
        R.func_attr({"num_input": 1})
        with R.dataflow():
            y = R.matmul(x, wt)
            z = R.add(y, b)
            R.output(z)
        return z

    @R.function
    def main_transform_params(params: R.Tuple(R.Tensor((4, 3), dtype="float32"), R.Tensor((4,), dtype="float32"))) -> R.Tuple(R.Tensor((4,), dtype="float32"), R.Tensor((3, 4), dtype="float32")):
        R.func_attr({"num_input": 0})
        with R.dataflow():
            w = params[0]
            b = params[1]
            wt = R.permute_dims(w, axes=[1, 0])
            transformed = (b, wt)
            R.output(transformed)
        return transformed
)";

int CountCalls(const wb::ir::IRModule& module, const std::string& func, const std::string& op) {
  auto f = module->Lookup(func).as_ref<wb::relax::FunctionNode>();
  if (!f.defined()) return -1;
  int n = 0;
  auto* seq = f->body.as<wb::relax::SeqExprNode>();
  for (const auto& block : seq->blocks) {
    for (const auto& b : block->bindings) {
      auto* vb = b.as<wb::relax::VarBindingNode>();
      auto* call = vb ? vb->value.as<wb::relax::CallNode>() : nullptr;
      auto* o = call ? call->op.as<wb::ir::OpNode>() : nullptr;
      n += o && o->name == op;
    }
  }
  return n;
}

std::string ParamTypes(const wb::ir::IRModule& module, const std::string& func) {
  auto f = module->Lookup(func).as_ref<wb::relax::FunctionNode>();
  std::string out;
  for (const auto& p : f->params) {
    out += (out.empty() ? "" : "; ") + p->name_hint + ": " + wb::relax::TypeToString(p->struct_info);
  }
  return out;
}

// "" when the printed module parses back to the same module.
std::string RoundTrip(const wb::ir::IRModule& module) {
  std::string error;
  std::string text = wb::script::PrintModule(module);
  auto reparsed = ParseModule(text, &error);
  if (!reparsed.defined()) return "the printed module does not parse:\n" + error + text;
  if (auto mismatch = wb::ir::FindFirstMismatch(reparsed, module)) {
    return "the printed module parses to another module at " + mismatch->lhs_path + ":\n" + text;
  }
  return "";
}

}  // namespace

class TestLiftTransformParams : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  void weightTransposeMovesOut() {
    std::string err = GoldenCase("LiftTransformParams", kDense, kDenseLifted);
    QVERIFY2(err.empty(), err.c_str());
  }

  void unusedWeightsLeaveTheSignature() {
    // w is only read through its transpose: main no longer takes it. The If branch's binding is
    // outside a dataflow block and stays; so does the work on the input.
    std::string err = GoldenCase("LiftTransformParams", R"(
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((3,), dtype="float32"), w: R.Tensor((3,), dtype="float32"), v: R.Tensor((3,), dtype="float32")) -> R.Tensor((3,), dtype="float32"):
        R.func_attr({"num_input": 1})
        with R.dataflow():
            w2 = R.multiply(w, w)
            wv = R.add(w2, v)
            xv = R.add(x, wv)
            R.output(xv, w2)
        y = R.subtract(xv, w2)
        return y
)", R"(
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((3,), dtype="float32"), w2: R.Tensor((3,), dtype="float32"), wv: R.Tensor((3,), dtype="float32")) -> R.Tensor((3,), dtype="float32"):
        R.func_attr({"num_input": 1})
        with R.dataflow():
            xv = R.add(x, wv)
            R.output(xv)
        y = R.subtract(xv, w2)
        return y

    @R.function
    def main_transform_params(params: R.Tuple(R.Tensor((3,), dtype="float32"), R.Tensor((3,), dtype="float32"))) -> R.Tuple(R.Tensor((3,), dtype="float32"), R.Tensor((3,), dtype="float32")):
        R.func_attr({"num_input": 0})
        with R.dataflow():
            w = params[0]
            v = params[1]
            w2 = R.multiply(w, w)
            wv = R.add(w2, v)
            transformed = (w2, wv)
            R.output(transformed)
        return transformed
)");
    QVERIFY2(err.empty(), err.c_str());
  }

  void bindingsOutsideDataflowStay() {
    std::string error;
    auto in = ParseModule(R"(
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((3,), dtype="float32"), w: R.Tensor((3,), dtype="float32")) -> R.Tensor((3,), dtype="float32"):
        R.func_attr({"num_input": 1})
        w2 = R.multiply(w, w)
        y = R.add(x, w2)
        return y
)", &error);
    QVERIFY2(in.defined(), error.c_str());
    auto out = RunPasses("LiftTransformParams", in, &error);
    QVERIFY2(out.defined(), error.c_str());
    QCOMPARE(CountCalls(out, "main", "relax.multiply"), 1);
    QCOMPARE(QString::fromStdString(ParamTypes(out, "main")),
             QString("x: R.Tensor((3,), \"float32\"); w: R.Tensor((3,), \"float32\")"));
    QVERIFY2(SameResults(in, out).empty(), SameResults(in, out).c_str());
  }

  void symbolicVarsOnlyWeightsDefineTravelAsAShape() {
    // n is defined by the weight alone; main still needs it (R.zeros of n, which reads neither
    // inputs nor weights, stays there), and the transformed value (a sum) does not define it.
    std::string error;
    auto in = ParseModule(R"(
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2,), dtype="float32"), w: R.Tensor(("n",), dtype="float32")) -> R.Tuple(R.Tensor((2,), dtype="float32"), R.Tensor(("n",), dtype="float32")):
        n = T.int64()
        R.func_attr({"num_input": 1})
        with R.dataflow():
            s = R.sum(w)
            z = R.zeros(R.shape([n]), dtype="float32")
            y = R.add(x, s)
            out = (y, z)
            R.output(out)
        return out
)", &error);
    QVERIFY2(in.defined(), error.c_str());
    auto out = RunPasses("LiftTransformParams", in, &error);
    QVERIFY2(out.defined(), error.c_str());
    QCOMPARE(QString::fromStdString(ParamTypes(out, "main")),
             QString("x: R.Tensor((2,), \"float32\"); vars_from_compile_time_params: R.Shape([n]); "
                     "s: R.Tensor((), \"float32\")"));
    QCOMPARE(CountCalls(out, "main", "relax.sum"), 0);
    QCOMPARE(CountCalls(out, "main", "relax.zeros"), 1);
    auto t = out->Lookup("main_transform_params").as_ref<wb::relax::FunctionNode>();
    QVERIFY(t.defined());
    QCOMPARE(QString::fromStdString(wb::relax::TypeToString(t->ret_struct_info)),
             QString("R.Tuple(R.Shape([n]), R.Tensor((), \"float32\"))"));
    wb::DiagnosticList wf = wb::relax::VerifyWellFormed(out);
    QVERIFY2(!wf.HasErrors(), wf.empty() ? "" : wf[0].message.c_str());
    QVERIFY2(RoundTrip(out).empty(), RoundTrip(out).c_str());
    QVERIFY2(SameResults(in, out).empty(), SameResults(in, out).c_str());
  }

  void workOnInputsIsNotLifted() {
    // A binding that reads an input, or a symbolic var only an input defines, stays.
    std::string error;
    auto in = ParseModule(R"(
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor(("m", 3), dtype="float32"), w: R.Tensor((3, 3), dtype="float32")) -> R.Tensor(("m", 3), dtype="float32"):
        m = T.int64()
        R.func_attr({"num_input": 1})
        with R.dataflow():
            e = R.zeros(R.shape([m, 3]), dtype="float32")
            wt = R.permute_dims(w)
            y = R.matmul(x, wt)
            z = R.add(y, e)
            R.output(z)
        return z
)", &error);
    QVERIFY2(in.defined(), error.c_str());
    auto out = RunPasses("LiftTransformParams", in, &error);
    QVERIFY2(out.defined(), error.c_str());
    QCOMPARE(CountCalls(out, "main", "relax.permute_dims"), 0);
    QCOMPARE(CountCalls(out, "main", "relax.zeros"), 1);
    QCOMPARE(CountCalls(out, "main", "relax.matmul"), 1);
    QCOMPARE(CountCalls(out, "main_transform_params", "relax.zeros"), 0);
    QVERIFY2(SameResults(in, out).empty(), SameResults(in, out).c_str());
  }

  void functionsWithoutNumInputAreLeft() {
    std::string error;
    auto in = ParseModule(R"(
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((3,), dtype="float32"), w: R.Tensor((3,), dtype="float32")) -> R.Tensor((3,), dtype="float32"):
        with R.dataflow():
            w2 = R.multiply(w, w)
            y = R.add(x, w2)
            R.output(y)
        return y
)", &error);
    QVERIFY2(in.defined(), error.c_str());
    auto out = RunPasses("LiftTransformParams", in, &error);
    QVERIFY2(out.defined(), error.c_str());
    QVERIFY(!wb::ir::FindFirstMismatch(in, out));
    QVERIFY(!out->Lookup("main_transform_params").defined());
  }

  void liftingTwiceChangesNothing() {
    std::string error;
    auto in = ParseModule(kDense, &error);
    auto once = RunPasses("LiftTransformParams", in, &error);
    QVERIFY2(once.defined(), error.c_str());
    auto twice = RunPasses("LiftTransformParams", once, &error);
    QVERIFY2(twice.defined(), error.c_str());
    QVERIFY(!wb::ir::FindFirstMismatch(once, twice));
  }

  void liftConstants() {
    // A model imported with its weights as constants: the transpose of the constant weight moves
    // out with lift_constants, and stays without it (TVM's default).
    std::string error;
    auto in = ParseModule(R"(
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2, 2), dtype="float32")) -> R.Tensor((2, 2), dtype="float32"):
        R.func_attr({"num_input": 1})
        with R.dataflow():
            c = R.const(1.5, "float32")
            w = R.broadcast_to(c, R.shape([2, 2]))
            wt = R.permute_dims(w)
            y = R.matmul(x, wt)
            R.output(y)
        return y
)", &error);
    QVERIFY2(in.defined(), error.c_str());
    auto plain = RunPasses("LiftTransformParams", in, &error);
    QVERIFY2(plain.defined(), error.c_str());
    QCOMPARE(CountCalls(plain, "main", "relax.permute_dims"), 1);
    auto out = RunPasses("LiftTransformParams(lift_constants=True)", in, &error);
    QVERIFY2(out.defined(), error.c_str());
    QCOMPARE(CountCalls(out, "main", "relax.permute_dims"), 0);
    QCOMPARE(CountCalls(out, "main", "relax.broadcast_to"), 0);
    QCOMPARE(CountCalls(out, "main_transform_params", "relax.permute_dims"), 1);
    QCOMPARE(QString::fromStdString(ParamTypes(out, "main")),
             QString("x: R.Tensor((2, 2), \"float32\"); wt: R.Tensor((2, 2), \"float32\")"));
    QVERIFY2(SameResults(in, out).empty(), SameResults(in, out).c_str());
    QVERIFY2(RoundTrip(out).empty(), RoundTrip(out).c_str());
  }

  void badNumInput_data() {
    QTest::addColumn<QString>("attr");
    QTest::addColumn<QString>("message");
    QTest::newRow("too many") << "5"
                              << "LiftTransformParams: 'main' declares num_input = 5, but it has 3 parameters";
    QTest::newRow("negative") << "-1"
                              << "LiftTransformParams: 'main' declares num_input = -1, but it has 3 parameters";
    QTest::newRow("not an integer")
        << "\"one\"" << "LiftTransformParams: the attribute num_input of 'main' is not an integer";
  }
  void badNumInput() {
    QFETCH(QString, attr);
    QFETCH(QString, message);
    std::string text = kDense;
    text.replace(text.find("\"num_input\": 1"), 14, "\"num_input\": " + attr.toStdString());
    std::string error;
    auto in = ParseModule(text, &error);
    QVERIFY2(in.defined(), error.c_str());
    auto out = RunPasses("LiftTransformParams", in, &error);
    QVERIFY(!out.defined());
    QCOMPARE(QString::fromStdString(error),
             "pipeline failed: pass 'LiftTransformParams' failed: " + message);
  }

  void liftedModelRunsThroughTheVM() {
    // The run path: the built module is lifted, the reference is the module as written; the VM
    // calls main_transform_params once and main on the transformed weights, and both main and the
    // transform function match the interpreter. FoldConstant after the lift leaves main free of
    // the transpose, which now runs once.
    std::string error;
    auto in = ParseModule(kDense, &error);
    QVERIFY2(in.defined(), error.c_str());
    auto out = RunPasses("LiftTransformParams, FoldConstant", in, &error);
    QVERIFY2(out.defined(), error.c_str());
    QCOMPARE(CountCalls(out, "main", "relax.permute_dims"), 0);
    wb::workbench::RunCheckRequest request;
    request.module = out;
    request.reference_module = in;
    request.reference = wb::workbench::ReferenceKind::kInterpreter;
    request.isolate = false;
    for (uint64_t seed : {0, 7}) {
      request.seed = seed;
      wb::workbench::RunCheckResult result = wb::workbench::RunAndCheck(request);
      QVERIFY2(result.message.empty(), result.message.c_str());
      const wb::workbench::FunctionResult* main = result.Find("main");
      QVERIFY(main);
      QVERIFY2(main->ok(), main->message.c_str());
      QVERIFY(main->checked());
      const wb::workbench::FunctionResult* transform = result.Find("main_transform_params");
      QVERIFY(transform);
      QVERIFY2(transform->ok(), transform->message.c_str());
    }
  }

  void onnxModelWeightsAsParamsOrConstants_data() {
    QTest::addColumn<bool>("keep_params_in_input");
    QTest::newRow("weights as parameters") << true;
    QTest::newRow("weights as constants") << false;
  }
  void onnxModelWeightsAsParamsOrConstants() {
    // The MLP of the ONNX tests (Gemm with transB: a permute_dims of the weight): imported with
    // keep_params_in_input the weights are parameters after num_input; imported as constants they
    // need lift_constants. Either way the transpose leaves main and the VM's run (the transform
    // function first) matches the interpreter on the model as imported; with the weights as
    // constants, the result is numpy's.
    QFETCH(bool, keep_params_in_input);
    std::string data = qEnvironmentVariable("WB_SOURCE_DIR").toStdString() + "/tests/frontend/data/";
    wb::frontend::onnx::ImportOptions options;
    options.keep_params_in_input = keep_params_in_input;
    auto imported = wb::frontend::onnx::FromONNXFile(data + "mlp.onnx", options);
    QVERIFY2(imported.ok(), imported.diagnostics.empty() ? "" : imported.diagnostics[0].message.c_str());
    QCOMPARE(CountCalls(imported.module, "main", "relax.permute_dims"), 1);
    std::string error;
    auto out = RunPasses(keep_params_in_input ? "LiftTransformParams" : "LiftTransformParams(lift_constants=True)",
                         imported.module, &error);
    QVERIFY2(out.defined(), error.c_str());
    QCOMPARE(CountCalls(out, "main", "relax.permute_dims"), 0);
    QCOMPARE(CountCalls(out, "main_transform_params", "relax.permute_dims"), 1);
    QVERIFY2(RoundTrip(out).empty(), RoundTrip(out).c_str());
    wb::workbench::RunCheckRequest request;
    request.module = out;
    request.reference_module = imported.module;
    request.reference = wb::workbench::ReferenceKind::kInterpreter;
    request.inputs = data + "mlp";
    request.keep_outputs = true;
    request.isolate = false;
    request.functions = {"main"};
    wb::workbench::RunCheckResult result = wb::workbench::RunAndCheck(request);
    QVERIFY2(result.message.empty(), result.message.c_str());
    const wb::workbench::FunctionResult* main = result.Find("main");
    QVERIFY(main);
    QVERIFY2(main->ok() && main->checked(), main->message.c_str());
    QCOMPARE(main->outputs.size(), size_t{1});
    if (keep_params_in_input) return;  // the weights were random: the interpreter checked it
    std::string why;
    wb::runtime::NDArray expected = wb::runtime::LoadNpy(data + "mlp/expected/y.npy", &why);
    QVERIFY2(expected.defined(), why.c_str());
    auto cmp = wb::runtime::Compare(main->outputs[0].second, expected, wb::runtime::Tolerance{1e-4, 1e-4});
    QVERIFY2(cmp.ok, cmp.message.c_str());
  }

  void registered() {
    const auto* entry = wb::transform::PassRegistry::Global().Find("LiftTransformParams");
    QVERIFY(entry);
    QCOMPARE(entry->params.size(), size_t{1});
    QCOMPARE(QString::fromStdString(entry->params[0].name), QString("lift_constants"));
  }
};

QTEST_APPLESS_MAIN(TestLiftTransformParams)
#include "tst_lift_transform_params.moc"
