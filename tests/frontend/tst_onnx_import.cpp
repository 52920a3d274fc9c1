// The ONNX importer: models made by gen_onnx_models.py (committed with their inputs and numpy's
// outputs) are imported, printed as TVMScript that re-parses and prints the same (weights in the
// metadata section), built for the VM with LLVM and run on the saved inputs, matched against
// numpy. Also: graph inputs and their symbolic dims, initializers as constants or parameters,
// shape arithmetic folded to shapes, and the errors for unsupported ops, old opsets and files
// that are no ONNX model.

#include <QTest>
#include <filesystem>

#include "codegen/vm_codegen.h"
#include "frontend/load_module.h"
#include "frontend/onnx/onnx_frontend.h"
#include "ir/structural_equal.h"
#include "relax/expr.h"
#include "runtime/vm/vm.h"
#include "script/tvmscript.h"

using namespace wb;
namespace vm = wb::runtime::vm;
namespace onnx = wb::frontend::onnx;

Q_DECLARE_METATYPE(std::vector<std::string>)

namespace {

std::string DataDir() { return std::string(qgetenv("WB_TEST_DATA_DIR").constData()); }
std::string ModelPath(const std::string& name) { return DataDir() + "/" + name + ".onnx"; }

std::string Messages(const DiagnosticList& diags) {
  std::string all;
  for (const auto& d : diags) all += d.message + "\n";
  return all;
}

onnx::ImportResult Import(const std::string& name, const onnx::ImportOptions& options = {}) {
  return onnx::FromONNXFile(ModelPath(name), options);
}

std::string Print(const ir::IRModule& module) { return script::PrintModule(module); }

// The printed text without its metadata section, for failure messages.
std::string Code(const std::string& text) {
  size_t end = text.find("\"\"\")\n");
  return end == std::string::npos ? text : text.substr(end + 4);
}

// Runs main through the VM on data/<name>/<param>.npy and compares each result with
// data/<name>/expected/<output>.npy; empty when all match.
std::string RunAgainstNumpy(const ir::IRModule& module, const std::string& name,
                            const std::vector<std::string>& outputs, bool fuse) {
  codegen::VMBuildOptions options;
  options.fuse = fuse;
  codegen::VMBuildResult built = codegen::BuildVM(module, codegen::Target::Host(), options);
  if (!built.ok()) return "BuildVM failed:\n" + Messages(built.diagnostics);
  auto main = ir::Downcast<relax::FunctionNode>(module->Lookup("main"));
  std::vector<vm::Value> args;
  for (const auto& p : main->params) {
    std::string why;
    runtime::NDArray a = runtime::LoadNpy(DataDir() + "/" + name + "/" + p->name_hint + ".npy", &why);
    if (!a.defined()) return "input " + p->name_hint + ": " + why;
    args.push_back(vm::Value::Tensor(a));
  }
  vm::VirtualMachine machine(built.exec, built.kernels);
  vm::Value result;
  try {
    result = machine["main"](args);
  } catch (const vm::VMError& e) {
    return std::string("the VM failed: ") + e.what();
  }
  std::vector<runtime::NDArray> actual;
  if (result.kind == vm::Value::Kind::kTensor) {
    actual.push_back(result.tensor);
  } else {
    for (const auto& f : result.fields) actual.push_back(f.tensor);
  }
  if (actual.size() != outputs.size()) {
    return "expected " + std::to_string(outputs.size()) + " outputs, got " + std::to_string(actual.size());
  }
  for (size_t i = 0; i < outputs.size(); ++i) {
    std::string why;
    runtime::NDArray expected =
        runtime::LoadNpy(DataDir() + "/" + name + "/expected/" + outputs[i] + ".npy", &why);
    if (!expected.defined()) return "expected " + outputs[i] + ": " + why;
    if (actual[i].shape() != expected.shape()) return "output " + outputs[i] + ": shape differs";
    runtime::Tolerance tol{1e-4, 1e-5};
    if (expected.dtype().code != runtime::Float(32).code) tol = runtime::DefaultTolerance(expected.dtype());
    runtime::CompareResult cmp = runtime::Compare(actual[i], expected, tol);
    if (!cmp.ok) return "output " + outputs[i] + ": " + cmp.message;
  }
  return "";
}

}  // namespace

class TestONNXImport : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  // Every model: import, round-trip through the text, run through the VM against numpy.
  void model_data() {
    QTest::addColumn<QString>("name");
    QTest::addColumn<std::vector<std::string>>("outputs");
    auto row = [](const char* name, std::vector<std::string> outputs) {
      QTest::newRow(name) << QString(name) << outputs;
    };
    row("mlp", {"y"});
    row("mlp_dynamic", {"y"});
    row("cnn", {"y"});
    row("transformer", {"y"});
    row("binary_broadcast", {"add", "sub", "mul", "div", "pow", "max", "min", "gt"});
    row("unary", {"sqrt", "exp", "log", "tanh", "sigmoid", "abs", "neg", "erf", "recip", "clip"});
    row("where_cast", {"out"});
    row("reduce", {"mean", "sum", "max", "min", "argmax"});
    row("manipulate", {"t", "sq", "cat", "g", "sl", "s0", "s1", "fl", "ex"});
    row("shape_arith", {"y"});
    row("pool_softmax", {"avg", "max", "gmax", "sm", "lsm"});
    row("activations", {"leaky", "softplus", "elu", "selu", "hsig", "hswish", "softsign", "trelu", "prelu"});
    row("rounding_trig", {"floor", "ceil", "sign", "sin", "cos", "tan", "sinh", "cosh", "atan", "asinh",
                          "asin", "acos", "atanh", "acosh"});
    row("logical_mod", {"and", "or", "xor", "not", "mod", "fmod"});
    row("pad_tile_gemm", {"pad", "tile", "gemm"});
    row("conv_attrs", {"conv", "avg"});
    row("gather_scan", {"ge", "nd", "cs", "csx"});
    row("reduce_norm_quant", {"prod", "sumsq", "l1", "l2", "lse", "logsum", "inorm", "deq"});
    row("conv_transpose", {"ct", "cts", "ct1"});
    row("conv_pool_1d", {"conv", "max", "avg"});
    row("argmin_round_quant", {"amin", "amin0", "round", "q8", "qi8", "gath"});
    row("topk", {"v", "i", "vs", "is"});
    row("group_instance_norm", {"gn", "in3", "gn_c"});
    row("resize", {"lin_hp", "near_pt", "lin_ac", "near_hp", "lin_php"});
    row("scatter", {"se", "se_add", "snd", "snd_mul"});
    row("einsum", {"bmm", "ct", "tr"});
    row("range_dynamic", {"y", "pos"});
    row("layout_ops", {"triu", "tril1", "triu_m1", "dcr", "crd", "s2d", "eye", "eye0", "oh", "oh_last"});
    row("norm_pool_ops", {"lp2", "lp3", "glp1", "glp2", "lrn3", "lrn2", "mvn", "mvn_last", "hm", "hm0"});
    row("hardmax_v11", {"hm"});
    row("mish", {"mish"});
    row("matmul_integer", {"zp", "plain"});
    row("qlinear_matmul", {"qmm", "qmm_axis", "mmi_axis", "mmi_vec"});
    row("qlinear_conv", {"qc", "qc1", "ci", "ci3"});
    row("qlinear_binary", {"add", "mul", "add8", "mul8"});
    row("maxpool_indices", {"v", "i", "vc", "ic", "vs", "is", "v1", "i1"});
    row("dynamic_quantize", {"y", "y_scale", "y_zero", "yp", "yp_scale", "yp_zero", "vq", "vd"});
    row("conv_pool_3d", {"conv", "max", "avg", "avg_pad", "gap", "ct"});
    row("nonzero", {"nz", "nz_t", "nzm"});
    row("dynamic_slice", {"y1", "y2"});
    row("one_hot_const", {"ohf", "ohi"});
    row("activation_predicates", {"celu", "shrink", "shrink_i", "nan", "inf", "pinf", "ninf", "cl"});
  }
  void model() {
    QFETCH(QString, name);
    QFETCH(std::vector<std::string>, outputs);
    onnx::ImportResult r = Import(name.toStdString());
    QVERIFY2(r.ok(), Messages(r.diagnostics).c_str());
    std::string text = Print(r.module);
    script::ParseResult again = script::Parse(text, "printed");
    QVERIFY2(again.ok(), (Messages(again.diagnostics) + Code(text)).c_str());
    QCOMPARE(QString::fromStdString(Print(again.module)), QString::fromStdString(text));
    QVERIFY2(ir::StructuralEqual(again.module, r.module), Code(text).c_str());
    std::string why = RunAgainstNumpy(r.module, name.toStdString(), outputs, /*fuse=*/false);
    QVERIFY2(why.empty(), (why + "\n" + Code(text)).c_str());
  }

  // The MLP and the CNN also run fused (FuseOps + FuseTIR over the imported graph), and so do the
  // quantized kernels, the 3-D windows and the shapes known only when the model runs.
  void fused_data() {
    QTest::addColumn<QString>("name");
    QTest::addColumn<std::vector<std::string>>("outputs");
    QTest::newRow("mlp") << QString("mlp") << std::vector<std::string>{"y"};
    QTest::newRow("cnn") << QString("cnn") << std::vector<std::string>{"y"};
    QTest::newRow("qlinear_conv") << QString("qlinear_conv") << std::vector<std::string>{"qc", "qc1", "ci", "ci3"};
    QTest::newRow("conv_pool_3d") << QString("conv_pool_3d")
                                  << std::vector<std::string>{"conv", "max", "avg", "avg_pad", "gap", "ct"};
    QTest::newRow("dynamic_slice") << QString("dynamic_slice") << std::vector<std::string>{"y1", "y2"};
    QTest::newRow("nonzero") << QString("nonzero") << std::vector<std::string>{"nz", "nz_t", "nzm"};
  }
  void fused() {
    QFETCH(QString, name);
    QFETCH(std::vector<std::string>, outputs);
    onnx::ImportResult r = Import(name.toStdString());
    QVERIFY2(r.ok(), Messages(r.diagnostics).c_str());
    std::string why = RunAgainstNumpy(r.module, name.toStdString(), outputs, /*fuse=*/true);
    QVERIFY2(why.empty(), why.c_str());
  }

  // Graph inputs are the parameters, a dim_param a symbolic dim; weights are constants.
  void signature() {
    onnx::ImportResult r = Import("mlp_dynamic");
    QVERIFY2(r.ok(), Messages(r.diagnostics).c_str());
    std::string text = Print(r.module);
    QVERIFY2(text.find("    batch = TypeVar(\"batch\")\n    @R.function\n    def main(x: R.Tensor((batch, 16), dtype=\"float32\")) -> R.Tensor((batch, 10), dtype=\"float32\"):\n        R.func_attr({\"num_input\": 1})") != std::string::npos,
             Code(text).c_str());
    QVERIFY2(text.find("metadata[\"relax.expr.Constant\"][0]") != std::string::npos, Code(text).c_str());
    QVERIFY2(text.find("R.permute_dims(metadata[\"relax.expr.Constant\"][0], axes=[1, 0])") != std::string::npos, Code(text).c_str());
  }

  // keep_params_in_input: the initializers follow the graph inputs as parameters, and
  // num_input says how many are inputs.
  void keepParamsInInput() {
    onnx::ImportOptions options;
    options.keep_params_in_input = true;
    onnx::ImportResult r = Import("mlp", options);
    QVERIFY2(r.ok(), Messages(r.diagnostics).c_str());
    auto main = ir::Downcast<relax::FunctionNode>(r.module->Lookup("main"));
    QCOMPARE(main->params.size(), size_t(5));
    QCOMPARE(QString::fromStdString(main->params[1]->name_hint), QString("w1"));
    std::string text = Print(r.module);
    QVERIFY2(text.find("R.func_attr({\"num_input\": 1})") != std::string::npos, Code(text).c_str());
    QVERIFY2(text.find("metadata") == std::string::npos, Code(text).c_str());
  }

  // Shape / Gather / Mul / Concat on a symbolic batch fold into the reshape's shape, and
  // ConstantOfShape / Range / Cast into one constant.
  void shapeArithmeticFolds() {
    onnx::ImportResult r = Import("shape_arith");
    QVERIFY2(r.ok(), Messages(r.diagnostics).c_str());
    std::string text = Print(r.module);
    QVERIFY2(text.find("R.reshape(x, R.shape([n * 3, 4]))") != std::string::npos, Code(text).c_str());
    QVERIFY2(text.find("R.take") == std::string::npos && text.find("R.concat") == std::string::npos, Code(text).c_str());
    onnx::ImportResult t = Import("transformer");
    QVERIFY2(t.ok(), Messages(t.diagnostics).c_str());
    std::string tt = Print(t.module);
    QVERIFY2(tt.find("R.shape([1, seq, 2, 4])") != std::string::npos, Code(tt).c_str());
    QVERIFY2(tt.find("R.shape([1, seq, 8])") != std::string::npos, Code(tt).c_str());
  }

  // A Range over a symbolic dim becomes R.arange with PrimValue bounds, printed bare as TVM's
  // current printer prints PrimExpr arguments.
  void rangeOverASymbolicDim() {
    onnx::ImportResult r = Import("range_dynamic");
    QVERIFY2(r.ok(), Messages(r.diagnostics).c_str());
    std::string text = Print(r.module);
    QVERIFY2(text.find("R.arange(0, seq, 1, dtype=\"int64\")") != std::string::npos,
             Code(text).c_str());
  }

  // Every unsupported op of the model at once, each with its node and the opset.
  void unsupportedOpsListedTogether() {
    onnx::ImportResult r = Import("unsupported_ops");
    QVERIFY(!r.ok());
    QCOMPARE(r.diagnostics.ErrorCount(), size_t(2));
    std::string all = Messages(r.diagnostics);
    QVERIFY2(all.find("unsupported op 'Unique' at node 'uq' (#1) (opset 17)") != std::string::npos, all.c_str());
    QVERIFY2(all.find("unsupported op 'Det' at node 'det' (#3) (opset 17)") != std::string::npos, all.c_str());
  }

  void oldOpset() {
    onnx::ImportResult r = Import("old_opset");
    QVERIFY(!r.ok());
    std::string all = Messages(r.diagnostics);
    QVERIFY2(all.find("opset 9 is older than the oldest supported, 11") != std::string::npos, all.c_str());
  }

  void malformedFile() {
    onnx::ImportResult r = Import("truncated");
    QVERIFY(!r.ok());
    std::string all = Messages(r.diagnostics);
    QVERIFY2(all.find("truncated.onnx: not an ONNX model: the protobuf is malformed at byte ") != std::string::npos,
             all.c_str());
    onnx::ImportResult missing = onnx::FromONNXFile(DataDir() + "/nope.onnx");
    QVERIFY(Messages(missing.diagnostics).find("cannot read file") != std::string::npos);
  }

  // A converter's failure names the op, the node and what it cannot handle.
  void converterErrorNamesNode() {
    // A Reshape whose target is computed at run time (from a graph input) cannot be imported.
    onnx::ImportResult r = onnx::FromONNXFile(DataDir() + "/dynamic_reshape.onnx");
    QVERIFY(!r.ok());
    std::string all = Messages(r.diagnostics);
    QVERIFY2(all.find("Reshape at node 'reshape' (#0): the shape (input 'target') must be known at import time") != std::string::npos,
             all.c_str());
  }

  // An attribute value a converter does not handle is named with the op and the node.
  void unsupportedAttributeNamesNode() {
    onnx::ImportResult r = onnx::FromONNXFile(DataDir() + "/resize_cubic.onnx");
    QVERIFY(!r.ok());
    std::string all = Messages(r.diagnostics);
    QVERIFY2(all.find("Resize at node 'rs' (#0): mode 'cubic' is not supported (nearest, linear)") != std::string::npos,
             all.c_str());
  }

  // Models the fuzzer (tests/fuzz/fuzz_onnx.cpp) made of the seeds, in fuzz_findings/: each is
  // refused with a message naming the node and what is wrong, or imports and keeps the text
  // round trip (an empty message).
  void fuzzFindings_data() {
    QTest::addColumn<QString>("name");
    QTest::addColumn<QString>("message");
    // Range over constants from -5.98e18 (or to 2.96e11): once a loop of that many elements.
    QTest::newRow("range_huge_start")
        << "range_huge_start"
        << "Range at node #9: the range from -5.98078e+18 to 4 by 1 has 5.98078e+18 elements, more than the 16777216 "
           "folded into a constant at import time";
    QTest::newRow("range_huge_limit")
        << "range_huge_limit"
        << "Range at node #9: the range from 0 to 296352743428 by 1 has 296352743428 elements, more than the 16777216 "
           "folded into a constant at import time";
    // A shape concatenated with a scalar: indexed the scalar's missing dim.
    QTest::newRow("concat_scalar") << "concat_scalar"
                                   << "Concat at node #5: input 1 has rank 0, input 0 rank 1: the inputs of a Concat have one rank";
    // A constant INT64_MIN: printed as -9223372036854775808, which the parser refused.
    QTest::newRow("int64_min_constant") << "int64_min_constant" << "";
    // A float R.const beside an int64 one: the parser converted every value to int64 (undefined
    // beyond its range, reported by UBSan).
    QTest::newRow("float_const_beyond_int64") << "float_const_beyond_int64" << "";
    // ... and as an R.arange bound (a Relax call's argument).
    QTest::newRow("int64_min_arange") << "int64_min_arange" << "";
  }
  void fuzzFindings() {
    QFETCH(QString, name);
    QFETCH(QString, message);
    onnx::ImportResult r = onnx::FromONNXFile(DataDir() + "/../fuzz_findings/" + name.toStdString() + ".onnx");
    std::string all = Messages(r.diagnostics);
    if (!message.isEmpty()) {
      QVERIFY(!r.ok());
      QVERIFY2(all.find(message.toStdString()) != std::string::npos, all.c_str());
      return;
    }
    QVERIFY2(r.ok(), all.c_str());
    std::string text = Print(r.module);
    script::ParseResult again = script::Parse(text, "printed");
    QVERIFY2(again.ok(), (Messages(again.diagnostics) + Code(text)).c_str());
    QVERIFY2(ir::StructuralEqual(again.module, r.module), Code(text).c_str());
    QCOMPARE(QString::fromStdString(Print(again.module)), QString::fromStdString(text));
  }

  // Attribute values and shapes outside what ONNX allows are refused with what is wrong.
  void malformedAttributes_data() {
    QTest::addColumn<QString>("name");
    QTest::addColumn<QString>("message");
    QTest::newRow("zero strides") << "conv_zero_stride"
                                  << "Conv at node 'conv' (#0): strides, dilations and kernel sizes must be positive, "
                                     "got strides [0, 0], dilations [1, 1], kernel [3, 3]";
    QTest::newRow("scalar bias") << "conv_scalar_bias" << "Conv at node 'conv' (#0): the bias must be 1-D, got rank 0";
    QTest::newRow("per-column scale of the wrong length")
        << "qlinear_matmul_bad_scale"
        << "QLinearMatMul at node 'qmm' (#0): b_scale must be a scalar (per tensor) or 1-D with 4 values (per column "
           "of B), got shape (3,)";
    QTest::newRow("zero point of another dtype")
        << "conv_integer_bad_zero" << "ConvInteger at node 'ci' (#0): w_zero_point has dtype uint8 where its operand has int8";
    QTest::newRow("4-D Conv")
        << "conv_4d"
        << "Conv at node 'c4' (#0): only 1-D to 3-D convolution (3-D to 5-D data and weight) is supported, got rank 6 "
           "and 6";
  }
  void malformedAttributes() {
    QFETCH(QString, name);
    QFETCH(QString, message);
    onnx::ImportResult r = Import(name.toStdString());
    QVERIFY(!r.ok());
    std::string all = Messages(r.diagnostics);
    QVERIFY2(all.find(message.toStdString()) != std::string::npos, all.c_str());
  }

  // An initializer's external data is read from beside the model, and only from there.
  void externalData() {
    onnx::ImportResult r = Import("external_data");
    QVERIFY2(r.ok(), Messages(r.diagnostics).c_str());
    std::string text = Print(r.module);
    QVERIFY2(text.find("R.add(x, metadata[\"relax.expr.Constant\"][0])") != std::string::npos, Code(text).c_str());
    auto main = ir::Downcast<relax::FunctionNode>(r.module->Lookup("main"));
    auto* seq = main->body.as<relax::SeqExprNode>();
    auto* add = seq->blocks[0]->bindings[0].as<relax::VarBindingNode>()->value.as<relax::CallNode>();
    auto* w = add->args[1].as<relax::ConstantNode>();
    QVERIFY(w);
    const float want[] = {0, 1, 2, 3};
    QCOMPARE(w->data, std::string(reinterpret_cast<const char*>(want), sizeof(want)));
    for (const char* name : {"external_outside", "external_absolute"}) {
      onnx::ImportResult bad = Import(name);
      QVERIFY(!bad.ok());
      std::string all = Messages(bad.diagnostics);
      QVERIFY2(all.find("initializer 'w': its external data location '") != std::string::npos &&
                   all.find("' is not a relative path inside the model's folder") != std::string::npos,
               all.c_str());
    }
  }

  // One loader for every face: .onnx through the importer, anything else as TVMScript.
  void loadModulePicksByExtension() {
    script::ParseResult m = frontend::LoadModule(ModelPath("mlp"));
    QVERIFY2(m.ok(), Messages(m.diagnostics).c_str());
    QVERIFY(m.module->Lookup("main").defined());
    QVERIFY(frontend::IsONNXPath("A/B.ONNX"));
    QVERIFY(!frontend::IsONNXPath("model.py"));
  }
};

QTEST_GUILESS_MAIN(TestONNXImport)
#include "tst_onnx_import.moc"
