// Relax TVMScript: every module of tests/script/corpus/relax round-trips (parse -> print ->
// parse is structurally equal, printing is a fixed point, canonical files print back byte for
// byte), every malformed program gives exactly the diagnostics its `# expect:` lines list, and
// the parser survives truncated and mutated Relax input.
#include <QDir>
#include <QTest>
#include <cstring>

#include <fstream>
#include <map>
#include <random>
#include <sstream>

#include "ir/global_info.h"
#include "ir/json.h"
#include "ir/structural_equal.h"
#include "ir/structural_hash.h"
#include "relax/expr.h"
#include "relax/op/registry.h"
#include "relax/type.h"
#include "script/tvmscript.h"
#include "tir/expr.h"

namespace {

struct CorpusFile {
  std::string name;
  std::string text;
};

std::vector<CorpusFile> Load(const QString& sub) {
  std::vector<CorpusFile> files;
  QDir dir(QString::fromUtf8(qgetenv("WB_SOURCE_DIR")) + "/tests/script/corpus/relax" + sub);
  for (const QString& name : dir.entryList({"*.py"}, QDir::Files, QDir::Name)) {
    std::ifstream in(dir.filePath(name).toStdString(), std::ios::binary);
    std::ostringstream buf;
    buf << in.rdbuf();
    files.push_back({name.toStdString(), buf.str()});
  }
  return files;
}

std::string Diagnostics(const wb::DiagnosticList& diags) {
  std::string out;
  for (const auto& d : diags) {
    auto pos = d.span.start();
    out += std::to_string(pos.line) + ":" + std::to_string(pos.column) + ": " +
           wb::SeverityName(d.severity) + ": " + d.message + "\n";
  }
  return out;
}

// Corpus programs that need ops the Relax op registry does not have yet, with the reason. A row
// listed here that starts passing fails the test (XPASS), so this list only ever shrinks.
const std::map<std::string, std::string>& KnownGaps() {
  static const std::map<std::string, std::string> gaps = {};
  return gaps;
}

// "first difference at line N" between two texts.
std::string FirstDifference(const std::string& a, const std::string& b) {
  std::istringstream sa(a), sb(b);
  std::string la, lb;
  for (int line = 1;; ++line) {
    bool ha = static_cast<bool>(std::getline(sa, la));
    bool hb = static_cast<bool>(std::getline(sb, lb));
    if (!ha && !hb) return "only trailing characters differ";
    if (!ha || !hb || la != lb) {
      return "line " + std::to_string(line) + ":\n  expected: " + (ha ? la : "<end>") +
             "\n  printed:  " + (hb ? lb : "<end>");
    }
  }
}

// The corpus uses the registered Relax ops (R.add, R.matmul, R.call_tir, ...). They come from the
// relax module's op family files; until those are in this build there is nothing to test.
bool OpsRegistered() { return wb::relax::FindOpByScriptName("call_tir") != nullptr; }
#define REQUIRE_OPS() \
  if (!OpsRegistered()) QSKIP("the Relax op registry is empty in this build")

}  // namespace

class TestRelaxScript : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  void corpusIsLargeEnough() {
    size_t canonical = 0;
    for (const auto& f : Load("")) canonical += f.name.find(".input.") == std::string::npos;
    QVERIFY2(canonical >= 40, qPrintable(QString("only %1 canonical modules").arg(canonical)));
    QVERIFY(Load("/errors").size() >= 19);
  }

  void roundTrip_data() {
    QTest::addColumn<int>("index");
    auto corpus = Load("");
    for (size_t i = 0; i < corpus.size(); ++i) {
      QTest::newRow(corpus[i].name.c_str()) << static_cast<int>(i);
    }
  }
  void roundTrip() {
    REQUIRE_OPS();
    QFETCH(int, index);
    const CorpusFile file = Load("")[size_t(index)];
    if (auto gap = KnownGaps().find(file.name); gap != KnownGaps().end()) {
      QEXPECT_FAIL("", gap->second.c_str(), Abort);
    }
    auto first = wb::script::Parse(file.text, file.name);
    QVERIFY2(first.ok(), Diagnostics(first.diagnostics).c_str());
    std::string printed = wb::script::Print(first);
    auto second = wb::script::Parse(printed, file.name + " (printed)");
    QVERIFY2(second.ok(), (Diagnostics(second.diagnostics) + printed).c_str());
    auto mismatch = wb::ir::FindFirstMismatch(first.module, second.module);
    QVERIFY2(!mismatch, mismatch ? mismatch->lhs_path.c_str() : "");
    QVERIFY2(wb::ir::StructuralHash(first.module) == wb::ir::StructuralHash(second.module),
             "structurally equal modules hash differently");
    std::string reprinted = wb::script::Print(second);
    QVERIFY2(reprinted == printed, FirstDifference(printed, reprinted).c_str());
    if (file.name.find(".input.") == std::string::npos) {
      QVERIFY2(printed == file.text, FirstDifference(file.text, printed).c_str());
    }
  }

  void malformedProgramsGiveExactDiagnostics_data() {
    QTest::addColumn<int>("index");
    auto files = Load("/errors");
    for (size_t i = 0; i < files.size(); ++i) {
      QTest::newRow(files[i].name.c_str()) << static_cast<int>(i);
    }
  }
  void malformedProgramsGiveExactDiagnostics() {
    REQUIRE_OPS();
    QFETCH(int, index);
    const CorpusFile file = Load("/errors")[size_t(index)];
    std::string expected;
    std::istringstream lines(file.text);
    for (std::string line; std::getline(lines, line);) {
      if (line.rfind("# expect: ", 0) == 0) expected += line.substr(10) + "\n";
    }
    QVERIFY(!expected.empty());
    auto result = wb::script::Parse(file.text, file.name);
    std::string got = Diagnostics(result.diagnostics);
    QVERIFY2(got == expected, ("expected:\n" + expected + "got:\n" + got).c_str());
  }

  // A shape operand written as a Python tuple or list (`R.zeros((2, 3), ...)`, `R.reshape(x, (n *
  // 4,))`) is the ShapeExpr that `R.shape([...])` writes: the module equals the one written with
  // R.shape, prints as TVM prints it, and its symbolic dims are the parameters' vars.
  void shapeTuplesBecomeShapeExprs() {
    REQUIRE_OPS();
    std::string input, canonical;
    for (const auto& file : Load("")) {
      if (file.name == "58_shape_tuples.input.py") input = file.text;
      if (file.name == "58_shape_tuples.py") canonical = file.text;
    }
    QVERIFY(!input.empty() && !canonical.empty());
    auto tuples = wb::script::Parse(input, "tuples.py");
    QVERIFY2(tuples.ok(), Diagnostics(tuples.diagnostics).c_str());
    auto shapes = wb::script::Parse(canonical, "shapes.py");
    QVERIFY2(shapes.ok(), Diagnostics(shapes.diagnostics).c_str());
    auto mismatch = wb::ir::FindFirstMismatch(tuples.module, shapes.module);
    QVERIFY2(!mismatch, mismatch ? mismatch->lhs_path.c_str() : "");
    std::string printed = wb::script::Print(tuples);
    QVERIFY2(printed == canonical, (FirstDifference(canonical, printed) + "\nprinted:\n" + printed).c_str());

    auto create = tuples.module->Lookup("create").as_ref<wb::relax::FunctionNode>();
    QVERIFY(create.defined());
    const auto& bindings = create->body.as<wb::relax::SeqExprNode>()->blocks.at(0)->bindings;
    auto operand = [&](size_t i) {
      auto* vb = bindings.at(i).as<wb::relax::VarBindingNode>();
      auto* call = vb ? vb->value.as<wb::relax::CallNode>() : nullptr;
      return call ? call->args.at(0).as<wb::relax::ShapeExprNode>() : nullptr;
    };
    const auto* zeros = operand(0);
    QVERIFY(zeros && zeros->values.size() == 2);
    for (const auto& d : zeros->values) QCOMPARE(d->dtype, wb::ir::DataType::Int(64));
    QCOMPARE(zeros->values[1].as<wb::tir::IntImmNode>()->value, int64_t(3));
    // R.ones((n, 4), ...): n is the var of x's annotation, not a new one.
    const auto* ones = operand(1);
    QVERIFY(ones && ones->values.size() == 2);
    auto* x_type = create->params[0]->struct_info.as<wb::relax::TensorTypeNode>();
    QVERIFY(x_type);
    QCOMPARE(ones->values[0].get(), x_type->shape->at(0).get());
    QVERIFY(operand(4) && operand(4)->values.empty());  // R.zeros((), ...): a scalar
  }

  // Structure: the MLP's main has one dataflow block whose call_tir bindings are typed.
  void mlpIsBuiltWithTypes() {
    REQUIRE_OPS();
    for (const auto& file : Load("")) {
      if (file.name != "01_mlp_call_tir.py") continue;
      auto r = wb::script::Parse(file.text, file.name);
      QVERIFY(r.ok());
      auto main = r.module->Lookup("main").as_ref<wb::relax::FunctionNode>();
      QVERIFY(main.defined());
      auto* seq = main->body.as<wb::relax::SeqExprNode>();
      QVERIFY(seq && seq->blocks.size() == 1);
      QVERIFY(seq->blocks[0].as<wb::relax::DataflowBlockNode>());
      QCOMPARE(seq->blocks[0]->bindings.size(), size_t(3));
      QVERIFY(seq->blocks[0]->bindings[0]->var.as<wb::relax::DataflowVarNode>());
      QVERIFY(!seq->blocks[0]->bindings[2]->var.as<wb::relax::DataflowVarNode>());
      for (const auto& b : seq->blocks[0]->bindings) QVERIFY(b->var->struct_info.defined());
      return;
    }
    QFAIL("01_mlp_call_tir.py not found");
  }

  // The type each expression gets when bound in a function with a (64, 8) float32 tensor `a`,
  // a storage object `s`, a (2, 4, 14, 14, 4) NCHW4c tensor `x` and a packed function `f`; an
  // expected text starting with "error: " is the diagnostic instead.
  void expressionsAreTyped_data() {
    QTest::addColumn<QString>("expr");
    QTest::addColumn<QString>("type");
    auto row = [](const char* name, const char* expr, const char* type) {
      QTest::newRow(name) << QString(expr) << QString(type);
    };
    // R.memory.view: each omitted part is the data's.
    row("view same", "R.memory.view(a)", "R.Tensor((64, 8), \"float32\")");
    row("view shape", "R.memory.view(a, R.shape([512]))", "R.Tensor((512,), \"float32\")");
    row("view dtype", "R.memory.view(a, R.shape([64, 16]), \"float16\")", "R.Tensor((64, 16), \"float16\")");
    row("view dtype keyword", "R.memory.view(a, dtype=R.dtype(\"int8\"))", "R.Tensor((64, 8), \"int8\")");
    row("view offset", "R.memory.view(a, R.shape([128]), relative_byte_offset=R.prim_value(T.int64(1536)))",
        "R.Tensor((128,), \"float32\")");
    row("view too large", "R.memory.view(a, R.shape([513]))",
        "error: memory.view: the view R.Tensor((513,), \"float32\") ends at byte 2052, past the 2048 bytes of the data R.Tensor((64, 8), \"float32\")");
    row("view offset past end", "R.memory.view(a, R.shape([128]), relative_byte_offset=R.prim_value(T.int64(1540)))",
        "error: memory.view: the view R.Tensor((128,), \"float32\") at byte offset 1540 ends at byte 2052, past the 2048 bytes of the data R.Tensor((64, 8), \"float32\")");
    row("view wider dtype", "R.memory.view(a, dtype=\"float64\")",
        "error: memory.view: the view R.Tensor((64, 8), \"float64\") ends at byte 4096, past the 2048 bytes of the data R.Tensor((64, 8), \"float32\")");
    row("view bad shape", "R.memory.view(a, R.prim_value(1))",
        "error: memory.view: the shape must be a shape (R.shape([...])) or the empty tuple, got R.Prim(\"int64\")");
    row("ensure_zero_offset", "R.memory.ensure_zero_offset(a)", "R.Tensor((64, 8), \"float32\")");
    row("null_value", "R.null_value()", "R.Object");
    // The VM-level ops of TVM's lowered modules.
    row("vm.alloc_storage", "R.vm.alloc_storage(R.shape([16]), R.prim_value(0), \"uint8\")", "R.Object");
    row("vm.alloc_tensor", "R.vm.alloc_tensor(s, 0, R.shape([2, 2]), \"float32\")", "R.Tensor((2, 2), \"float32\")");
    row("vm.alloc_tensor no dtype", "R.vm.alloc_tensor(s, 0, R.shape([2, 2]), R.str(\"x\"))",
        "error: vm.alloc_tensor: the fourth argument must be a dtype (R.dtype(...))");
    row("vm.kill_object", "R.vm.kill_object(s)", "R.Tuple()");
    row("call_builtin_with_ctx void", "R.call_builtin_with_ctx(\"vm.builtin.f\", (a,))", "R.Tuple()");
    row("call_builtin_with_ctx typed", "R.call_builtin_with_ctx(\"vm.builtin.f\", (a,), ty_args=(R.Shape(ndim=2),))",
        "R.Shape(ndim=2)");
    row("make_closure", "R.make_closure(f, (a,))", "R.Object");
    row("invoke_closure", "R.invoke_closure(s, (a,), ty_args=(R.Tensor((4,), \"int8\"),))", "R.Tensor((4,), \"int8\")");
    row("invoke_pure_closure pair", "R.invoke_pure_closure(s, (a,), ty_args=(R.Shape(ndim=1), R.Any))",
        "R.Tuple(R.Shape(ndim=1), R.Object)");
    row("ty_args refused", "R.add(a, a, ty_args=(R.Any,))", "error: 'ty_args' is not supported for R.add");
    // R.const of nested lists: numpy's array, TVM's default dtypes.
    row("const matrix", "R.const([[1, 2, 3], [4, 5, 6]], \"float32\")", "R.Tensor((2, 3), \"float32\")");
    row("const int list", "R.const([1, -2])", "R.Tensor((2,), \"int32\")");
    row("const mixed list", "R.const([1, 2.5])", "R.Tensor((2,), \"float32\")");
    row("const bool list", "R.const([True, False])", "R.Tensor((2,), \"bool\")");
    row("const ragged", "R.const([[1, 2], [3]])",
        "error: R.const: the nested lists have different lengths (numpy needs a rectangular array)");
    row("const string item", "R.const([1, \"a\"])", "error: R.const expects a number, a bool or a list of them, got a string");
    // Blocked layouts: C split into blocks of 4 (TVM's NCHW4c).
    row("conv2d NCHW4c", "R.nn.conv2d(x, R.zeros((8, 4, 3, 3, 4, 4), \"float32\"), padding=[1, 1], data_layout=\"NCHW4c\", kernel_layout=\"OIHW4i4o\")",
        "R.Tensor((2, 8, 14, 14, 4), \"float32\")");
    row("conv2d out NHWC", "R.nn.conv2d(x, R.zeros((8, 16, 3, 3), \"float32\"), data_layout=\"NCHW4c\", out_layout=\"NHWC\")",
        "R.Tensor((2, 12, 12, 8), \"float32\")");
    row("max_pool2d NCHW4c", "R.nn.max_pool2d(x, pool_size=[2, 2], strides=[2, 2], layout=\"NCHW4c\")",
        "R.Tensor((2, 4, 7, 7, 4), \"float32\")");
    row("adaptive_avg_pool2d NCHW4c", "R.nn.adaptive_avg_pool2d(x, output_size=[1, 1], layout=\"NCHW4c\", out_layout=\"NCHW2c\")",
        "R.Tensor((2, 8, 1, 1, 2), \"float32\")");
    row("layout sub-axis extent", "R.nn.max_pool2d(x, layout=\"NCHW8c\")",
        "error: nn.max_pool2d: the data's sub-axis 8c has extent 4");
    row("layout sub-axis without primal", "R.nn.max_pool2d(x, layout=\"NCHW4k\")",
        "error: nn.max_pool2d: data layout NCHW4k is not supported (expected a permutation of NCHW, with sub-axes such as NCHW4c)");
  }
  void expressionsAreTyped() {
    REQUIRE_OPS();
    QFETCH(QString, expr);
    QFETCH(QString, type);
    std::string text = "from tvm.script import ir as I\nfrom tvm.script import relax as R\n"
                       "from tvm.script import tirx as T\n\n@I.ir_module\nclass Module:\n"
                       "    @R.function(pure=False)\n"
                       "    def main(a: R.Tensor((64, 8), \"float32\"), s: R.Object, x: R.Tensor((2, 4, 14, 14, 4), \"float32\"), f: R.Callable):\n"
                       "        v = " + expr.toStdString() + "\n        return a\n";
    auto r = wb::script::Parse(text, "typed.py");
    std::string want = type.toStdString();
    if (want.rfind("error: ", 0) == 0) {
      QVERIFY2(!r.ok(), "parsed without an error");
      QCOMPARE(QString::fromStdString(r.diagnostics[0].message), QString::fromStdString(want.substr(7)));
      QCOMPARE(r.diagnostics[0].span.start().line, 9u);
      return;
    }
    QVERIFY2(r.ok(), Diagnostics(r.diagnostics).c_str());
    auto main = r.module->Lookup("main").as_ref<wb::relax::FunctionNode>();
    auto* seq = main->body.as<wb::relax::SeqExprNode>();
    QVERIFY(seq && !seq->blocks.empty() && !seq->blocks[0]->bindings.empty());
    const auto& binding = seq->blocks[0]->bindings.back();
    QCOMPARE(QString::fromStdString(binding->var->name_hint), QString("v"));
    QCOMPARE(QString::fromStdString(wb::relax::TypeToString(binding->var->struct_info)), type);
  }

  // I.module_global_infos lands in IRModule::global_infos as VDevice nodes that structural
  // equality, hashing and JSON all see.
  void globalInfosHoldVDevices() {
    const char* text = R"(from tvm.script import ir as I
from tvm.script import relax as R

@I.ir_module
class Module:
    I.module_global_infos({"vdevice": [I.vdevice("llvm"), I.vdevice("cuda", 1, "global.texture")]})

    @R.function
    def main(x: R.Tensor((4,), "float32")) -> R.Tensor((4,), "float32"):
        return x
)";
    auto r = wb::script::Parse(text, "vdevice.py");
    QVERIFY2(r.ok(), Diagnostics(r.diagnostics).c_str());
    auto it = r.module->global_infos.find("vdevice");
    QVERIFY(it != r.module->global_infos.end());
    const auto* list = it->second.as<wb::ir::ArrayObj>();
    QVERIFY(list && list->items.size() == 2);
    const auto* cuda = list->items[1].as<wb::ir::VDeviceNode>();
    QVERIFY(cuda);
    QCOMPARE(cuda->target, std::string("cuda"));
    QCOMPARE(cuda->vdevice_id, int64_t(1));
    QCOMPARE(cuda->memory_scope, std::string("global.texture"));
    QCOMPARE(list->items[0].as<wb::ir::VDeviceNode>()->memory_scope, std::string("global"));

    // Another vdevice_id is another module.
    std::string other = text;
    other.replace(other.find("\"cuda\", 1"), 9, "\"cuda\", 2");
    auto r2 = wb::script::Parse(other, "vdevice2.py");
    QVERIFY2(r2.ok(), Diagnostics(r2.diagnostics).c_str());
    QVERIFY(!wb::ir::StructuralEqual(r.module, r2.module));
    QVERIFY(wb::ir::StructuralHash(r.module) != wb::ir::StructuralHash(r2.module));

    std::string error;
    wb::ir::ObjectRef loaded = wb::ir::LoadJSON(wb::ir::SaveJSON(r.module), &error);
    QVERIFY2(loaded.defined(), error.c_str());
    QVERIFY(wb::ir::StructuralEqual(loaded, r.module));
    QCOMPARE(wb::script::Print(r), std::string(
        "# from tvm.script import ir as I\n# from tvm.script import relax as R\n\n@I.ir_module\n"
        "class Module:\n    I.module_global_infos({\"vdevice\": [I.vdevice(\"llvm\", 0, \"global\"), "
        "I.vdevice(\"cuda\", 1, \"global.texture\")]})\n    @R.function\n"
        "    def main(x: R.Tensor((4,), dtype=\"float32\")) -> R.Tensor((4,), dtype=\"float32\"):\n"
        "        return x"));
  }

  // A non-scalar constant prints as metadata["relax.expr.Constant"][0] under a metadata header
  // and parses back to an equal module; a scalar one prints inline.
  void nonScalarConstantsTravelAsMetadata() {
    REQUIRE_OPS();
    using namespace wb::relax;  // NOLINT(google-build-using-namespace)
    float values[2] = {1.5f, -2.0f};
    std::string bytes(reinterpret_cast<const char*>(values), sizeof(values));
    Constant c = MakeConstant(wb::ir::DataType::Float(32), {2}, bytes);
    float one = 1.0f;
    Constant s = MakeConstant(wb::ir::DataType::Float(32), {}, std::string(reinterpret_cast<const char*>(&one), 4));
    Type t = MakeTensorType({wb::tir::MakeIntImm(wb::ir::DataType::Int(64), 2)}, wb::ir::DataType::Float(32));
    Var x = MakeVar("x", t);
    auto typed = [&](Call call) {
      const OpInfo* info = InfoOf(Downcast<wb::ir::OpNode>(call->op));
      return WithType(call, info->infer(call, {GetType(call->args[0]), GetType(call->args[1])}).type());
    };
    Expr add = typed(MakeOpCall("relax.add", {x, c}));
    Var y = MakeVar("y", GetType(add));
    Expr mul = typed(MakeOpCall("relax.multiply", {y, s}));
    Var z = MakeVar("z", GetType(mul));
    SeqExpr body = MakeSeqExpr({MakeBindingBlock({MakeVarBinding(y, add), MakeVarBinding(z, mul)})}, z);
    Function f = MakeFunction({x}, WithType(body, GetType(z)), t, true,
                              {{"global_symbol", wb::ir::MakeString("main")}});
    auto module = wb::ir::MakeIRModule({wb::ir::MakeGlobalVar("main")}, {f});
    std::string printed = wb::script::PrintModule(module);
    QVERIFY2(printed.rfind("metadata = tvm.ir.load_json(\"\"\"", 0) == 0, printed.c_str());
    QVERIFY2(printed.find("R.add(x, metadata[\"relax.expr.Constant\"][0])") != std::string::npos,
             printed.c_str());
    QVERIFY2(printed.find("R.multiply(y, R.const(1.0, \"float32\"))") != std::string::npos,
             printed.c_str());
    auto parsed = wb::script::Parse(printed, "metadata.py");
    QVERIFY2(parsed.ok(), Diagnostics(parsed.diagnostics).c_str());
    // The constant comes back with the same dtype, shape and bytes.
    auto main = parsed.module->Lookup("main").as_ref<FunctionNode>();
    QVERIFY(main.defined());
    auto* seq = main->body.as<SeqExprNode>();
    QVERIFY(seq && seq->blocks.size() == 1 && seq->blocks[0]->bindings.size() == 2);
    auto* first = static_cast<const VarBindingNode*>(seq->blocks[0]->bindings[0].get());
    auto* call = first->value.as<wb::relax::CallNode>();
    QVERIFY(call && call->args.size() == 2);
    auto* back = call->args[1].as<ConstantNode>();
    QVERIFY(back);
    QCOMPARE(back->dtype, c->dtype);
    QVERIFY(back->shape == c->shape);
    QVERIFY(back->data == c->data);
    QCOMPARE(wb::script::Print(parsed), printed);
  }

  // The metadata section as TVM prints it: tvm-ffi's JSON graph, where each constant also lists
  // its `span` and `ty` (skipped here: the type comes from the tensor) and the tensor is TVM's
  // binary format in base64.
  void parsesTVMsMetadataGraph() {
    REQUIRE_OPS();
    const char* tvm_text = R"(metadata = tvm.ir.load_json("""{
  "root_index": 7,
  "nodes": [
    {"type": "ffi.String", "data": "relax.expr.Constant"},
    {"type": "None"},
    {"type": "ffi.Shape", "data": [2]},
    {"type": "relax.TensorType", "data": {"shape": 1, "dtype": 1, "vdevice": 1, "ndim": 1}},
    {"type": "ffi.Tensor", "data": "P6G0lvBAXt0AAAAAAAAAAAEAAAAAAAAAAQAAAAIgAQACAAAAAAAAAAgAAAAAAAAAAADAPwAAAMA="},
    {"type": "relax.expr.Constant", "data": {"span": 1, "ty": 3, "data": 4}},
    {"type": "ffi.Array", "data": [5]},
    {"type": "ffi.Map", "data": [0, 6]}
  ],
  "metadata": {"tvm_version": "0.26.dev0"}
}""")

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2,), dtype="float32")) -> R.Tensor((2,), dtype="float32"):
        y: R.Tensor((2,), dtype="float32") = R.add(x, metadata["relax.expr.Constant"][0])
        return y)";
    auto parsed = wb::script::Parse(tvm_text, "tvm_metadata.py");
    QVERIFY2(parsed.ok(), Diagnostics(parsed.diagnostics).c_str());
    using namespace wb::relax;  // NOLINT(google-build-using-namespace)
    auto main = parsed.module->Lookup("main").as_ref<FunctionNode>();
    auto* seq = main->body.as<SeqExprNode>();
    auto* binding = static_cast<const VarBindingNode*>(seq->blocks[0]->bindings[0].get());
    auto* c = binding->value.as<CallNode>()->args[1].as<ConstantNode>();
    QVERIFY(c && c->dtype == wb::ir::DataType::Float(32) && c->shape == std::vector<int64_t>{2});
    float values[2];
    std::memcpy(values, c->data.data(), 8);
    QCOMPARE(values[0], 1.5f);
    QCOMPARE(values[1], -2.0f);
    // A tensor that is not TVM's format is an error at the metadata string.
    std::string bad = tvm_text;
    bad.replace(bad.find("P6G0lvBAXt0AAAAAAAAAAAEAAAAAAAAAAQAAAAIgAQACAAAAAAAAAAgAAAAAAAAAAADAPwAAAMA="), 76,
                "AQAAAAAAAAAAAAAAAAAAAA==");
    auto broken = wb::script::Parse(bad, "bad.py");
    QVERIFY(!broken.ok());
    QVERIFY2(Diagnostics(broken.diagnostics).find("invalid metadata: constant 0: the tensor does not start with TVM's tensor magic") != std::string::npos,
             Diagnostics(broken.diagnostics).c_str());
  }

  // The parser answers (IR or diagnostics) on every prefix and on random mutations of Relax
  // input, and whatever parsed prints without crashing.
  void parserSurvivesTruncationAndMutation() {
    std::mt19937 rng(20261129);
    const char kAlphabet[] = "()[]{}:,.=+-*/%<>\"'#\n \tTRIab0123456789_@";
    size_t runs = 0;
    for (const auto& file : Load("")) {
      const std::string& text = file.text;
      for (size_t cut = 0; cut < text.size(); cut += std::max<size_t>(1, text.size() / 17)) {
        auto r = wb::script::Parse(text.substr(0, cut), file.name);
        ++runs;
        if (r.module.defined()) (void)wb::script::Print(r);
      }
      for (int m = 0; m < 10; ++m) {
        std::string mutated = text;
        int edits = 1 + static_cast<int>(rng() % 4);
        for (int e = 0; e < edits && !mutated.empty(); ++e) {
          size_t pos = rng() % mutated.size();
          switch (rng() % 3) {
            case 0: mutated.erase(pos, 1 + rng() % 8); break;
            case 1: mutated.insert(pos, 1, kAlphabet[rng() % (sizeof(kAlphabet) - 1)]); break;
            default: mutated[pos] = kAlphabet[rng() % (sizeof(kAlphabet) - 1)];
          }
        }
        auto r = wb::script::Parse(mutated, file.name);
        ++runs;
        if (r.module.defined()) (void)wb::script::Print(r);
      }
    }
    QVERIFY(runs > 500);
  }
};

QTEST_APPLESS_MAIN(TestRelaxScript)
#include "tst_relax_script.moc"
