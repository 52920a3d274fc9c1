// Tests of LegalizeOps: before/after golden modules (broadcasting, dedup and naming of the
// PrimFuncs, symbolic shapes, scalar operands, comparisons/where/clip/astype), the printed
// result re-parsing to the same module, calls of ops without a lowering (and with unknown
// shapes) left in place and reported with the op's name and the call's span, LegalizeCall on
// one call, and the pass in the registry.

#include <QTest>
#include <cmath>
#include <cstdlib>
#include <iostream>
#include <map>

#include "ir/structural_equal.h"
#include "relax/interpreter.h"
#include "relax/op/registry.h"
#include "runtime/ndarray.h"
#include "script/tvmscript.h"
#include "tir/interpreter.h"
#include "tir/op.h"
#include "tir/verifier.h"
#include "transform/registry.h"
#include "transform/relax/legalize_ops.h"
#include "transform/relax/semantic_check.h"

using namespace wb;

namespace {

const char* kHeader = R"(# from tvm.script import ir as I
# from tvm.script import tirx as T
# from tvm.script import relax as R

)";

ir::IRModule ParseModule(const std::string& text) {
  script::ParseResult parsed = script::Parse(text);
  if (!parsed.ok()) qWarning("%s", RenderDiagnostics(parsed.diagnostics).c_str());
  return parsed.ok() ? parsed.module : ir::IRModule();
}

struct Golden {
  const char* name;
  const char* before;
  const char* after;
};

#include "legalize_goldens.inc"

runtime::NDArray Empty(const relax::Type& type) {
  auto* t = type.as<relax::TensorTypeNode>();
  std::vector<int64_t> shape;
  for (const auto& d : *t->shape) shape.push_back(*tir::AsConstInt(d));
  return runtime::NDArray::Empty(shape, tir::ToRuntimeDType(t->dtype));
}

// Random values for an argument; integer tensors (take's indices) stay in [0, 2].
runtime::NDArray Random(const relax::Expr& arg, uint64_t seed) {
  runtime::NDArray a = Empty(relax::GetType(arg));
  runtime::RandomFillOptions opt;
  opt.seed = seed;
  if (a.dtype().code == runtime::Int(64).code) {
    opt.low = 0;
    opt.high = 2;
  }
  runtime::FillRandom(a, opt);
  return a;
}

}  // namespace

class TestLegalizeOps : public QObject {
  Q_OBJECT
 private Q_SLOTS:
  void goldens_data() {
    QTest::addColumn<int>("index");
    for (size_t i = 0; i < std::size(kGoldens); ++i) QTest::newRow(kGoldens[i].name) << int(i);
  }
  void goldens() {
    QFETCH(int, index);
    const Golden& g = kGoldens[index];
    ir::IRModule before = ParseModule(std::string(kHeader) + g.before);
    QVERIFY(before.defined());
    DiagnosticList warnings;
    ir::IRModule after = transform::LegalizeModule(before, &warnings);
    QVERIFY2(warnings.empty(), RenderDiagnostics(warnings).c_str());
    std::string printed = script::PrintModule(after);
    if (std::getenv("WB_DUMP_GOLDENS")) std::cout << "=====" << g.name << "\n" << printed << "\n";
    QCOMPARE(printed, std::string(g.after));
    // The result is ordinary TVMScript: it parses back to the same module and prints the same.
    ir::IRModule reparsed = ParseModule(printed);
    QVERIFY(reparsed.defined());
    QCOMPARE(script::PrintModule(reparsed), printed);
    auto mismatch = ir::FindFirstMismatch(after, reparsed);
    QVERIFY2(!mismatch, mismatch ? mismatch->reason.c_str() : "");
    // Nothing is left to legalize: a second run changes nothing.
    QCOMPARE(script::PrintModule(transform::LegalizeModule(after)), printed);
  }

  void legalizedModuleComputes() {
    // The first golden after LegalizeOps, run call_tir by call_tir through the interpreter,
    // against the Relax program's meaning computed here: relu(matmul(exp((x + y) + y), w)).
    ir::IRModule after =
        transform::LegalizeModule(ParseModule(std::string(kHeader) + kGoldens[0].before));
    auto main = after->Lookup("main").as_ref<relax::FunctionNode>();
    std::map<const ir::Object*, runtime::NDArray> values;
    std::vector<std::vector<int64_t>> shapes = {{1, 2, 3}, {4, 3, 2, 1}, {3, 5}};
    for (size_t i = 0; i < main->params.size(); ++i) {
      runtime::NDArray a = runtime::NDArray::Empty(shapes[i], runtime::Float(32));
      runtime::FillRandom(a, 11 + i);
      values[main->params[i].get()] = a;
    }
    auto* seq = main->body.as<relax::SeqExprNode>();
    for (const relax::Binding& b : seq->blocks.at(0)->bindings) {
      auto* call = b.as<relax::VarBindingNode>()->value.as<relax::CallNode>();
      QVERIFY(call);
      auto gv = call->args[0].as_ref<ir::GlobalVarNode>();
      std::vector<tir::InterpArg> args;
      for (const relax::Expr& a : call->args[1].as<relax::TupleNode>()->fields)
        args.emplace_back(values.at(a.get()));
      auto* out_t = call->sinfo_args[0].as<relax::TensorTypeNode>();
      std::vector<int64_t> shape;
      for (const auto& d : *out_t->shape) shape.push_back(*tir::AsConstInt(d));
      runtime::NDArray out = runtime::NDArray::Empty(shape, runtime::Float(32));
      args.emplace_back(out);
      tir::InterpretResult r = tir::InterpretModule(after, gv->name_hint, args);
      QVERIFY2(r.ok(), RenderDiagnostics(r.diagnostics).c_str());
      values[b->var.get()] = out;
    }
    const runtime::NDArray& x = values.at(main->params[0].get());
    const runtime::NDArray& y = values.at(main->params[1].get());
    const runtime::NDArray& w = values.at(main->params[2].get());
    const runtime::NDArray& e = values.at(seq->body.get());
    for (int64_t a = 0; a < 4; ++a) {
      for (int64_t b = 0; b < 3; ++b) {
        for (int64_t c = 0; c < 2; ++c) {
          for (int64_t j = 0; j < 5; ++j) {
            double acc = 0;
            for (int64_t k = 0; k < 3; ++k) {
              double yv = y.GetDouble((a * 3 + b) * 2 + c);
              acc += std::exp(x.GetDouble(c * 3 + k) + yv + yv) * w.GetDouble(k * 5 + j);
            }
            double want = std::max(acc, 0.0);
            double got = e.GetDouble(((a * 3 + b) * 2 + c) * 5 + j);
            QVERIFY2(std::abs(got - want) <= 1e-4 * (1 + std::abs(want)),
                     "legalized module disagrees");
          }
        }
      }
    }
  }

  void unsupportedOpsAreReported() {
    // An op of our own with no lowering, and an add whose operand shape is unknown.
    if (!relax::FindOp("relax.test_no_lowering")) {
      relax::OpInfo info;
      info.name = "relax.test_no_lowering";
      info.arg_names = {"x"};
      info.infer = [](const relax::Call&, const std::vector<relax::Type>& types) {
        return relax::InferResult(types[0]);
      };
      relax::RegisterOp(std::move(info));
    }
    std::string src = std::string(kHeader) + R"(@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((4,), dtype="float32"), y: R.Tensor(dtype="float32", ndim=1)) -> R.Tensor(dtype="float32", ndim=1):
        a: R.Tensor((4,), dtype="float32") = R.test_no_lowering(x)
        b: R.Tensor((4,), dtype="float32") = R.exp(a)
        c: R.Tensor(dtype="float32", ndim=1) = R.add(b, y)
        return c)";
    ir::IRModule before = ParseModule(src);
    QVERIFY(before.defined());
    DiagnosticList warnings;
    ir::IRModule after = transform::LegalizeModule(before, &warnings);
    QCOMPARE(warnings.size(), size_t(2));
    QCOMPARE(warnings[0].severity, Severity::kWarning);
    QCOMPARE(warnings[0].message, std::string("LegalizeOps: relax.test_no_lowering has no TensorIR "
                                              "lowering; the call is left as it is"));
    QCOMPARE(warnings[0].span.start().line, uint32_t(9));
    QCOMPARE(warnings[1].message,
             std::string("LegalizeOps: cannot legalize relax.add: an operand's shape is not known; "
                         "the call is left as it is"));
    QCOMPARE(warnings[1].span.start().line, uint32_t(11));
    std::string printed = script::PrintModule(after);
    QVERIFY(printed.find("R.test_no_lowering(x)") != std::string::npos);
    QVERIFY(printed.find("R.call_tir(cls.exp, (a,)") != std::string::npos);
    QVERIFY(printed.find("R.add(b, y)") != std::string::npos);
  }

  void branchesAreLegalized() {
    // Op calls inside both branches of an if are rewritten too; the if keeps its type.
    ir::IRModule mod = ParseModule(std::string(kHeader) + R"(@I.ir_module
class Module:
    @R.function
    def main(cond: R.Tensor((), dtype="bool"), x: R.Tensor((4,), dtype="float32")) -> R.Tensor((4,), dtype="float32"):
        if cond:
            y: R.Tensor((4,), dtype="float32") = R.add(x, x)
        else:
            y: R.Tensor((4,), dtype="float32") = R.multiply(x, x)
        return y)");
    QVERIFY(mod.defined());
    DiagnosticList warnings;
    ir::IRModule out = transform::LegalizeModule(mod, &warnings);
    QVERIFY2(warnings.empty(), RenderDiagnostics(warnings).c_str());
    std::string printed = script::PrintModule(out);
    QVERIFY2(printed.find("R.call_tir(cls.add, (x, x)") != std::string::npos, printed.c_str());
    QVERIFY2(printed.find("R.call_tir(cls.multiply, (x, x)") != std::string::npos, printed.c_str());
    QVERIFY(printed.find("R.add(") == std::string::npos);
    QVERIFY(out->Lookup("add").as<tir::PrimFuncNode>());
    QVERIFY(out->Lookup("multiply").as<tir::PrimFuncNode>());
    ir::IRModule reparsed = ParseModule(printed);
    QVERIFY(reparsed.defined());
    QCOMPARE(script::PrintModule(reparsed), printed);
  }

  void tvmRewriteRules() {
    // What TVM's mutator does around each legalization: a call nested in a call is bound first
    // and legalized too; a rewritten binding's var takes the kernel's out_ty (w + 1 - kw where the
    // annotation says w - kw + 1); a declared return type less precise than the new body's is
    // replaced by it. Constant aranges fold to constants; prelu broadcasts a single alpha.
    ir::IRModule mod = ParseModule(std::string(kHeader) + R"(@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2, 3), dtype="float32"), y: R.Tensor((2, 3), dtype="float32"), a: R.Tensor((1,), dtype="float32")) -> R.Tuple(R.Tensor(dtype="float32", ndim=2), R.Tensor(dtype="int64", ndim=1), R.Tensor(dtype="float32", ndim=2), R.Tensor(dtype="float32", ndim=1)):
        s = R.add(R.multiply(x, y), R.exp(x))
        r = R.arange(1, 10, 2, dtype="int64")
        p = R.nn.prelu(x, a)
        f = R.arange(0.5, 2.0, 0.5, dtype="float32")
        return (s, r, p, f)

    @R.function
    def conv(x: R.Tensor(("n", "c", "w"), dtype="float32"), k: R.Tensor(("f", "c", "kw"), dtype="float32")) -> R.Tensor(("n", "f", "w - kw + 1"), dtype="float32"):
        n = T.int64()
        f = T.int64()
        w = T.int64()
        kw = T.int64()
        gv: R.Tensor((n, f, w - kw + 1), dtype="float32") = R.nn.conv1d(x, k)
        return gv)");
    QVERIFY(mod.defined());
    DiagnosticList warnings;
    ir::IRModule out = transform::LegalizeModule(mod, &warnings);
    QVERIFY2(warnings.empty(), RenderDiagnostics(warnings).c_str());
    std::string printed = script::PrintModule(out);
    // Every op call became a kernel call (the nested ones too); the ranges are constants.
    QVERIFY2(printed.find("R.multiply(") == std::string::npos, printed.c_str());
    QVERIFY2(printed.find("R.exp(") == std::string::npos, printed.c_str());
    QVERIFY2(printed.find("R.arange(") == std::string::npos, printed.c_str());
    QVERIFY2(printed.find("slope_broadcasted") != std::string::npos, printed.c_str());
    ir::IRModule reparsed = ParseModule(printed);
    QVERIFY(reparsed.defined());
    auto mismatch = ir::FindFirstMismatch(out, reparsed);
    QVERIFY2(!mismatch, mismatch ? mismatch->reason.c_str() : "");

    auto main = out->Lookup("main").as_ref<relax::FunctionNode>();
    QCOMPARE(relax::TypeToString(main->ret_struct_info),
             std::string("R.Tuple(R.Tensor((2, 3), \"float32\"), R.Tensor((5,), \"int64\"), "
                         "R.Tensor((2, 3), \"float32\"), R.Tensor((3,), \"float32\"))"));
    auto conv = out->Lookup("conv").as_ref<relax::FunctionNode>();
    auto* binding = conv->body.as<relax::SeqExprNode>()->blocks[0]->bindings[0].as<relax::VarBindingNode>();
    QVERIFY(ir::StructuralEqual(binding->var->struct_info, relax::GetType(binding->value)));
    QVERIFY(conv->body.as<relax::SeqExprNode>()->body.same_as(binding->var));
    QCOMPARE(QString::fromStdString(relax::TypeToString(conv->ret_struct_info)),
             QString("R.Tensor((n, f, (w - kw) + 1), \"float32\")"));

    // The legalized program computes the definitions.
    runtime::NDArray x = runtime::NDArray::Empty({2, 3}, runtime::Float(32));
    runtime::NDArray y = runtime::NDArray::Empty({2, 3}, runtime::Float(32));
    runtime::NDArray a = runtime::NDArray::Empty({1}, runtime::Float(32));
    runtime::FillRandom(x, 31);
    runtime::FillRandom(y, 32);
    a.SetDouble(0, 0.25);
    relax::RelaxInterpretResult r = relax::InterpretRelax(
        out, "main", {relax::Value::Tensor(x), relax::Value::Tensor(y), relax::Value::Tensor(a)},
        transform::InterpreterOptions());
    QVERIFY2(r.ok(), r.diagnostics.empty() ? "" : r.diagnostics[0].message.c_str());
    for (int64_t i = 0; i < 6; ++i) {
      double xv = x.GetDouble(i), yv = y.GetDouble(i);
      QVERIFY(std::abs(r.value.fields[0].tensor.GetDouble(i) - (xv * yv + std::exp(xv))) < 1e-5);
      QCOMPARE(r.value.fields[2].tensor.GetDouble(i), xv > 0 ? xv : double(float(xv * 0.25)));
    }
    for (int64_t i = 0; i < 5; ++i) QCOMPARE(r.value.fields[1].tensor.GetInt(i), 1 + 2 * i);
    for (int64_t i = 0; i < 3; ++i) QCOMPARE(r.value.fields[3].tensor.GetDouble(i), 0.5 + 0.5 * i);
  }

  void topiRejectionIsReported() {
    // Dims n and m may differ at run time: topi cannot broadcast them, so the call stays.
    ir::IRModule mod = ParseModule(std::string(kHeader) + R"(@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor(("n", 4), dtype="float32"), y: R.Tensor(("m", 4), dtype="float32")) -> R.Tensor(dtype="float32", ndim=2):
        z: R.Tensor(dtype="float32", ndim=2) = R.add(x, y)
        return z)");
    QVERIFY(mod.defined());
    DiagnosticList warnings;
    transform::LegalizeModule(mod, &warnings);
    QCOMPARE(warnings.size(), size_t(1));
    QCOMPARE(warnings[0].message,
             std::string("LegalizeOps: cannot legalize relax.add: topi: cannot broadcast dims n "
                         "and m; the call is left as it is"));
    auto call = mod->Lookup("main")
                    .as_ref<relax::FunctionNode>()
                    ->body.as<relax::SeqExprNode>()
                    ->blocks[0]
                    ->bindings[0]
                    .as<relax::VarBindingNode>()
                    ->value.as_ref<relax::CallNode>();
    relax::BlockBuilder builder(mod);
    QVERIFY_THROWS_EXCEPTION(std::runtime_error, transform::LegalizeCall(builder, call));
  }

  void legalizeOneCall() {
    ir::IRModule mod = ParseModule(std::string(kHeader) + R"(@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2, 3), dtype="float32"), y: R.Tensor((3, 4), dtype="float32")) -> R.Tensor((2, 4), dtype="float32"):
        z: R.Tensor((2, 4), dtype="float32") = R.matmul(x, y)
        return z)");
    QVERIFY(mod.defined());
    auto main = mod->Lookup("main").as_ref<relax::FunctionNode>();
    auto* seq = main->body.as<relax::SeqExprNode>();
    auto call =
        seq->blocks[0]->bindings[0].as<relax::VarBindingNode>()->value.as_ref<relax::CallNode>();
    relax::BlockBuilder builder(mod);
    std::optional<relax::Expr> out = transform::LegalizeCall(builder, call);
    QVERIFY(out.has_value());
    auto* tir_call = out->as<relax::CallNode>();
    QVERIFY(tir_call);
    QCOMPARE(relax::InfoOf(tir_call->op.as_ref<ir::OpNode>())->name, std::string("relax.call_tir"));
    QVERIFY(builder.GetModule()->Lookup("matmul").as<tir::PrimFuncNode>());
    QVERIFY(ir::StructuralEqual(relax::GetType(*out), relax::GetType(call)));
    // Not an op call: nothing to do.
    QVERIFY(
        !transform::LegalizeCall(builder, relax::MakeCall(ir::MakeGlobalVar("f"), {})).has_value());
    QVERIFY(transform::HasLegalization("relax.add"));
    QVERIFY(!transform::HasLegalization("relax.call_tir"));
  }

  void everyTensorOpLegalizes() {
    // One call of every op with tensor semantics, built through the BlockBuilder: each becomes a
    // call_tir of a well-formed PrimFunc, with no warning.
    using namespace relax;  // NOLINT(google-build-using-namespace)
    auto f32 = ir::DataType::Float(32);
    auto dims = [](std::vector<int64_t> v) {
      std::vector<ir::PrimExpr> out;
      for (int64_t d : v) out.push_back(tir::make_const(ir::DataType::Int(64), d));
      return out;
    };
    auto tensor = [&](const char* name, std::vector<int64_t> shape, ir::DataType t) {
      return MakeVar(name, MakeTensorType(dims(shape), t));
    };
    auto ints = [](std::vector<int64_t> v) { return IntArray(v); };
    auto prims = [](std::vector<int64_t> v) {
      std::vector<Expr> out;
      for (int64_t x : v) out.push_back(MakePrimValue(tir::make_const(ir::DataType::Int(64), x)));
      return MakeTuple(out);
    };
    Var x = tensor("x", {2, 4, 6, 6}, f32);
    Var w = tensor("w", {8, 4, 3, 3}, f32);
    Var v = tensor("v", {4}, f32);
    Var m = tensor("m", {6, 6}, f32);
    Var idx = tensor("idx", {3}, ir::DataType::Int(64));
    Var c = tensor("c", {6, 6}, ir::DataType::Bool());
    Var x5 = tensor("x5", {1, 2, 4, 4, 4}, f32);
    Var w5 = tensor("w5", {3, 2, 2, 2, 2}, f32);
    Var x3 = tensor("x3", {1, 2, 6}, f32);
    Var w3 = tensor("w3", {2, 3, 3}, f32);
    Var w5t = tensor("w5t", {2, 3, 2, 2, 2}, f32);
    BlockBuilder bb;
    bb.BeginFunction("main", {x, w, v, m, idx, c, x5, w5, x3, w3, w5t});
    bb.BeginDataflowBlock();
    std::vector<std::pair<std::string, Expr>> calls = {
        {"relax.add", MakeOpCall("relax.add", {m, m})},
        {"relax.power", MakeOpCall("relax.power", {m, m})},
        {"relax.greater_equal", MakeOpCall("relax.greater_equal", {m, m})},
        {"relax.sqrt", MakeOpCall("relax.sqrt", {m})},
        {"relax.clip", MakeOpCall("relax.clip", {m, MakePrimValue(tir::make_const(f32, 0.0)),
                                                 MakePrimValue(tir::make_const(f32, 1.0))})},
        {"relax.astype",
         MakeOpCall("relax.astype", {m}, {{"dtype", DTypeAttr(ir::DataType::Float(16))}})},
        {"relax.where", MakeOpCall("relax.where", {c, m, m})},
        {"relax.matmul", MakeOpCall("relax.matmul", {m, m})},
        {"relax.nn.relu", MakeOpCall("relax.nn.relu", {x})},
        {"relax.nn.gelu", MakeOpCall("relax.nn.gelu", {x})},
        {"relax.nn.silu", MakeOpCall("relax.nn.silu", {x})},
        {"relax.nn.softmax", MakeOpCall("relax.nn.softmax", {x}, {{"axis", ir::MakeInt(1)}})},
        {"relax.nn.log_softmax", MakeOpCall("relax.nn.log_softmax", {x})},
        {"relax.nn.conv2d",
         MakeOpCall("relax.nn.conv2d", {x, w}, {{"padding", ints({1, 1, 1, 1})}})},
        {"relax.nn.conv3d", MakeOpCall("relax.nn.conv3d", {x5, w5}, {{"padding", ints({1, 0, 1, 0, 1, 1})}})},
        {"relax.nn.conv1d_transpose",
         MakeOpCall("relax.nn.conv1d_transpose", {x3, w3}, {{"strides", ints({2})}, {"output_padding", ints({1})}})},
        {"relax.nn.conv3d_transpose",
         MakeOpCall("relax.nn.conv3d_transpose", {x5, w5t},
                    {{"strides", ints({2})}})},
        {"relax.nn.max_pool1d", MakeOpCall("relax.nn.max_pool1d", {x3}, {{"pool_size", ints({3})}, {"padding", ints({1})}})},
        {"relax.nn.avg_pool1d", MakeOpCall("relax.nn.avg_pool1d", {x3}, {{"pool_size", ints({2})}, {"strides", ints({2})}})},
        {"relax.nn.max_pool3d",
         MakeOpCall("relax.nn.max_pool3d", {x5}, {{"pool_size", ints({2})}, {"strides", ints({2})}, {"ceil_mode", ir::MakeBool(true)}})},
        {"relax.nn.avg_pool3d", MakeOpCall("relax.nn.avg_pool3d", {x5}, {{"pool_size", ints({3})}, {"padding", ints({1})}})},
        {"relax.nn.max_pool2d",
         MakeOpCall("relax.nn.max_pool2d", {x},
                    {{"pool_size", ints({2, 2})}, {"strides", ints({2, 2})}})},
        {"relax.nn.avg_pool2d",
         MakeOpCall("relax.nn.avg_pool2d", {x},
                    {{"pool_size", ints({3, 3})}, {"padding", ints({1, 1, 1, 1})}})},
        {"relax.nn.adaptive_avg_pool2d",
         MakeOpCall("relax.nn.adaptive_avg_pool2d", {x}, {{"output_size", ints({4, 4})}})},
        {"relax.nn.batch_norm",
         MakeOpCall("relax.nn.batch_norm", {x, v, v, v, v}, {{"training", ir::MakeBool(false)}})},
        {"relax.nn.layer_norm",
         MakeOpCall("relax.nn.layer_norm", {m, m, m}, {{"axes", ints({0, 1})}})},
        {"relax.nn.rms_norm", MakeOpCall("relax.nn.rms_norm", {x, v}, {{"axes", ints({1})}})},
        {"relax.nn.dropout", MakeOpCall("relax.nn.dropout", {x})},
        {"relax.reshape", MakeOpCall("relax.reshape", {x, MakeShapeExpr(dims({8, 36}))})},
        {"relax.permute_dims",
         MakeOpCall("relax.permute_dims", {x}, {{"axes", ints({0, 2, 3, 1})}})},
        {"relax.expand_dims", MakeOpCall("relax.expand_dims", {m}, {{"axis", ints({1})}})},
        {"relax.squeeze", MakeOpCall("relax.squeeze", {x})},
        {"relax.flatten", MakeOpCall("relax.flatten", {x})},
        {"relax.concat",
         MakeOpCall("relax.concat", {MakeTuple({m, m})}, {{"axis", ir::MakeInt(1)}})},
        {"relax.split",
         MakeOpCall("relax.split", {x},
                    {{"indices_or_sections", ir::MakeInt(2)}, {"axis", ir::MakeInt(1)}})},
        {"relax.strided_slice",
         MakeOpCall("relax.strided_slice", {x, prims({2}), prims({1}), prims({5}), prims({2})})},
        {"relax.take", MakeOpCall("relax.take", {m, idx}, {{"axis", ir::MakeInt(0)}})},
        {"relax.broadcast_to", MakeOpCall("relax.broadcast_to", {v, MakeShapeExpr(dims({3, 4}))})},
        {"relax.sum", MakeOpCall("relax.sum", {x}, {{"axis", ints({1, 2})}})},
        {"relax.mean",
         MakeOpCall("relax.mean", {x}, {{"axis", ints({3})}, {"keepdims", ir::MakeBool(true)}})},
        {"relax.max", MakeOpCall("relax.max", {x})},
        {"relax.min", MakeOpCall("relax.min", {m}, {{"axis", ints({0})}})},
        {"relax.argmax", MakeOpCall("relax.argmax", {m}, {{"axis", ir::MakeInt(1)}})},
        {"relax.full",
         MakeOpCall("relax.full", {MakeShapeExpr(dims({2, 3})),
                                   MakeConstant(f32, {}, std::string("\0\0\x80\x3f", 4))})},
        {"relax.zeros",
         MakeOpCall("relax.zeros", {MakeShapeExpr(dims({2, 3}))}, {{"dtype", DTypeAttr(f32)}})},
        {"relax.ones", MakeOpCall("relax.ones", {MakeShapeExpr(dims({5}))},
                                  {{"dtype", DTypeAttr(ir::DataType::Int(32))}})},
    };
    std::vector<Var> outs;
    for (auto& [name, call] : calls) outs.push_back(bb.Emit(call, "lv"));
    bb.EndBlock();
    bb.EndFunction(MakeTuple(std::vector<Expr>(outs.begin(), outs.end())));
    QVERIFY2(bb.diagnostics().empty(), RenderDiagnostics(bb.diagnostics()).c_str());
    DiagnosticList warnings;
    ir::IRModule out = transform::LegalizeModule(bb.GetModule(), &warnings);
    QVERIFY2(warnings.empty(), RenderDiagnostics(warnings).c_str());
    auto main = out->Lookup("main").as_ref<FunctionNode>();
    auto* seq = main->body.as<SeqExprNode>();
    const auto& bindings = seq->blocks.at(0)->bindings;
    QCOMPARE(bindings.size(), calls.size());
    for (size_t i = 0; i < calls.size(); ++i) {
      auto* call = bindings[i].as<VarBindingNode>()->value.as<CallNode>();
      QVERIFY2(call && InfoOf(call->op.as_ref<ir::OpNode>())->name == "relax.call_tir",
               calls[i].first.c_str());
      // The call_tir has the op's type.
      QVERIFY2(ir::StructuralEqual(GetType(bindings[i]->var), GetType(ir::GetRef(call))),
               calls[i].first.c_str());
      auto gv = call->args[0].as_ref<ir::GlobalVarNode>();
      auto func = out->Lookup(gv).as_ref<tir::PrimFuncNode>();
      QVERIFY2(func.defined(), calls[i].first.c_str());
      DiagnosticList verify = tir::VerifyWellFormed(func);
      QVERIFY2(verify.empty(), (calls[i].first + ": " + RenderDiagnostics(verify)).c_str());
      // It runs: every access in bounds (the interpreter checks each one) on random inputs.
      std::vector<tir::InterpArg> args;
      for (const Expr& a : call->args[1].as<TupleNode>()->fields) args.emplace_back(Random(a, i));
      std::vector<Type> outs = {call->sinfo_args[0]};
      if (auto* tuple = call->sinfo_args[0].as<ir::TupleTypeNode>()) outs = tuple->fields;
      for (const Type& t : outs) args.emplace_back(Empty(t));
      tir::InterpretResult r = tir::InterpretModule(out, gv->name_hint, args);
      QVERIFY2(r.ok(), (calls[i].first + ": " + RenderDiagnostics(r.diagnostics)).c_str());
    }
  }

  void passRegistry() {
    const transform::PassEntry* entry = transform::PassRegistry::Global().Find("LegalizeOps");
    QVERIFY(entry);
    DiagnosticList diags;
    std::optional<ir::Pass> pipeline = transform::BuildPipeline("LegalizeOps", diags);
    QVERIFY2(pipeline.has_value(), RenderDiagnostics(diags).c_str());
    ir::IRModule mod = ParseModule(std::string(kHeader) + kGoldens[0].before);
    ir::IRModule out = (*pipeline)(mod);
    QCOMPARE(script::PrintModule(out), std::string(kGoldens[0].after));
  }
};

QTEST_APPLESS_MAIN(TestLegalizeOps)
#include "tst_legalize_ops.moc"
