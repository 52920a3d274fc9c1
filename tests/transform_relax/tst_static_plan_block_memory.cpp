// StaticPlanBlockMemory: goldens of our own (reuse by liveness, no reuse across dtypes, escaping
// and symbolic tensors left alone, nothing to plan leaves the module as it is), the interpreter
// equal before and after, the VM equal to the interpreter on the MLP and conv net after it (it is
// in default_build_pipeline), and the memory a call allocates before and after (allocations and
// bytes: the VM's registers hold every allocation until the function returns, so without
// planning their sum is the peak).
#include <QTest>

#include "codegen/vm_codegen.h"
#include "relax/interpreter.h"
#include "relax/well_formed.h"
#include "relax_pass_test.h"
#include "runtime/vm/vm.h"
#include "transform/relax/legalize_ops.h"

using namespace relax_pass_test;
using namespace wb;
namespace vm = wb::runtime::vm;

namespace {

// What CallTIRRewrite leaves: explicit allocations and kernel calls.
const char* kKernels = R"(
    @T.prim_func(private=True)
    def exp(a: T.Buffer((8,), "float32"), b: T.Buffer((8,), "float32")):
        for i in range(8):
            b[i] = T.exp(a[i])

    @T.prim_func(private=True)
    def relu(a: T.Buffer((8,), "float32"), b: T.Buffer((8,), "float32")):
        for i in range(8):
            b[i] = T.max(a[i], T.float32(0.0))

    @T.prim_func(private=True)
    def add(a: T.Buffer((8,), "float32"), b: T.Buffer((8,), "float32"), c: T.Buffer((8,), "float32")):
        for i in range(8):
            c[i] = a[i] + b[i]

    @T.prim_func(private=True)
    def cast(a: T.Buffer((8,), "float32"), b: T.Buffer((8,), "int32")):
        for i in range(8):
            b[i] = T.Cast("int32", a[i] * T.float32(10.0))

    @T.prim_func(private=True)
    def double(a: T.Buffer((8,), "int32"), b: T.Buffer((8,), "int32")):
        for i in range(8):
            b[i] = a[i] + a[i]
)";

std::string Module(const std::string& main) { return "\n@I.ir_module\nclass Module:" + std::string(kKernels) + main; }

const char* kChain = R"(
    @R.function(pure=False)
    def main(x: R.Tensor((8,), dtype="float32")) -> R.Tuple(R.Tensor((8,), dtype="int32")):
        cls = Module
        alloc: R.Tensor((8,), dtype="float32") = R.builtin.alloc_tensor(R.shape([8]), R.dtype("float32"), R.prim_value(0), R.str("global"))
        _ = cls.exp(x, alloc)
        alloc1: R.Tensor((8,), dtype="float32") = R.builtin.alloc_tensor(R.shape([8]), R.dtype("float32"), R.prim_value(0), R.str("global"))
        _1 = cls.relu(alloc, alloc1)
        alloc2: R.Tensor((8,), dtype="float32") = R.builtin.alloc_tensor(R.shape([8]), R.dtype("float32"), R.prim_value(0), R.str("global"))
        _2 = cls.add(alloc, alloc1, alloc2)
        lv: R.Tensor((8,), dtype="float32") = alloc2
        alloc3: R.Tensor((8,), dtype="float32") = R.builtin.alloc_tensor(R.shape([8]), R.dtype("float32"), R.prim_value(0), R.str("global"))
        _3 = cls.relu(lv, alloc3)
        alloc4: R.Tensor((8,), dtype="int32") = R.builtin.alloc_tensor(R.shape([8]), R.dtype("int32"), R.prim_value(0), R.str("global"))
        _4 = cls.cast(alloc3, alloc4)
        alloc5: R.Tensor((8,), dtype="int32") = R.builtin.alloc_tensor(R.shape([8]), R.dtype("int32"), R.prim_value(0), R.str("global"))
        _5 = cls.double(alloc4, alloc5)
        out: R.Tuple(R.Tensor((8,), dtype="int32")) = (alloc5,)
        return out
)";

// alloc3 reuses alloc's storage once alloc and alloc1 are dead (after the add); the int32
// tensor does not take a float32 storage; alloc5 is returned (in a tuple) and keeps its own
// allocation. Each tensor is killed after its last use (through the alias lv for alloc2), each
// storage at the end of the block.
const char* kChainExpected = R"(
    @R.function(pure=False)
    def main(x: R.Tensor((8,), dtype="float32")) -> R.Tuple(R.Tensor((8,), dtype="int32")):
        cls = Module
        storage: R.Any = R.memory.alloc_storage(R.shape([32]), R.prim_value(0), R.str("global"), R.dtype("float32"))
        alloc: R.Tensor((8,), dtype="float32") = R.memory.alloc_tensor(storage, R.prim_value(0), R.shape([8]), R.dtype("float32"))
        _ = cls.exp(x, alloc)
        storage1: R.Any = R.memory.alloc_storage(R.shape([32]), R.prim_value(0), R.str("global"), R.dtype("float32"))
        alloc1: R.Tensor((8,), dtype="float32") = R.memory.alloc_tensor(storage1, R.prim_value(0), R.shape([8]), R.dtype("float32"))
        _1 = cls.relu(alloc, alloc1)
        storage2: R.Any = R.memory.alloc_storage(R.shape([32]), R.prim_value(0), R.str("global"), R.dtype("float32"))
        alloc2: R.Tensor((8,), dtype="float32") = R.memory.alloc_tensor(storage2, R.prim_value(0), R.shape([8]), R.dtype("float32"))
        _2 = cls.add(alloc, alloc1, alloc2)
        R.memory.kill_tensor(alloc)
        R.memory.kill_tensor(alloc1)
        lv: R.Tensor((8,), dtype="float32") = alloc2
        alloc3: R.Tensor((8,), dtype="float32") = R.memory.alloc_tensor(storage, R.prim_value(0), R.shape([8]), R.dtype("float32"))
        _3 = cls.relu(lv, alloc3)
        R.memory.kill_tensor(alloc2)
        storage3: R.Any = R.memory.alloc_storage(R.shape([32]), R.prim_value(0), R.str("global"), R.dtype("int32"))
        alloc4: R.Tensor((8,), dtype="int32") = R.memory.alloc_tensor(storage3, R.prim_value(0), R.shape([8]), R.dtype("int32"))
        _4 = cls.cast(alloc3, alloc4)
        R.memory.kill_tensor(alloc3)
        alloc5: R.Tensor((8,), dtype="int32") = R.builtin.alloc_tensor(R.shape([8]), R.dtype("int32"), R.prim_value(0), R.str("global"))
        _5 = cls.double(alloc4, alloc5)
        R.memory.kill_tensor(alloc4)
        out: R.Tuple(R.Tensor((8,), dtype="int32")) = (alloc5,)
        R.memory.kill_storage(storage)
        R.memory.kill_storage(storage1)
        R.memory.kill_storage(storage2)
        R.memory.kill_storage(storage3)
        return out
)";

// Symbolic shapes are not planned (no upper bound here), and a block with nothing to plan is
// left as it is.
const char* kSymbolic = R"(
    @R.function(pure=False)
    def main(x: R.Tensor(("n",), dtype="float32")) -> R.Tensor(("n",), dtype="float32"):
        n = T.int64()
        cls = Module
        alloc: R.Tensor((n,), dtype="float32") = R.builtin.alloc_tensor(R.shape([n]), R.dtype("float32"), R.prim_value(0), R.str("global"))
        return alloc
)";

const char* kMlp = R"(
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((64, 784), dtype="float32"), w0: R.Tensor((784, 256), dtype="float32"), b0: R.Tensor((256,), dtype="float32"), w1: R.Tensor((256, 10), dtype="float32"), b1: R.Tensor((10,), dtype="float32")) -> R.Tensor((64, 10), dtype="float32"):
        with R.dataflow():
            lv = R.matmul(x, w0)
            lv1 = R.add(lv, b0)
            lv2 = R.nn.relu(lv1)
            lv3 = R.matmul(lv2, w1)
            gv = R.add(lv3, b1)
            R.output(gv)
        return gv
)";

const char* kConvNet = R"(
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((1, 3, 8, 8), dtype="float32"), w: R.Tensor((4, 3, 3, 3), dtype="float32"), b: R.Tensor((1, 4, 1, 1), dtype="float32"), fc: R.Tensor((256, 10), dtype="float32")) -> R.Tensor((1, 10), dtype="float32"):
        with R.dataflow():
            lv = R.nn.conv2d(x, w, padding=[1, 1, 1, 1])
            lv1 = R.add(lv, b)
            lv2 = R.nn.relu(lv1)
            lv3 = R.reshape(lv2, R.shape([1, 256]))
            gv = R.matmul(lv3, fc)
            R.output(gv)
        return gv
)";

const char* kLowerNoPlan = "LegalizeOps, ToNonDataflow, RemovePurityChecking, CallTIRRewrite";

// Allocations a call of `main` makes and their bytes: R.builtin.alloc_tensor and
// R.memory.alloc_storage of static size.
struct Allocations {
  int count = 0;
  int64_t bytes = 0;
};

Allocations Count(const ir::IRModule& module) {
  Allocations a;
  auto main = ir::Downcast<relax::FunctionNode>(module->Lookup("main"));
  auto* seq = main->body.as<relax::SeqExprNode>();
  for (const auto& block : seq->blocks) {
    for (const auto& b : block->bindings) {
      auto* vb = b.as<relax::VarBindingNode>();
      auto* call = vb ? vb->value.as<relax::CallNode>() : nullptr;
      auto* op = call ? call->op.as<ir::OpNode>() : nullptr;
      if (!op) continue;
      if (op->name == "relax.builtin.alloc_tensor") {
        auto* tt = relax::GetType(vb->var).as<relax::TensorTypeNode>();
        int64_t n = tt->dtype.bytes();
        for (const auto& d : *tt->shape) n *= *tir::AsConstInt(d);
        ++a.count;
        a.bytes += n;
      } else if (op->name == "relax.memory.alloc_storage") {
        ++a.count;
        a.bytes += *tir::AsConstInt(call->args[0].as<relax::ShapeExprNode>()->values[0]);
      }
    }
  }
  return a;
}

// main through the VM (default build pipeline) and through the interpreter on the source.
std::string VMEqualsInterpreter(const ir::IRModule& model, uint64_t seed) {
  codegen::VMBuildResult built = codegen::BuildVM(model, codegen::Target::Host());
  if (!built.ok()) return "build failed: " + built.diagnostics[0].message;
  if (built.exec->AsText().find("vm.builtin.alloc_storage") == std::string::npos) return "nothing was planned";
  auto main = ir::Downcast<relax::FunctionNode>(model->Lookup("main"));
  std::string why;
  auto args = relax::RandomArguments(main, seed, 1, &why);
  if (!args) return why;
  std::vector<vm::Value> vm_args;
  for (const auto& a : *args) vm_args.push_back(vm::Value::Tensor(a.tensor.Copy()));
  relax::RelaxInterpretOptions options;
  options.legalize = transform::LegalizeCall;
  relax::RelaxInterpretResult expected = relax::InterpretRelax(model, "main", *args, options);
  if (!expected.ok()) return "interpreter: " + expected.diagnostics[0].message;
  vm::VirtualMachine machine(built.exec, built.kernels);
  vm::Value out = machine["main"](vm_args);
  relax::ValueComparison cmp = relax::CompareValues(relax::Value::Tensor(out.tensor), expected.value);
  return cmp.ok ? "" : cmp.message + "\n" + built.exec->AsText();
}

}  // namespace

class TestStaticPlanBlockMemory : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  void golden() {
    std::string error;
    ir::IRModule before = ParseModule(Module(kChain), &error);
    QVERIFY2(before.defined(), error.c_str());
    ir::IRModule expected = ParseModule(Module(kChainExpected), &error);
    QVERIFY2(expected.defined(), error.c_str());
    ir::IRModule after = RunPasses("StaticPlanBlockMemory", before, &error);
    QVERIFY2(after.defined(), error.c_str());
    auto mismatch = ir::FindFirstMismatch(after, expected);
    QVERIFY2(!mismatch, (mismatch ? mismatch->lhs_path + "\n" + script::PrintModule(after) : std::string()).c_str());
    std::string same = SameResults(before, after);
    QVERIFY2(same.empty(), same.c_str());
    // The planned program runs in the VM with the storages really shared.
    codegen::VMBuildOptions options;
    options.relax_pipeline = "StaticPlanBlockMemory";
    codegen::VMBuildResult built = codegen::BuildVM(before, codegen::Target::Host(), options);
    QVERIFY2(built.ok(), built.diagnostics.empty() ? "" : built.diagnostics[0].message.c_str());
    runtime::NDArray x = runtime::NDArray::Empty({8}, runtime::Float(32));
    runtime::FillRandom(x, 3);
    relax::RelaxInterpretResult want = relax::InterpretRelax(before, "main", {relax::Value::Tensor(x)});
    QVERIFY(want.ok());
    vm::VirtualMachine machine(built.exec, built.kernels);
    vm::Value got = machine["main"](x.Copy());
    QCOMPARE(got.kind, vm::Value::Kind::kTuple);
    QVERIFY(runtime::Compare(got.fields[0].tensor, want.value.fields[0].tensor).ok);
  }

  void nothingToPlan() {
    std::string error;
    ir::IRModule before = ParseModule(Module(kSymbolic), &error);
    QVERIFY2(before.defined(), error.c_str());
    ir::IRModule after = RunPasses("StaticPlanBlockMemory", before, &error);
    QVERIFY2(after.defined(), error.c_str());
    QVERIFY(after.same_as(before));
  }

  void vmEqualsInterpreterAfterPlanning_data() {
    QTest::addColumn<QString>("model");
    QTest::newRow("mlp") << QString(kMlp);
    QTest::newRow("conv net") << QString(kConvNet);
  }
  void vmEqualsInterpreterAfterPlanning() {
    QFETCH(QString, model);
    std::string error;
    ir::IRModule m = ParseModule(model.toStdString(), &error);
    QVERIFY2(m.defined(), error.c_str());
    for (uint64_t seed : {1u, 2u}) {
      std::string why = VMEqualsInterpreter(m, seed);
      QVERIFY2(why.empty(), why.c_str());
    }
  }

  // The MLP at batch 64: five allocations of 199,680 bytes in all before; after, the four
  // intermediates share two storages of 64 KiB and the result keeps its own.
  void memoryBeforeAndAfter() {
    std::string error;
    ir::IRModule m = ParseModule(kMlp, &error);
    QVERIFY2(m.defined(), error.c_str());
    ir::IRModule before = RunPasses(kLowerNoPlan, m, &error);
    QVERIFY2(before.defined(), error.c_str());
    ir::IRModule after = RunPasses("StaticPlanBlockMemory", before, &error);
    QVERIFY2(after.defined(), error.c_str());
    Allocations a = Count(before), b = Count(after);
    qInfo("MLP 64x784-256-10: %d allocations, %lld bytes before; %d allocations, %lld bytes after", a.count,
          static_cast<long long>(a.bytes), b.count, static_cast<long long>(b.bytes));
    QCOMPARE(a.count, 5);
    QCOMPARE(a.bytes, int64_t{3 * 64 * 256 * 4 + 2 * 64 * 10 * 4});
    QCOMPARE(b.count, 3);
    QCOMPARE(b.bytes, int64_t{2 * 64 * 256 * 4 + 64 * 10 * 4});
    DiagnosticList wf = relax::VerifyWellFormed(after);
    QVERIFY2(!wf.HasErrors(), wf.empty() ? "" : wf[0].message.c_str());
  }
};

QTEST_APPLESS_MAIN(TestStaticPlanBlockMemory)
#include "tst_static_plan_block_memory.moc"
