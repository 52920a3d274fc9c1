// The host side of GPU builds, tested on the CPU: T.call_packed("name", ...) compiled by the
// LLVM codegen looks "name" up through the module context (the module, then its imports) and
// calls it with TVM's packed convention. Here the callee is a packed function of a CPU module
// the host module imports, as a GPU build's host module imports its CUDA module.

#include <QTemporaryDir>
#include <QTest>

#include "codegen/build.h"
#include "runtime/module.h"
#include "runtime/ndarray.h"
#include "script/tvmscript.h"

using namespace wb;

namespace {

const char* kHost = R"(from tvm.script import ir as I
from tvm.script import tirx as T

@I.ir_module
class Module:
    @T.prim_func
    def main(A: T.Buffer((4,), "float32"), n: T.int32):
        for i in range(2):
            T.call_packed("record", A.data, n + i, T.float32(2.5), "tag")
)";

// A CPU module with one packed function that records its calls and writes through the pointer.
struct Recorder {
  std::vector<std::vector<int32_t>> codes;
  std::vector<std::vector<WBValue>> values;
  std::string fail_with;
};

class RecorderModule : public runtime::ModuleNode {
 public:
  explicit RecorderModule(Recorder* r) : r_(r) {}
  std::string type_key() const override { return "test"; }
  std::vector<std::string> FunctionNames() const override { return {"record"}; }
  runtime::PackedFunc GetFunction(const std::string& name) override {
    if (name != "record") return {};
    Recorder* r = r_;
    return runtime::PackedFunc([r](const std::vector<runtime::PackedArg>& args, runtime::PackedRet*) {
      if (!r->fail_with.empty()) throw runtime::Error(r->fail_with);
      std::vector<int32_t> codes;
      std::vector<WBValue> values;
      for (const auto& a : args) {
        codes.push_back(a.code());
        values.push_back(a.value());
      }
      r->codes.push_back(codes);
      r->values.push_back(values);
      // The kernel's effect: A[k] = n * 2.5 (k = the call's index).
      auto* data = static_cast<float*>(args[0].value().v_handle);
      data[r->codes.size() - 1] = static_cast<float>(args[1].value().v_int64 * args[2].value().v_float64);
    });
  }

 private:
  Recorder* r_;
};

runtime::Module BuildHost() {
  script::ParseResult parsed = script::Parse(kHost, "host.py");
  if (!parsed.ok()) qFatal("parse: %s", RenderDiagnostics(parsed.diagnostics).c_str());
  codegen::BuildResult built = codegen::Build(parsed.module, codegen::Target::Host());
  if (!built.ok()) qFatal("build: %s", RenderDiagnostics(built.diagnostics).c_str());
  return built.module;
}

}  // namespace

class TstCallPacked : public QObject {
  Q_OBJECT
 private Q_SLOTS:
  void callsTheImportedFunctionWithPackedArguments() {
    runtime::Module host = BuildHost();
    Recorder rec;
    host->Import(std::make_shared<RecorderModule>(&rec));
    runtime::NDArray a = runtime::NDArray::Empty({4}, runtime::Float(32));
    host.get_function("main")(a, int64_t{3});
    QCOMPARE(rec.codes.size(), size_t{2});
    for (size_t call = 0; call < 2; ++call) {
      const auto& codes = rec.codes[call];
      const auto& values = rec.values[call];
      QCOMPARE(codes, (std::vector<int32_t>{kWBOpaqueHandle, kWBArgInt, kWBArgFloat, kWBStr}));
      // The buffer's data pointer, not the DLTensor.
      QCOMPARE(values[0].v_handle, a->data);
      QCOMPARE(values[1].v_int64, int64_t(3 + call));
      QCOMPARE(values[2].v_float64, 2.5);
      QCOMPARE(std::string(values[3].v_str), std::string("tag"));
    }
    QCOMPARE(a.GetDouble(0), 7.5);
    QCOMPARE(a.GetDouble(1), 10.0);
    QCOMPARE(a.GetDouble(2), 0.0);
  }

  void theCalleesErrorReachesTheCaller() {
    runtime::Module host = BuildHost();
    Recorder rec;
    rec.fail_with = "kernel exploded";
    host->Import(std::make_shared<RecorderModule>(&rec));
    runtime::NDArray a = runtime::NDArray::Empty({4}, runtime::Float(32));
    try {
      host.get_function("main")(a, int64_t{1});
      QFAIL("the call should fail");
    } catch (const runtime::Error& e) {
      QCOMPARE(std::string(e.what()), std::string("kernel exploded"));
    }
  }

  void aMissingFunctionIsNamed() {
    runtime::Module host = BuildHost();
    runtime::NDArray a = runtime::NDArray::Empty({4}, runtime::Float(32));
    try {
      host.get_function("main")(a, int64_t{1});
      QFAIL("the call should fail");
    } catch (const runtime::Error& e) {
      QVERIFY2(std::string(e.what()).find("no function 'record'") != std::string::npos, e.what());
    }
  }

  void theFunctionOutlivesTheModuleHandle() {
    // The packed function keeps the module (and so its imports and environment) alive.
    Recorder rec;
    runtime::PackedFunc main;
    {
      runtime::Module host = BuildHost();
      host->Import(std::make_shared<RecorderModule>(&rec));
      main = host.get_function("main");
    }
    runtime::NDArray a = runtime::NDArray::Empty({4}, runtime::Float(32));
    main(a, int64_t{2});
    QCOMPARE(rec.codes.size(), size_t{2});
    QCOMPARE(a.GetDouble(0), 5.0);
  }

  void hostFunctionsOfACudaBuildTakeCudaTensors() {
    // MakePackedAPI checks the tensors' device against the function's target, as TVM does.
    script::ParseResult parsed = script::Parse(R"(from tvm.script import ir as I
from tvm.script import tirx as T

@I.ir_module
class Module:
    @T.prim_func
    def main(A: T.Buffer((4,), "float32")):
        T.func_attr({"target": "cuda -arch=sm_90"})
        T.call_packed("record", A.data, 1, T.float32(1.0), "x")
)", "cuda_host.py");
    QVERIFY2(parsed.ok(), RenderDiagnostics(parsed.diagnostics).c_str());
    codegen::BuildResult built = codegen::Build(parsed.module, codegen::Target::Host());
    QVERIFY2(built.ok(), RenderDiagnostics(built.diagnostics).c_str());
    runtime::NDArray a = runtime::NDArray::Empty({4}, runtime::Float(32));
    try {
      built.module.get_function("main")(a);
      QFAIL("a CPU tensor must be refused");
    } catch (const runtime::Error& e) {
      QCOMPARE(std::string(e.what()), std::string("main: argument 0 (A) must be on a CUDA device"));
    }
  }

  // A loaded library has its module context (LoadModule links it): call_packed looks the callee
  // up in the library and its imports, and names what it did not find.
  void anExportedLibraryLooksCalleesUpInItsModuleContext() {
    runtime::Module host = BuildHost();
    QTemporaryDir dir;
    std::string path = dir.filePath("host.so").toStdString();
    std::string error;
    QVERIFY2(host->ExportLibrary(path, &error), error.c_str());
    runtime::Module loaded = runtime::LoadModule(path, &error);
    QVERIFY2(loaded.defined(), error.c_str());
    runtime::NDArray a = runtime::NDArray::Empty({4}, runtime::Float(32));
    try {
      loaded.get_function("main")(a, int64_t{1});
      QFAIL("the call should fail");
    } catch (const runtime::Error& e) {
      QVERIFY2(std::string(e.what()).find("no function 'record' in the module or the modules it imports") !=
                   std::string::npos,
               e.what());
    }
  }

  // The loader maps a library once, and its module context is one slot: a second load of a
  // library still loaded is the same module, so dropping one handle never leaves the other's
  // call_packed reading a freed context.
  void loadingALoadedLibraryAgainGivesTheSameModule() {
    runtime::Module host = BuildHost();
    QTemporaryDir dir;
    std::string path = dir.filePath("host.so").toStdString();
    std::string error;
    QVERIFY2(host->ExportLibrary(path, &error), error.c_str());
    runtime::Module first = runtime::LoadModule(path, &error);
    QVERIFY2(first.defined(), error.c_str());
    {
      runtime::Module second = runtime::LoadModule(path, &error);
      QVERIFY2(second.defined(), error.c_str());
      QCOMPARE(second.operator->(), first.operator->());
    }
    runtime::NDArray a = runtime::NDArray::Empty({4}, runtime::Float(32));
    try {
      first.get_function("main")(a, int64_t{1});
      QFAIL("the call should fail");
    } catch (const runtime::Error& e) {
      QVERIFY2(std::string(e.what()).find("no function 'record'") != std::string::npos, e.what());
    }
    // Once every handle is gone, a load maps it afresh.
    first = runtime::Module();
    runtime::Module again = runtime::LoadModule(path, &error);
    QVERIFY2(again.defined(), error.c_str());
  }
};

QTEST_APPLESS_MAIN(TstCallPacked)
#include "tst_call_packed.moc"
