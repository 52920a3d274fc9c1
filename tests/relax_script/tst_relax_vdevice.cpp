// Virtual devices in Relax: `R.Tensor(..., vdevice="cuda:0")` names one of the module's
// I.module_global_infos vdevices, type inference carries the vdevice through elementwise ops
// (operands on two different vdevices are an error, as in TVM), R.to_vdevice retypes a tensor
// onto another vdevice, the interpreter runs to_vdevice / hint_on_device as the identity, and
// passes that rebuild a module keep its global infos.
#include <QTest>

#include <string>
#include <vector>

#include "ir/global_info.h"
#include "ir/json.h"
#include "ir/structural_equal.h"
#include "ir/structural_hash.h"
#include "relax/block_builder.h"
#include "relax/expr.h"
#include "relax/interpreter.h"
#include "relax/op/registry.h"
#include "relax/well_formed.h"
#include "script/tvmscript.h"
#include "transform/relax/dead_code_elimination.h"
#include "transform/relax/legalize_ops.h"
#include "transform/relax/semantic_check.h"

namespace {

namespace rx = wb::relax;
namespace ir = wb::ir;

// A dense layer spread over two GPUs and the host: the bias lives on the second GPU and is
// copied over, the result is copied back to the host.
constexpr const char* kProgram = R"(from tvm.script import ir as I
from tvm.script import relax as R

@I.ir_module
class Module:
    I.module_global_infos({"vdevice": [I.vdevice("llvm"), I.vdevice("cuda", 0), I.vdevice("cuda", 1)]})

    @R.function
    def main(x: R.Tensor((4, 6), "float32", vdevice="cuda:0"), w: R.Tensor((6, 3), "float32", vdevice="cuda:0"), b: R.Tensor((3,), "float32", vdevice="cuda:1")) -> R.Tensor((4, 3), "float32", vdevice="llvm:0"):
        with R.dataflow():
            h = R.matmul(x, w)
            bias = R.to_vdevice(b, "cuda:0")
            s = R.add(h, bias)
            s_hint = R.hint_on_device(s, R.device(dev_type=2, dev_id=0))
            r = R.nn.relu(s_hint)
            gv = R.to_vdevice(r, "llvm")
            R.output(gv)
        return gv

    @R.function(private=True)
    def unused(x: R.Tensor((3,), "float32", vdevice="cuda:1")) -> R.Tensor((3,), "float32", vdevice="cuda:1"):
        y = R.exp(x)
        return y
)";

// The same computation with no devices at all.
constexpr const char* kPlain = R"(from tvm.script import relax as R

@R.function
def main(x: R.Tensor((4, 6), "float32"), w: R.Tensor((6, 3), "float32"), b: R.Tensor((3,), "float32")) -> R.Tensor((4, 3), "float32"):
    h = R.matmul(x, w)
    s = R.add(h, b)
    r = R.nn.relu(s)
    return r
)";

std::string Diagnostics(const wb::DiagnosticList& diags) {
  std::string out;
  for (const auto& d : diags) out += d.message + "\n";
  return out;
}

const ir::VDeviceNode* Listed(const ir::IRModule& module, size_t i) {
  const auto* list = module->global_infos.at(ir::kVDeviceInfoKey).as<ir::ArrayObj>();
  return list->items.at(i).as<ir::VDeviceNode>();
}

// The type of the binding of `name` in `func`'s body.
ir::Type BindingType(const rx::Function& func, const std::string& name) {
  for (const auto& block : func->body.as<rx::SeqExprNode>()->blocks) {
    for (const auto& b : block->bindings) {
      if (b->var->name_hint == name) return b->var->struct_info;
    }
  }
  return ir::Type();
}

const ir::VDeviceNode* VDeviceOf(const ir::Type& type) {
  auto* t = type.as<rx::TensorTypeNode>();
  return t ? t->vdevice.get() : nullptr;
}

rx::Var TensorVar(const char* name, const ir::VDevice& vdevice) {
  return rx::MakeVar(name, rx::WithVDevice(rx::MakeTensorType(wb::relax::DataType::Float(32), 2),
                                           vdevice));
}

}  // namespace

class TestRelaxVDevice : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  // Parameters and bindings point at the module's own VDevice objects; inference carries them.
  void typesNameTheModulesVDevices() {
    auto r = wb::script::Parse(kProgram, "vdevice.py");
    QVERIFY2(r.ok(), Diagnostics(r.diagnostics).c_str());
    auto main = r.module->Lookup("main").as_ref<rx::FunctionNode>();
    QVERIFY(main.defined());
    const ir::VDeviceNode* llvm = Listed(r.module, 0);
    const ir::VDeviceNode* cuda0 = Listed(r.module, 1);
    const ir::VDeviceNode* cuda1 = Listed(r.module, 2);
    QCOMPARE(VDeviceOf(main->params[0]->struct_info), cuda0);
    QCOMPARE(VDeviceOf(main->params[2]->struct_info), cuda1);
    QCOMPARE(VDeviceOf(BindingType(main, "h")), cuda0);     // matmul
    QCOMPARE(VDeviceOf(BindingType(main, "bias")), cuda0);  // to_vdevice
    QCOMPARE(VDeviceOf(BindingType(main, "s")), cuda0);     // add
    QCOMPARE(VDeviceOf(BindingType(main, "s_hint")), cuda0);  // a hint keeps the type
    QCOMPARE(VDeviceOf(BindingType(main, "r")), cuda0);     // relu
    QCOMPARE(VDeviceOf(BindingType(main, "gv")), llvm);     // bare "llvm" is "llvm:0"
    QCOMPARE(VDeviceOf(main->ret_struct_info), llvm);

    std::string printed = wb::script::Print(r);
    QVERIFY2(printed.find("s: R.Tensor((4, 3), dtype=\"float32\", vdevice=\"cuda:0\") = "
                          "R.add(h, bias)") != std::string::npos,
             printed.c_str());
    QVERIFY2(printed.find("gv: R.Tensor((4, 3), dtype=\"float32\", vdevice=\"llvm:0\") = "
                          "R.to_vdevice(r, dst_vdevice=\"llvm:0\")") != std::string::npos,
             printed.c_str());
    QVERIFY2(printed.find("R.hint_on_device(s, R.device(dev_type=2, dev_id=0))") !=
                 std::string::npos,
             printed.c_str());
    auto again = wb::script::Parse(printed, "printed.py");
    QVERIFY2(again.ok(), (Diagnostics(again.diagnostics) + printed).c_str());
    QVERIFY(ir::StructuralEqual(r.module, again.module));
    QCOMPARE(wb::script::Print(again), printed);
  }

  // JSON keeps the vdevices, shared between the global infos and the types.
  void jsonKeepsVDevicesShared() {
    auto r = wb::script::Parse(kProgram, "vdevice.py");
    QVERIFY2(r.ok(), Diagnostics(r.diagnostics).c_str());
    std::string error;
    ir::ObjectRef loaded = ir::LoadJSON(ir::SaveJSON(r.module), &error);
    QVERIFY2(loaded.defined(), error.c_str());
    QVERIFY(ir::StructuralEqual(loaded, r.module));
    QCOMPARE(ir::StructuralHash(loaded), ir::StructuralHash(r.module));
    auto module = loaded.as_ref<ir::IRModuleNode>();
    auto main = module->Lookup("main").as_ref<rx::FunctionNode>();
    QCOMPARE(VDeviceOf(main->params[0]->struct_info), Listed(module, 1));
    // Printing needs the shared object or equal fields to find "cuda:0": both hold here.
    QCOMPARE(wb::script::PrintModule(module), wb::script::PrintModule(r.module));
  }

  // TVM's InferBinaryArithOpOutVDevice: an unknown vdevice takes the other operand's; two known
  // ones must agree.
  void elementwiseInference() {
    ir::VDevice cuda = ir::MakeVDevice("cuda", 0);
    ir::VDevice cuda_again = ir::MakeVDevice("cuda", 0);
    ir::VDevice host = ir::MakeVDevice("llvm", 0);
    auto infer = [](const char* op, std::vector<rx::Expr> args, std::string* error) {
      rx::BlockBuilder builder;
      rx::Expr typed = builder.Normalize(rx::MakeOpCall(op, std::move(args)));
      if (builder.diagnostics().HasErrors()) *error = builder.diagnostics()[0].message;
      return rx::GetType(typed);
    };
    std::string error;
    ir::Type t = infer("relax.add", {TensorVar("x", {}), TensorVar("y", cuda)}, &error);
    QVERIFY2(error.empty(), error.c_str());
    QCOMPARE(VDeviceOf(t), cuda.get());
    t = infer("relax.multiply", {TensorVar("x", cuda), TensorVar("y", cuda_again)}, &error);
    QVERIFY2(error.empty(), error.c_str());
    QVERIFY(rx::SameVDevice(t.as<rx::TensorTypeNode>()->vdevice, cuda));
    t = infer("relax.add", {TensorVar("x", {}), TensorVar("y", {})}, &error);
    QVERIFY(error.empty() && !VDeviceOf(t));
    t = infer("relax.exp", {TensorVar("x", host)}, &error);
    QCOMPARE(VDeviceOf(t), host.get());
    t = infer("relax.nn.relu", {TensorVar("x", host)}, &error);
    QCOMPARE(VDeviceOf(t), host.get());

    infer("relax.subtract", {TensorVar("x", host), TensorVar("y", cuda)}, &error);
    QCOMPARE(error, std::string("subtract: the first operand is on vdevice I.vdevice(\"llvm\", 0, "
                                "\"global\") but the second is on I.vdevice(\"cuda\", 0, "
                                "\"global\"); copy one with R.to_vdevice"));
    error.clear();
    infer("relax.matmul", {TensorVar("x", cuda), TensorVar("y", host)}, &error);
    QVERIFY2(error.rfind("matmul: the first operand is on vdevice", 0) == 0, error.c_str());
  }

  // The interpreter has one memory: the placed program computes what the plain one does.
  void interpreterRunsDeviceOpsAsIdentity() {
    auto placed = wb::script::Parse(kProgram, "vdevice.py");
    auto plain = wb::script::Parse(kPlain, "plain.py");
    QVERIFY2(placed.ok() && plain.ok(),
             (Diagnostics(placed.diagnostics) + Diagnostics(plain.diagnostics)).c_str());
    auto checks = wb::transform::CheckRelaxEquivalence(placed.module, plain.module);
    bool saw_main = false;
    for (const auto& c : checks) {
      if (c.name != "main") continue;
      saw_main = true;
      QVERIFY2(c.outcome == wb::transform::RelaxFunctionCheck::Outcome::kEqual,
               (std::string(wb::transform::RelaxOutcomeName(c.outcome)) + ": " + c.detail).c_str());
    }
    QVERIFY(saw_main);
  }

  // Passes that rebuild the module keep its global infos, and their output still prints and
  // parses back (every vdevice a type names is still listed).
  void passesKeepGlobalInfos() {
    auto r = wb::script::Parse(kProgram, "vdevice.py");
    QVERIFY2(r.ok(), Diagnostics(r.diagnostics).c_str());
    const ir::ObjectRef& infos = r.module->global_infos.at(ir::kVDeviceInfoKey);

    ir::IRModule dce = wb::transform::DeadCodeElimination({"main"})(r.module);
    QVERIFY(!dce->Lookup("unused").defined());
    QCOMPARE(dce->size(), size_t(1));
    QVERIFY(dce->global_infos.at(ir::kVDeviceInfoKey).same_as(infos));

    wb::DiagnosticList warnings;
    ir::IRModule legalized = wb::transform::LegalizeModule(dce, &warnings);
    QVERIFY(legalized->global_infos.at(ir::kVDeviceInfoKey).same_as(infos));
    // matmul, add and relu became PrimFuncs; the two device ops are left, with a warning each
    // (TVM's LegalizeOps has no legalization for them either).
    QCOMPARE(legalized->size(), size_t(4));
    std::string left;
    for (const auto& w : warnings) left += w.message + "\n";
    QCOMPARE(left, std::string(
        "LegalizeOps: relax.to_vdevice has no TensorIR lowering; the call is left as it is\n"
        "LegalizeOps: relax.hint_on_device has no TensorIR lowering; the call is left as it is\n"
        "LegalizeOps: relax.to_vdevice has no TensorIR lowering; the call is left as it is\n"));
    std::string printed = wb::script::PrintModule(legalized);
    QVERIFY2(printed.find("I.module_global_infos(") != std::string::npos, printed.c_str());
    QVERIFY2(printed.find("R.to_vdevice(b, dst_vdevice=\"cuda:0\")") != std::string::npos,
             printed.c_str());
    auto again = wb::script::Parse(printed, "legalized.py");
    QVERIFY2(again.ok(), (Diagnostics(again.diagnostics) + printed).c_str());
    QVERIFY(ir::StructuralEqual(again.module, legalized));
  }

  // A type naming a vdevice that the module does not list is not well formed, and it cannot be
  // printed as "kind:index": the printer says so instead of writing text that would not parse.
  void unlistedVDeviceIsAPrinterError() {
    auto r = wb::script::Parse(kProgram, "vdevice.py");
    QVERIFY2(r.ok(), Diagnostics(r.diagnostics).c_str());
    QVERIFY2(!rx::VerifyWellFormed(r.module).HasErrors(),
             Diagnostics(rx::VerifyWellFormed(r.module)).c_str());
    ir::IRModule stripped = r.module;
    stripped.CopyOnWrite()->global_infos.clear();
    // The well-formedness check names each type that refers to an unlisted vdevice.
    wb::DiagnosticList wf = rx::VerifyWellFormed(stripped);
    QVERIFY(wf.HasErrors());
    QCOMPARE(wf[0].message, std::string("the type of x names vdevice I.vdevice(\"cuda\", 0, "
                                        "\"global\"), which the module's global_infos do not list"));
    std::string printed = wb::script::PrintModule(stripped);
    // `unused` prints first (main goes last); its parameter is on the second GPU.
    QVERIFY2(printed.find("# TVMScript printer failed: the vdevice I.vdevice(\"cuda\", 1, "
                          "\"global\") is not among the module's global_infos[\"vdevice\"]") !=
                 std::string::npos,
             printed.c_str());
  }
};

QTEST_APPLESS_MAIN(TestRelaxVDevice)
#include "tst_relax_vdevice.moc"
