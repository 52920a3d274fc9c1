// GPU builds run on a GPU (label `gpu`; each test skips with "no CUDA device: <reason>"
// elsewhere): kernels built for `cuda` run through the host entry and the CUDA module and equal
// the TIR interpreter; a two-layer MLP (matmul + bias + ReLU, then matmul + bias) runs end to
// end on device tensors, layer after layer, and equals the interpreter.

#include <QTest>

#include "codegen/build_cuda.h"
#include "cuda_test_util.h"
#include "runtime/cuda/cuda_device_api.h"
#include "runtime/ndarray_device.h"
#include "script/tvmscript.h"
#include "tir/interpreter.h"
#include "workbench/run_check.h"

using namespace wb;
using namespace wb::testing;

namespace {

ir::IRModule Parse(const std::string& text, const std::string& name) {
  script::ParseResult parsed = script::Parse(text, name);
  if (!parsed.ok()) qFatal("parse: %s", RenderDiagnostics(parsed.diagnostics).c_str());
  return parsed.module;
}

codegen::Target Cuda() {
  std::string error;
  auto t = codegen::ParseTarget("cuda", &error);  // the present GPU's arch
  if (!t) qFatal("target: %s", error.c_str());
  return *t;
}

// Builds `module` for cuda and checks every PrimFunc against the interpreter on the GPU.
void RunAndCompare(const ir::IRModule& module) {
  workbench::RunCheckRequest request;
  request.module = module;
  request.target = Cuda().str();
  // The module is bound to GPU threads: only the interpreter runs it elsewhere.
  request.reference = workbench::ReferenceKind::kInterpreter;
  request.profile = true;
  request.timing = {.number = 3, .repeat = 2};
  workbench::RunCheckResult result = workbench::RunAndCheck(request);
  QVERIFY2(result.message.empty(), result.message.c_str());
  QVERIFY(!result.functions.empty());
  for (const auto& f : result.functions) {
    QVERIFY2(f.ok(), (f.name + ": " + f.message).c_str());
    QVERIFY(f.checked());
    QCOMPARE(f.samples_s.size(), size_t{2});
  }
}

// Two layers over a batch of 64: hidden = relu(x W1 + b1) (256 -> 512), y = hidden W2 + b2
// (512 -> 128). Blocks bound to GPU threads; the k loops are serial inside each thread.
const char* kMlp = R"(from tvm.script import ir as I
from tvm.script import tirx as T

@I.ir_module
class Module:
    @T.prim_func
    def dense_relu(X: T.Buffer((64, 256), "float32"), W: T.Buffer((256, 512), "float32"), B: T.Buffer((512,), "float32"), H: T.Buffer((64, 512), "float32")):
        for bx in T.thread_binding(64, thread="blockIdx.x"):
            for tx in T.thread_binding(512, thread="threadIdx.x"):
                with T.sblock("H"):
                    i = T.axis.spatial(64, bx)
                    j = T.axis.spatial(512, tx)
                    acc = T.alloc_buffer((1,), scope="local")
                    acc[0] = B[j]
                    for k in range(256):
                        acc[0] = acc[0] + X[i, k] * W[k, j]
                    H[i, j] = T.max(acc[0], T.float32(0.0))

    @T.prim_func
    def dense(X: T.Buffer((64, 512), "float32"), W: T.Buffer((512, 128), "float32"), B: T.Buffer((128,), "float32"), Y: T.Buffer((64, 128), "float32")):
        for bx in T.thread_binding(64, thread="blockIdx.x"):
            for tx in T.thread_binding(128, thread="threadIdx.x"):
                with T.sblock("Y"):
                    i = T.axis.spatial(64, bx)
                    j = T.axis.spatial(128, tx)
                    acc = T.alloc_buffer((1,), scope="local")
                    acc[0] = B[j]
                    for k in range(512):
                        acc[0] = acc[0] + X[i, k] * W[k, j]
                    Y[i, j] = acc[0]
)";

}  // namespace

class TstCudaRun : public QObject {
  Q_OBJECT
 private Q_SLOTS:
  void aPreSplitModuleRunsItsKernel() {
    WB_REQUIRE_CUDA();
    codegen::BuildOptions options;
    options.pipeline = codegen::kNoLowering;
    codegen::BuildResult r = codegen::Build(Parse(ReadTestFile("split_add.py"), "split_add.py"), Cuda(), options);
    QVERIFY2(r.ok(), RenderDiagnostics(r.diagnostics).c_str());
    runtime::NDArray a = runtime::NDArray::Empty({1000}, runtime::Float(32));
    runtime::NDArray b = runtime::NDArray::Empty({1000}, runtime::Float(32));
    runtime::FillRandom(a, 1);
    runtime::FillRandom(b, 2);
    runtime::NDArray c = runtime::NDArray::Empty({1000}, runtime::Float(32), runtime::CUDA(0));
    r.module.get_function("add")(a.CopyTo(runtime::CUDA(0)), b.CopyTo(runtime::CUDA(0)), c);
    runtime::NDArray got = c.CopyTo(runtime::CPU());
    for (int i = 0; i < 1000; ++i) QCOMPARE(got.GetDouble(i), double(float(a.GetDouble(i) + b.GetDouble(i))));
  }

  void aPreSplitModuleEqualsTheInterpreter() {
    WB_REQUIRE_CUDA();
    RunAndCompare(Parse(ReadTestFile("split_add.py"), "split_add.py"));
  }

  void vectorAddEqualsTheInterpreter() {
    WB_REQUIRE_CUDA();
    RunAndCompare(Parse(ReadTestFile("vector_add.py"), "vector_add.py"));
  }

  void mlpLayersEachEqualTheInterpreter() {
    WB_REQUIRE_CUDA();
    RunAndCompare(Parse(kMlp, "mlp.py"));
  }

  void mlpEndToEndOnDeviceTensors() {
    WB_REQUIRE_CUDA();
    ir::IRModule module = Parse(kMlp, "mlp.py");
    codegen::BuildResult r = codegen::Build(module, Cuda());
    QVERIFY2(r.ok(), RenderDiagnostics(r.diagnostics).c_str());
    auto host = [](std::vector<int64_t> shape, uint64_t seed) {
      runtime::NDArray a = runtime::NDArray::Empty(std::move(shape), runtime::Float(32));
      runtime::FillRandom(a, seed);
      return a;
    };
    runtime::NDArray x = host({64, 256}, 1), w1 = host({256, 512}, 2), b1 = host({512}, 3);
    runtime::NDArray w2 = host({512, 128}, 4), b2 = host({128}, 5);
    runtime::NDArray h = runtime::NDArray::Empty({64, 512}, runtime::Float(32));
    runtime::NDArray y = runtime::NDArray::Empty({64, 128}, runtime::Float(32));
    // The GPU: the hidden layer never leaves the device.
    const runtime::DLDevice gpu = runtime::CUDA(0);
    runtime::NDArray dx = x.CopyTo(gpu), dw1 = w1.CopyTo(gpu), db1 = b1.CopyTo(gpu);
    runtime::NDArray dw2 = w2.CopyTo(gpu), db2 = b2.CopyTo(gpu), dh = h.CopyTo(gpu), dy = y.CopyTo(gpu);
    r.module.get_function("dense_relu")(dx, dw1, db1, dh);
    r.module.get_function("dense")(dh, dw2, db2, dy);
    runtime::NDArray got = dy.CopyTo(runtime::CPU());
    // The interpreter on the host.
    auto run = [&](const char* name, std::vector<tir::InterpArg> args) {
      tir::InterpretResult ir = tir::InterpretModule(module, name, args);
      QVERIFY2(ir.ok(), RenderDiagnostics(ir.diagnostics).c_str());
    };
    run("dense_relu", {x, w1, b1, h});
    run("dense", {h, w2, b2, y});
    runtime::CompareResult c = runtime::Compare(got, y, {1e-4, 1e-4});
    QVERIFY2(c.ok, c.message.c_str());
  }
};

QTEST_APPLESS_MAIN(TstCudaRun)
#include "tst_cuda_run.moc"
