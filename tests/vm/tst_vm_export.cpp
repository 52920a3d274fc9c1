// The VM executable's binary form and the VM exported to one `.so`: SaveToBinary/LoadFromBinary
// round trips (same text, same results), clear errors for a bad magic, another format version,
// a truncated or corrupted payload and out-of-range indices; a built VM (kernels + executable)
// exported with ExportVMLibrary, loaded in a fresh process that has the runtime alone
// (wb_vm_runner) and run, equal to the Relax interpreter.
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

#include "codegen/build.h"
#include "codegen/vm_codegen.h"
#include "relax/interpreter.h"
#include "runtime/vm/library.h"
#include "runtime/vm/vm.h"
#include "script/tvmscript.h"
#include "transform/relax/legalize_ops.h"

using namespace wb;
namespace vm = wb::runtime::vm;

namespace {

const char* kMlp = R"(
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor(("n", 16), dtype="float32"), w0: R.Tensor((16, 8), dtype="float32"), b0: R.Tensor((8,), dtype="float32"), w1: R.Tensor((8, 4), dtype="float32"), b1: R.Tensor((4,), dtype="float32")) -> R.Tuple(R.Tensor(("n", 4), dtype="float32"), R.Tensor(("n", 8), dtype="float32")):
        n = T.int64()
        with R.dataflow():
            lv = R.matmul(x, w0)
            lv1 = R.add(lv, b0)
            lv2 = R.nn.relu(lv1)
            lv3 = R.matmul(lv2, w1)
            lv4 = R.add(lv3, b1)
            gv = (lv4, lv2)
            R.output(gv)
        return gv
)";

// No kernel at all: the library holds the executable alone. A constant tensor in the pool.
const char* kNoKernels = R"(
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2,), dtype="float32")) -> R.Tuple(R.Tensor((2,), dtype="float32"), R.Tensor((), dtype="float32"), R.Shape([2, 3])):
        c: R.Tensor((), dtype="float32") = R.const(3.75, "float32")
        s = R.shape([2, 3])
        gv = (x, c, s)
        return gv
)";

ir::IRModule Parse(const char* text) {
  script::ParseResult parsed = script::Parse(text, "<fixture>");
  return parsed.ok() ? parsed.module : ir::IRModule();
}

codegen::VMBuildResult Build(const char* text) {
  ir::IRModule m = Parse(text);
  if (!m.defined()) return {};
  return codegen::BuildVM(m, codegen::Target::Host());
}

std::vector<runtime::NDArray> Flatten(const relax::Value& v) {
  if (v.kind == relax::Value::Kind::kTensor) return {v.tensor};
  if (v.kind == relax::Value::Kind::kShape) return {};  // the runner writes tensors only
  std::vector<runtime::NDArray> out;
  for (const auto& f : v.fields) {
    auto sub = Flatten(f);
    out.insert(out.end(), sub.begin(), sub.end());
  }
  return out;
}

std::string LoadError(std::string_view bytes) {
  std::string error;
  auto exec = vm::Executable::LoadFromBinary(bytes, &error);
  return exec ? "" : error;
}

}  // namespace

class TestVMExport : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  void binaryRoundTrip() {
    codegen::VMBuildResult built = Build(kMlp);
    QVERIFY(built.ok());
    std::string bytes = built.exec->SaveToBinary();
    std::string error;
    auto loaded = vm::Executable::LoadFromBinary(bytes, &error);
    QVERIFY2(loaded, error.c_str());
    QCOMPARE(loaded->AsText(), built.exec->AsText());
    QCOMPARE(loaded->SaveToBinary(), bytes);
    // Same results from both.
    std::vector<runtime::NDArray> in;
    for (auto shape : std::vector<std::vector<int64_t>>{{3, 16}, {16, 8}, {8}, {8, 4}, {4}}) {
      in.push_back(runtime::NDArray::Empty(shape, runtime::Float(32)));
      runtime::FillRandom(in.back(), in.size());
    }
    vm::VirtualMachine a(built.exec, built.kernels), b(loaded, built.kernels);
    vm::Value ra = a["main"](in[0], in[1], in[2], in[3], in[4]);
    vm::Value rb = b["main"](in[0], in[1], in[2], in[3], in[4]);
    QCOMPARE(rb.fields.size(), size_t{2});
    for (size_t i = 0; i < 2; ++i) QVERIFY(runtime::Compare(rb.fields[i].tensor, ra.fields[i].tensor).ok);

    // Constants of every kind survive: a tensor, strings, shape programs.
    codegen::VMBuildResult nk = Build(kNoKernels);
    QVERIFY(nk.ok());
    auto nk_loaded = vm::Executable::LoadFromBinary(nk.exec->SaveToBinary(), &error);
    QVERIFY2(nk_loaded, error.c_str());
    QCOMPARE(nk_loaded->AsText(), nk.exec->AsText());
  }

  void badBinariesAreClearErrors() {
    codegen::VMBuildResult built = Build(kMlp);
    QVERIFY(built.ok());
    std::string bytes = built.exec->SaveToBinary();

    QVERIFY(LoadError("").find("bad magic") != std::string::npos);
    QVERIFY(LoadError("\x7f" "ELF\x02\x01\x01\x00 more").find("bad magic") != std::string::npos);

    // Cut anywhere: in the header, at its end, in the payload, one byte short.
    for (size_t cut : {size_t{10}, size_t{20}, size_t{28}, bytes.size() / 2, bytes.size() - 1}) {
      std::string why = LoadError(std::string_view(bytes).substr(0, cut));
      QVERIFY2(why.find("truncated") != std::string::npos, (std::to_string(cut) + ": " + why).c_str());
    }
    std::string longer = bytes + "x";
    QVERIFY2(LoadError(longer).find("the header says") != std::string::npos, LoadError(longer).c_str());

    // One flipped byte in the payload.
    std::string flipped = bytes;
    flipped[bytes.size() / 2] ^= 0x5a;
    std::string why = LoadError(flipped);
    QVERIFY2(why.find("checksum does not match") != std::string::npos, why.c_str());

    // Another format version.
    std::string v2 = bytes;
    v2[8] = 2;
    why = LoadError(v2);
    QVERIFY2(why.find("format version 2, but this runtime reads version 1") != std::string::npos, why.c_str());

    // Indices are checked even when the bytes are intact: a register beyond the frame.
    vm::Executable broken = *built.exec;
    for (auto& in : broken.instructions) {
      if (in.op == vm::Instruction::Op::kRet) in.reg = 1000;
    }
    why = LoadError(broken.SaveToBinary());
    QVERIFY2(why.find("invalid executable: instruction") != std::string::npos &&
                 why.find("of 'main' returns register 1000 out of range") != std::string::npos,
             why.c_str());
    vm::Executable bad_call = *built.exec;
    bad_call.instructions[0].func_idx = 99;
    why = LoadError(bad_call.SaveToBinary());
    QVERIFY2(why.find("calls function 99, not in the table") != std::string::npos, why.c_str());
  }

  // Exported, then loaded and run by a process that links the runtime alone.
  void exportedLibraryRunsInAFreshProcess_data() {
    QTest::addColumn<QString>("model");
    QTest::newRow("mlp") << QString("mlp");
    QTest::newRow("no kernels") << QString("nokernels");
  }
  void exportedLibraryRunsInAFreshProcess() {
    QFETCH(QString, model);
    const char* text = model == "mlp" ? kMlp : kNoKernels;
    ir::IRModule source = Parse(text);
    QVERIFY(source.defined());
    codegen::VMBuildResult built = codegen::BuildVM(source, codegen::Target::Host());
    QVERIFY(built.ok());
    QTemporaryDir tmp;
    std::string lib = tmp.filePath("model.so").toStdString();
    std::string error;
    QVERIFY2(codegen::ExportVMLibrary(built, codegen::Target::Host(), lib, &error), error.c_str());

    auto main = ir::Downcast<relax::FunctionNode>(source->Lookup("main"));
    auto args = relax::RandomArguments(main, 5, /*symbolic_extent=*/3, &error);
    QVERIFY2(args, error.c_str());
    QDir(tmp.path()).mkdir("in");
    QDir(tmp.path()).mkdir("out");
    for (size_t i = 0; i < args->size(); ++i) {
      std::string path = tmp.filePath("in/arg" + QString::number(i) + ".npy").toStdString();
      QVERIFY2(runtime::SaveNpy(path, (*args)[i].tensor, &error), error.c_str());
    }
    relax::RelaxInterpretOptions options;
    options.legalize = transform::LegalizeCall;
    relax::RelaxInterpretResult expected = relax::InterpretRelax(source, "main", *args, options);
    QVERIFY(expected.ok());

    QProcess p;
    p.start(QStringLiteral(WB_VM_RUNNER),
            {QString::fromStdString(lib), "main", tmp.filePath("in"), tmp.filePath("out")});
    QVERIFY(p.waitForFinished(60000));
    QString out = QString::fromUtf8(p.readAllStandardOutput());
    QVERIFY2(p.exitCode() == 0, qPrintable(out));
    std::vector<runtime::NDArray> want = Flatten(expected.value);
    QVERIFY2(out.contains(QString("ran main: %1 outputs").arg(want.size())), qPrintable(out));
    for (size_t i = 0; i < want.size(); ++i) {
      runtime::NDArray got = runtime::LoadNpy(tmp.filePath("out/out" + QString::number(i) + ".npy").toStdString(), &error);
      QVERIFY2(got.defined(), error.c_str());
      runtime::CompareResult cmp = runtime::Compare(got, want[i]);
      QVERIFY2(cmp.ok, cmp.message.c_str());
    }
  }

  void loadErrorsAreClear() {
    QTemporaryDir tmp;
    std::string error;
    QVERIFY(!vm::LoadVMLibrary(tmp.filePath("missing.so").toStdString(), &error));
    QVERIFY2(error.find("cannot load VM library") != std::string::npos, error.c_str());

    // A kernels-only library (codegen::Build's export) has no executable.
    codegen::VMBuildResult built = Build(kMlp);
    QVERIFY(built.ok());
    std::string kernels_only = tmp.filePath("kernels.so").toStdString();
    QVERIFY2(built.kernels->ExportLibrary(kernels_only, &error), error.c_str());
    QVERIFY(!vm::LoadVMLibrary(kernels_only, &error));
    QVERIFY2(error.find("holds no VM executable") != std::string::npos, error.c_str());

    // The fresh process reports it the same way.
    QProcess p;
    p.start(QStringLiteral(WB_VM_RUNNER), {QString::fromStdString(kernels_only), "main", tmp.path(), tmp.path()});
    QVERIFY(p.waitForFinished(60000));
    QCOMPARE(p.exitCode(), 1);
    QVERIFY(QString::fromUtf8(p.readAllStandardOutput()).contains("load error: ") );
  }
};

QTEST_APPLESS_MAIN(TestVMExport)
#include "tst_vm_export.moc"
