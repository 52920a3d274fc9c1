// The Relax VM end to end: BuildVM (default build pipeline, optionally with fusion, the
// PrimFuncs through codegen::Build, the VM codegen) then VirtualMachine on seeded random inputs,
// equal to the Relax reference interpreter on the source module. Also: a symbolic batch size
// read from the argument at run time, compound dims computed at run time, clear errors for
// wrong arguments naming the parameter, tuples, If, calls between Relax functions, and the
// executable's text dump.

#include <QTest>
#include <map>
#include <set>

#include "codegen/vm_codegen.h"
#include "relax/interpreter.h"
#include "runtime/vm/vm.h"
#include "script/tvmscript.h"
#include "tir/interpreter.h"
#include "transform/relax/legalize_ops.h"
#include "workbench/run_check.h"

using namespace wb;
namespace vm = wb::runtime::vm;

namespace {

const char* kMlp = R"(
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2, 16), dtype="float32"), w0: R.Tensor((16, 8), dtype="float32"), b0: R.Tensor((8,), dtype="float32"), w1: R.Tensor((8, 4), dtype="float32"), b1: R.Tensor((4,), dtype="float32")) -> R.Tensor((2, 4), dtype="float32"):
        with R.dataflow():
            lv = R.matmul(x, w0)
            lv1 = R.add(lv, b0)
            lv2 = R.nn.relu(lv1)
            lv3 = R.matmul(lv2, w1)
            gv = R.add(lv3, b1)
            R.output(gv)
        return gv
)";

const char* kSymbolicMlp = R"(
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor(("n", 16), dtype="float32"), w0: R.Tensor((16, 8), dtype="float32"), b0: R.Tensor((8,), dtype="float32"), w1: R.Tensor((8, 4), dtype="float32"), b1: R.Tensor((4,), dtype="float32")) -> R.Tensor(("n", 4), dtype="float32"):
        n = T.int64()
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

const char* kTupleIf = R"(
@I.ir_module
class Module:
    @R.function
    def pair(x: R.Tensor((4,), dtype="float32")) -> R.Tuple(R.Tensor((4,), dtype="float32"), R.Tensor((4,), dtype="float32")):
        a: R.Tensor((4,), dtype="float32") = R.add(x, x)
        b: R.Tensor((4,), dtype="float32") = R.multiply(x, x)
        return (a, b)

    @R.function
    def main(cond: R.Tensor((), dtype="bool"), x: R.Tensor((4,), dtype="float32")) -> R.Tuple(R.Tensor((4,), dtype="float32"), R.Tensor((4,), dtype="float32")):
        cls = Module
        t: R.Tuple(R.Tensor((4,), dtype="float32"), R.Tensor((4,), dtype="float32")) = cls.pair(x)
        if cond:
            y: R.Tensor((4,), dtype="float32") = t[0]
        else:
            y: R.Tensor((4,), dtype="float32") = R.subtract(t[1], x)
        out: R.Tuple(R.Tensor((4,), dtype="float32"), R.Tensor((4,), dtype="float32")) = (y, t[1])
        return out
)";

ir::IRModule Parse(const char* text) {
  script::ParseResult parsed = script::Parse(text, "<fixture>");
  if (!parsed.ok()) {
    std::string all;
    for (const auto& d : parsed.diagnostics) all += d.message + "\n";
    qWarning("fixture does not parse:\n%s", all.c_str());
    return {};
  }
  return parsed.module;
}

struct Built {
  codegen::VMBuildResult result;
  std::unique_ptr<vm::VirtualMachine> machine;
};

Built BuildOrFail(const ir::IRModule& module, bool fuse) {
  Built b;
  codegen::VMBuildOptions options;
  options.fuse = fuse;
  b.result = codegen::BuildVM(module, codegen::Target::Host(), options);
  if (b.result.ok()) {
    b.machine = std::make_unique<vm::VirtualMachine>(b.result.exec, b.result.kernels);
  } else {
    std::string all;
    for (const auto& d : b.result.diagnostics) all += d.message + "\n";
    qWarning("BuildVM failed:\n%s", all.c_str());
  }
  return b;
}

relax::RelaxInterpretResult Interpret(const ir::IRModule& module, std::vector<relax::Value> args) {
  relax::RelaxInterpretOptions options;
  options.legalize = transform::LegalizeCall;
  return relax::InterpretRelax(module, "main", std::move(args), options);
}

// Runs main through the VM and the interpreter on the same seeded inputs; empty when equal.
std::string CompareWithInterpreter(const ir::IRModule& module, vm::VirtualMachine& machine, uint64_t seed,
                                   int64_t symbolic_extent = 3) {
  auto main = ir::Downcast<relax::FunctionNode>(module->Lookup("main"));
  std::string why;
  auto args = relax::RandomArguments(main, seed, symbolic_extent, &why);
  if (!args) return "no random arguments: " + why;
  std::vector<vm::Value> vm_args;
  for (const auto& a : *args) vm_args.push_back(workbench::ToVM(a));
  relax::RelaxInterpretResult expected = Interpret(module, *args);
  if (!expected.ok()) return "the interpreter failed: " + expected.diagnostics.begin()->message;
  vm::Value actual;
  try {
    actual = machine["main"](vm_args);
  } catch (const vm::VMError& e) {
    return std::string("the VM failed: ") + e.what();
  }
  relax::ValueComparison cmp = relax::CompareValues(workbench::FromVM(actual, expected.value), expected.value);
  return cmp.ok ? "" : cmp.message;
}

// The message of the VMError that calling main on `args` throws; empty when it does not throw.
std::string ErrorOf(vm::VirtualMachine& machine, std::vector<vm::Value> args) {
  try {
    machine["main"](std::move(args));
  } catch (const vm::VMError& e) {
    return e.what();
  }
  return "";
}

runtime::NDArray Random(std::vector<int64_t> shape, uint64_t seed,
                        runtime::DLDataType dtype = runtime::Float(32)) {
  runtime::NDArray a = runtime::NDArray::Empty(std::move(shape), dtype);
  runtime::FillRandom(a, seed);
  return a;
}

}  // namespace

class TestVM : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  void mlp_data() {
    QTest::addColumn<bool>("fuse");
    QTest::newRow("unfused") << false;
    QTest::newRow("fused") << true;
  }
  void mlp() {
    QFETCH(bool, fuse);
    ir::IRModule model = Parse(kMlp);
    QVERIFY(model.defined());
    Built b = BuildOrFail(model, fuse);
    QVERIFY(b.machine);
    for (uint64_t seed : {1u, 2u, 3u}) {
      std::string why = CompareWithInterpreter(model, *b.machine, seed);
      QVERIFY2(why.empty(), (why + "\n" + b.result.exec->AsText()).c_str());
    }
  }

  void convNet_data() { mlp_data(); }
  void convNet() {
    QFETCH(bool, fuse);
    ir::IRModule model = Parse(kConvNet);
    QVERIFY(model.defined());
    Built b = BuildOrFail(model, fuse);
    QVERIFY(b.machine);
    for (uint64_t seed : {7u, 8u}) {
      std::string why = CompareWithInterpreter(model, *b.machine, seed);
      QVERIFY2(why.empty(), (why + "\n" + b.result.exec->AsText()).c_str());
    }
  }

  // One executable serves every batch size: n is read from x's shape at run time.
  void symbolicBatch() {
    ir::IRModule model = Parse(kSymbolicMlp);
    QVERIFY(model.defined());
    Built b = BuildOrFail(model, /*fuse=*/true);
    QVERIFY(b.machine);
    for (int64_t n : {1, 3, 7}) {
      std::string why = CompareWithInterpreter(model, *b.machine, 10 + n, n);
      QVERIFY2(why.empty(), (why + "\n" + b.result.exec->AsText()).c_str());
    }
    vm::Value out = (*b.machine)["main"](Random({5, 16}, 1), Random({16, 8}, 2), Random({8}, 3),
                                         Random({8, 4}, 4), Random({4}, 5));
    QCOMPARE(out.kind, vm::Value::Kind::kTensor);
    QVERIFY(out.tensor.shape() == std::vector<int64_t>({5, 4}));
  }

  void argumentErrors() {
    ir::IRModule model = Parse(kSymbolicMlp);
    QVERIFY(model.defined());
    Built b = BuildOrFail(model, false);
    QVERIFY(b.machine);
    vm::VirtualMachine& m = *b.machine;
    auto w0 = Random({16, 8}, 2), b0 = Random({8}, 3), w1 = Random({8, 4}, 4), b1 = Random({4}, 5);

    std::string count = ErrorOf(m, {Random({2, 16}, 1), w0, b0, w1});
    QVERIFY2(count.find("expected 5 arguments, got 4") != std::string::npos, count.c_str());

    std::string dim = ErrorOf(m, {Random({2, 15}, 1), w0, b0, w1, b1});
    QVERIFY2(dim.find("parameter 'x'") != std::string::npos, dim.c_str());
    QVERIFY2(dim.find("dim 1 is 15, expected 16") != std::string::npos, dim.c_str());

    std::string rank = ErrorOf(m, {Random({2, 16}, 1), w0, Random({1, 8}, 3), w1, b1});
    QVERIFY2(rank.find("parameter 'b0'") != std::string::npos, rank.c_str());
    QVERIFY2(rank.find("rank 1") != std::string::npos, rank.c_str());

    std::string dtype = ErrorOf(m, {Random({2, 16}, 1), Random({16, 8}, 2, runtime::Int(32)), b0, w1, b1});
    QVERIFY2(dtype.find("parameter 'w0'") != std::string::npos, dtype.c_str());
    QVERIFY2(dtype.find("expected dtype float32") != std::string::npos, dtype.c_str());

    std::string kind = ErrorOf(m, {vm::Value::Shape({2, 16}), w0, b0, w1, b1});
    QVERIFY2(kind.find("parameter 'x'") != std::string::npos && kind.find("expected a tensor") != std::string::npos,
             kind.c_str());

    QVERIFY(ErrorOf(m, {Random({2, 16}, 1), w0, b0, w1, b1}).empty());
    QVERIFY_THROWS_EXCEPTION(vm::VMError, m["nope"](w0));
  }

  // Two parameters sharing a symbolic dim must agree on it.
  void symbolicMismatch() {
    const char* text = R"(
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor(("n", 4), dtype="float32"), y: R.Tensor(("n", 4), dtype="float32")) -> R.Tensor(("n", 4), dtype="float32"):
        n = T.int64()
        gv = R.add(x, y)
        return gv
)";
    ir::IRModule model = Parse(text);
    QVERIFY(model.defined());
    Built b = BuildOrFail(model, false);
    QVERIFY(b.machine);
    std::string why = ErrorOf(*b.machine, {Random({3, 4}, 1), Random({2, 4}, 2)});
    QVERIFY2(why.find("parameter 'y'") != std::string::npos, why.c_str());
    QVERIFY2(why.find("same symbolic var is 3") != std::string::npos, why.c_str());
    QVERIFY(CompareWithInterpreter(model, *b.machine, 4, 6).empty());
  }

  // A compound dim (n * 4) is computed at run time: in the second reshape's allocation and in
  // the check of y against x. (Kernels whose buffers have n only inside `n * 4` take it as
  // tir_vars: tests/transform_relax/tst_legalize_tir_vars.cpp.)
  void compoundDims() {
    const char* text = R"(
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor(("n", 4), dtype="float32"), y: R.Tensor(("n * 4",), dtype="float32")) -> R.Tuple(R.Tensor(("n", 4), dtype="float32"), R.Tensor(("n * 4",), dtype="float32")):
        n = T.int64()
        with R.dataflow():
            lv = R.reshape(y, R.shape([n, 4]))
            lv1 = R.add(x, lv)
            lv2 = R.reshape(lv1, R.shape([n * 4]))
            gv = (lv1, lv2)
            R.output(gv)
        return gv
)";
    ir::IRModule model = Parse(text);
    QVERIFY(model.defined());
    Built b = BuildOrFail(model, false);
    QVERIFY(b.machine);
    for (int64_t n : {2, 5}) {
      std::string why = CompareWithInterpreter(model, *b.machine, 40 + n, n);
      QVERIFY2(why.empty(), (why + "\n" + b.result.exec->AsText()).c_str());
    }
    // The program codes appear: make_shape's kEvalProgram (2) and match_shape's
    // kAssertEqualToProgram (4), each followed by its program constant.
    std::string dump = b.result.exec->AsText();
    QVERIFY2(dump.find("i2, c[") != std::string::npos && dump.find("i4, c[") != std::string::npos, dump.c_str());
    std::string why = ErrorOf(*b.machine, {Random({2, 4}, 1), Random({9}, 2)});
    QVERIFY2(why.find("parameter 'y'") != std::string::npos, why.c_str());
    QVERIFY2(why.find("dim 0 is 9, expected 8") != std::string::npos, why.c_str());
  }

  // Explicit storages (what memory planning emits): tensors placed at byte offsets share the
  // storage's memory, so a tensor placed where a killed one lived sees its bytes.
  void storages() {
    const char* text = R"(
@I.ir_module
class Module:
    @T.prim_func(private=True)
    def add(a: T.Buffer((16,), "float32"), b: T.Buffer((16,), "float32"), c: T.Buffer((16,), "float32")):
        for i in range(16):
            c[i] = a[i] + b[i]

    @R.function(pure=False)
    def main(x: R.Tensor((16,), dtype="float32"), y: R.Tensor((16,), dtype="float32")) -> R.Tuple(R.Tensor((16,), dtype="float32"), R.Tensor((16,), dtype="float32")):
        cls = Module
        s = R.memory.alloc_storage(R.shape([128]), R.prim_value(0), R.str("global"), R.dtype("uint8"))
        t0 = R.memory.alloc_tensor(s, R.prim_value(0), R.shape([16]), R.dtype("float32"))
        _ = cls.add(x, y, t0)
        t1 = R.memory.alloc_tensor(s, R.prim_value(64), R.shape([16]), R.dtype("float32"))
        _1 = cls.add(t0, t0, t1)
        _2 = R.memory.kill_tensor(t0)
        t2 = R.memory.alloc_tensor(s, R.prim_value(0), R.shape([16]), R.dtype("float32"))
        out = (t1, t2)
        return out
)";
    ir::IRModule model = Parse(text);
    QVERIFY(model.defined());
    codegen::VMBuildOptions options;
    options.relax_pipeline = "ToNonDataflow";  // already lowered
    codegen::VMBuildResult r = codegen::BuildVM(model, codegen::Target::Host(), options);
    QVERIFY2(r.ok(), r.diagnostics.empty() ? "" : r.diagnostics[0].message.c_str());
    vm::VirtualMachine machine(r.exec, r.kernels);
    runtime::NDArray x = Random({16}, 50), y = Random({16}, 51);
    vm::Value out = machine["main"](x, y);
    QCOMPARE(out.kind, vm::Value::Kind::kTuple);
    for (int64_t i = 0; i < 16; ++i) {
      float sum = static_cast<float>(x.GetDouble(i)) + static_cast<float>(y.GetDouble(i));
      QCOMPARE(out.fields[0].tensor.GetDouble(i), static_cast<double>(sum + sum));
      QCOMPARE(out.fields[1].tensor.GetDouble(i), static_cast<double>(sum));
    }
    // The two tensors lie 64 bytes apart in one allocation.
    QCOMPARE(static_cast<const uint8_t*>(out.fields[0].tensor->data) - static_cast<const uint8_t*>(out.fields[1].tensor->data),
             ptrdiff_t{64});
    std::string dump = r.exec->AsText();
    QVERIFY2(dump.find("call vm.builtin.null_value in:  dst: %") != std::string::npos, dump.c_str());

    // A tensor that does not fit is a clear error.
    std::vector<vm::Value> size = {vm::Value::Shape({32})};
    vm::Value storage = vm::Builtins().at("vm.builtin.alloc_storage")(size);
    std::vector<vm::Value> args = {storage, vm::Value::Int(16), vm::Value::Shape({5}), vm::Value::String("float32")};
    try {
      vm::Builtins().at("vm.builtin.alloc_tensor_from_storage")(args);
      QFAIL("no error");
    } catch (const vm::VMError& e) {
      QVERIFY2(std::string(e.what()).find("20 bytes at offset 16 do not fit in a storage of 32 bytes") != std::string::npos, e.what());
    }
  }

  void shapePrograms() {
    std::vector<int64_t> heap = {7, -7};
    using namespace vm;
    // (heap[0] * 3 + 1) floordiv 2 = 11
    QCOMPARE(EvalShapeProgram({kPushHeap, 0, kPushImm, 3, kProgMul, kPushImm, 1, kProgAdd, kPushImm, 2, kProgFloorDiv}, heap),
             int64_t{11});
    // Flooring, not truncating: -7 floordiv 2 = -4, -7 floormod 2 = 1.
    QCOMPARE(EvalShapeProgram({kPushHeap, 1, kPushImm, 2, kProgFloorDiv}, heap), int64_t{-4});
    QCOMPARE(EvalShapeProgram({kPushHeap, 1, kPushImm, 2, kProgFloorMod}, heap), int64_t{1});
    QCOMPARE(EvalShapeProgram({kPushHeap, 0, kPushHeap, 1, kProgMin, kPushImm, 0, kProgMax}, heap), int64_t{0});
    QVERIFY_THROWS_EXCEPTION(VMError, EvalShapeProgram({kPushImm, 1, kPushImm, 0, kProgFloorDiv}, heap));
    QVERIFY_THROWS_EXCEPTION(VMError, EvalShapeProgram({kPushImm, 1, kProgAdd}, heap));
    QVERIFY_THROWS_EXCEPTION(VMError, EvalShapeProgram({kPushImm, 1, kPushImm, 2}, heap));
  }

  void tuplesAndIf() {
    ir::IRModule model = Parse(kTupleIf);
    QVERIFY(model.defined());
    Built b = BuildOrFail(model, false);
    QVERIFY(b.machine);
    for (int64_t c : {0, 1}) {
      runtime::NDArray cond = runtime::NDArray::Empty({}, runtime::Bool());
      cond.SetInt(0, c);
      runtime::NDArray x = Random({4}, 30 + c);
      relax::RelaxInterpretResult expected =
          Interpret(model, {relax::Value::Tensor(cond), relax::Value::Tensor(x)});
      QVERIFY(expected.ok());
      vm::Value actual = (*b.machine)["main"](cond, x);
      QCOMPARE(actual.kind, vm::Value::Kind::kTuple);
      QCOMPARE(actual.fields.size(), size_t{2});
      relax::ValueComparison cmp = relax::CompareValues(workbench::FromVM(actual, expected.value), expected.value);
      QVERIFY2(cmp.ok, cmp.message.c_str());
      // The branch taken shows in the first field: 2x or x*x - x.
      double x0 = x.GetDouble(0);
      double want = c ? 2 * x0 : x0 * x0 - x0;
      QVERIFY(std::abs(actual.fields[0].tensor.GetDouble(0) - want) < 1e-5);
    }
    std::string text = b.result.exec->AsText();
    QVERIFY2(text.find("@pair(x)") != std::string::npos, text.c_str());
    QVERIFY2(text.find("call pair in:") != std::string::npos, text.c_str());
    QVERIFY2(text.find("if %") != std::string::npos, text.c_str());
    QVERIFY2(text.find("goto ") != std::string::npos, text.c_str());
    QVERIFY2(text.find("call vm.builtin.tuple in:") != std::string::npos, text.c_str());
  }

  // The dump lists the checks, the allocations and the kernel calls in order.
  void executableText() {
    ir::IRModule model = Parse(kMlp);
    QVERIFY(model.defined());
    Built b = BuildOrFail(model, true);
    QVERIFY(b.machine);
    std::string text = b.result.exec->AsText();
    size_t check = text.find("call vm.builtin.check_tensor_info");
    size_t alloc = text.find("call vm.builtin.alloc_tensor");
    size_t kernel = text.find("call fused_matmul_add_relu in:");
    size_t ret = text.find("ret %");
    QVERIFY2(check != std::string::npos && alloc != std::string::npos && kernel != std::string::npos &&
                 ret != std::string::npos,
             text.c_str());
    QVERIFY2(check < alloc && alloc < kernel && kernel < ret, text.c_str());
    QVERIFY2(text.find("@main(x, w0, b0, w1, b1)") != std::string::npos, text.c_str());
  }

  // The build target is ApplyDefaultSchedule's target unless the user's config names one,
  // which is kept (a what-if: schedule for another CPU than the one built for).
  void passContextKeepsTheUsersDefaultScheduleTarget() {
    auto target_of = [](const ir::PassContext& context) {
      const auto* s = dynamic_cast<const ir::StringObj*>(
          context.GetConfig("ApplyDefaultSchedule", "target"));
      return s ? s->value : std::string("<unset>");
    };
    const codegen::Target host = codegen::Target::Host();
    QCOMPARE(target_of(codegen::VMPassContext(host, {})), host.str());
    ir::PassContext user;
    user.config["ApplyDefaultSchedule"] =
        ir::MakeMap({{"target", ir::MakeString("llvm -mcpu=haswell")}});
    ir::PassContext::Scope scope(user);
    ir::PassContext built = codegen::VMPassContext(host, {});
    QCOMPARE(target_of(built), std::string("llvm -mcpu=haswell"));
    QVERIFY(built.disabled_passes.empty());
    codegen::VMBuildOptions off;
    off.default_schedule = false;
    ir::PassContext unscheduled = codegen::VMPassContext(host, off);
    QCOMPARE(unscheduled.disabled_passes, std::vector<std::string>{"ApplyDefaultSchedule"});
  }

  // A profile attached to the VM counts every packed call by name (kernels and builtins told
  // apart) over the calls made while it is attached, and nothing after it is detached.
  void profileCountsEveryPackedCall() {
    ir::IRModule model = Parse(kMlp);
    QVERIFY(model.defined());
    Built b = BuildOrFail(model, /*fuse=*/false);
    QVERIFY(b.machine);
    auto main = ir::Downcast<relax::FunctionNode>(model->Lookup("main"));
    std::string why;
    auto args = relax::RandomArguments(main, 1, 3, &why);
    QVERIFY2(args, why.c_str());
    std::vector<vm::Value> vm_args;
    for (const auto& a : *args) vm_args.push_back(workbench::ToVM(a));
    // The kernels main calls, by the VM's program text: every `call <kernel>` of main's code.
    std::map<std::string, int64_t> kernel_calls;
    for (const auto& entry : b.result.exec->func_table) {
      if (b.result.kernels.get_function(entry.name).defined()) kernel_calls[entry.name] = 0;
    }
    QVERIFY(kernel_calls.size() >= 4);  // two matmuls, the bias adds, relu
    vm::CallProfile profile;
    b.machine->set_profile(&profile);
    for (int i = 0; i < 3; ++i) (*b.machine)["main"](vm_args);
    b.machine->set_profile(nullptr);
    (*b.machine)["main"](vm_args);  // not counted
    int kernels = 0, builtins = 0;
    for (const auto& e : profile.entries) {
      QVERIFY2(e.calls % 3 == 0 && e.calls > 0, e.name.c_str());
      QVERIFY(e.seconds >= 0);
      QCOMPARE(e.kernel, kernel_calls.count(e.name) == 1);
      (e.kernel ? kernels : builtins) += 1;
    }
    QCOMPARE(static_cast<size_t>(kernels), kernel_calls.size());  // each kernel once per entry
    QVERIFY(builtins > 0);  // allocation and shape checks are timed too
    std::set<std::string> names;
    for (const auto& e : profile.entries) QVERIFY2(names.insert(e.name).second, e.name.c_str());
  }

  // What the codegen cannot compile is a diagnostic, not a crash.
  void unloweredOpIsDiagnosed() {
    ir::IRModule model = Parse(kMlp);
    QVERIFY(model.defined());
    codegen::VMBuildOptions options;
    options.relax_pipeline = "ToNonDataflow";
    codegen::VMBuildResult r = codegen::BuildVM(model, codegen::Target::Host(), options);
    QVERIFY(!r.ok());
    QVERIFY(r.diagnostics.HasErrors());
    std::string msg = r.diagnostics.begin()->message;
    QVERIFY2(msg.find("op 'relax.matmul' is not lowered") != std::string::npos, msg.c_str());
  }
};

QTEST_APPLESS_MAIN(TestVM)
#include "tst_vm.moc"
