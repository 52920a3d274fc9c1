// The GPU cases (gpu_cases.h). "device": device arrays and copies, the lazily loaded module
// launching a kernel with the launch parameters' grid and block, CUDA-event timing, the device's
// properties. "run": kernels built for `cuda` run through the host entry and the CUDA module and
// equal the TIR interpreter; a two-layer MLP runs end to end on device tensors. "vm": the
// bundled Relax MLP (resources/examples/mlp.py) through the Relax VM on cuda.
#include "gpu_cases.h"

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>

#include "codegen/build_cuda.h"
#include "codegen/vm_codegen.h"
#include "relax/interpreter.h"
#include "runtime/cuda/cuda_device_api.h"
#include "runtime/cuda/cuda_driver.h"
#include "runtime/cuda/cuda_module.h"
#include "runtime/cuda/cuda_time_evaluator.h"
#include "runtime/ndarray.h"
#include "runtime/ndarray_device.h"
#include "runtime/vm/library.h"
#include "runtime/vm/vm.h"
#include "script/tvmscript.h"
#include "tir/interpreter.h"
#include "transform/relax/legalize_ops.h"
#include "workbench/run_check.h"

namespace wb::gpucases {

void Fail(const char* file, int line, const std::string& what) {
  std::string f = file;
  if (size_t slash = f.rfind('/'); slash != std::string::npos) f = f.substr(slash + 1);
  throw CaseFailed{f + ":" + std::to_string(line) + ": " + what};
}

std::string ReadTestFile(const std::string& name) {
  const char* dir = std::getenv("WB_TEST_DATA_DIR");
  std::string path = std::string(dir ? dir : ".") + "/" + name;
  std::ifstream in(path);
  if (!in) throw CaseFailed{"cannot read test data " + path + " (set WB_TEST_DATA_DIR)"};
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

void RequireCuda() {
  std::string why;
  if (!runtime::cuda::CudaAvailable(&why)) throw CaseSkipped{"no CUDA device: " + why};
}

namespace {

using runtime::NDArray;

ir::IRModule Parse(const std::string& text, const std::string& name) {
  script::ParseResult parsed = script::Parse(text, name);
  if (!parsed.ok()) throw CaseFailed{name + ": parse failed: " + RenderDiagnostics(parsed.diagnostics)};
  return parsed.module;
}

codegen::Target Cuda() {
  std::string error;
  auto t = codegen::ParseTarget("cuda", &error);  // the present GPU's arch
  if (!t) throw CaseFailed{"target cuda: " + error};
  return *t;
}

// add_one(float* a, int n), launched with blockIdx.x and threadIdx.x (hand-written PTX).
runtime::Module AddOneModule() {
  runtime::cuda::CudaFunctionInfo info{"add_one", {"handle", "int32"}, {"blockIdx.x", "threadIdx.x"}};
  return runtime::cuda::CudaModuleCreate(ReadTestFile("add_one.ptx"), "ptx", {info},
                                         {{"cuda", "// hand-written PTX\n"}});
}

NDArray HostRandom(std::vector<int64_t> shape, uint64_t seed) {
  NDArray a = NDArray::Empty(std::move(shape), runtime::Float(32));
  runtime::FillRandom(a, seed);
  return a;
}

// --- device ------------------------------------------------------------------------------------

void DeviceProperties() {
  RequireCuda();
  runtime::cuda::CudaDeviceInfo info = runtime::cuda::GetDeviceInfo(0);
  GC_CHECK(!info.name.empty());
  GC_CHECK(info.cc_major >= 5);
  GC_CHECK(info.sm_count > 0);
  GC_CHECK(info.total_memory > 0);
  GC_COMPARE(runtime::cuda::DetectArch(0), info.arch());
}

void ArraysRoundTripThroughTheDevice() {
  RequireCuda();
  NDArray host = HostRandom({3, 5}, 7);
  NDArray dev = host.CopyTo(runtime::CUDA(0));
  GC_COMPARE(int(dev.device().device_type), int(runtime::kDLCUDA));
  GC_CHECK(dev->data != host->data);
  NDArray dev2 = dev.Copy();  // device to device
  GC_COMPARE(int(dev2.device().device_type), int(runtime::kDLCUDA));
  NDArray back = dev2.CopyTo(runtime::CPU());
  runtime::CompareResult same = runtime::Compare(back, host, {});
  GC_CHECK2(same.ok, same.message);
  // Fresh device memory is zero-filled, as host memory is.
  NDArray zeros = NDArray::Empty({64}, runtime::Int(32), runtime::CUDA(0)).CopyTo(runtime::CPU());
  for (int i = 0; i < 64; ++i) GC_COMPARE(zeros.GetInt(i), int64_t{0});
  std::vector<float> bytes(15);
  std::string error;
  GC_CHECK2(dev.CopyToBytes(bytes.data(), bytes.size() * 4, &error), error);
  GC_COMPARE(double(bytes[14]), host.GetDouble(14));
  try {
    dev.GetDouble(0);
    GC_FAIL("element access on device memory must fail");
  } catch (const runtime::Error& e) {
    GC_CHECK2(std::string(e.what()).find("copy the array to the CPU first") != std::string::npos, e.what());
  }
}

void AKernelLaunchesWithItsLaunchParameters() {
  RequireCuda();
  const int n = 1000;
  NDArray host = NDArray::Empty({n}, runtime::Float(32));
  for (int i = 0; i < n; ++i) host.SetDouble(i, i);
  NDArray dev = host.CopyTo(runtime::CUDA(0));
  runtime::PackedFunc add_one = AddOneModule().get_function("add_one");
  // (params..., blockIdx.x, threadIdx.x): 4 x 256 threads cover the 1000 elements.
  add_one(dev, n, 4, 256);
  // A raw device pointer, as host code's call_packed passes it.
  add_one(runtime::PackedArg(WBValue{.v_handle = dev->data}, kWBOpaqueHandle), n, 4, 256);
  // An empty grid launches nothing.
  add_one(dev, n, 0, 256);
  NDArray back = dev.CopyTo(runtime::CPU());
  for (int i = 0; i < n; ++i) GC_COMPARE(back.GetDouble(i), double(i + 2));
}

void ALaunchErrorIsExplained() {
  RequireCuda();
  NDArray dev = NDArray::Empty({4}, runtime::Float(32), runtime::CUDA(0));
  runtime::PackedFunc add_one = AddOneModule().get_function("add_one");
  try {
    add_one(dev, 4, 1, 4096);  // more threads per block than any GPU has
  } catch (const runtime::Error& e) {
    GC_CHECK2(std::string(e.what()).find("launching CUDA kernel add_one (grid (1, 1, 1), block (4096, 1, 1)") == 0,
              e.what());
    return;
  }
  GC_FAIL("the launch must fail");
}

void EventTiming() {
  RequireCuda();
  const int n = 1 << 20;
  NDArray dev = NDArray::Empty({n}, runtime::Float(32), runtime::CUDA(0));
  runtime::PackedFunc add_one = AddOneModule().get_function("add_one");
  runtime::TimeEvaluatorOptions options;
  options.number = 5;
  options.repeat = 3;
  runtime::TimeEvaluatorResult r = runtime::cuda::TimeEvaluateCuda(add_one, {dev, n, n / 256, 256}, options);
  GC_COMPARE(r.samples_s.size(), size_t{3});
  GC_COMPARE(r.total_calls, int64_t{16});
  for (double s : r.samples_s) GC_CHECK(s > 0 && s < 1);
  NDArray back = dev.CopyTo(runtime::CPU());
  GC_COMPARE(back.GetDouble(n - 1), 16.0);
}

// --- run ---------------------------------------------------------------------------------------

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
  GC_CHECK2(result.message.empty(), result.message);
  GC_CHECK(!result.functions.empty());
  for (const auto& f : result.functions) {
    GC_CHECK2(f.ok(), f.name + ": " + f.message);
    GC_CHECK(f.checked());
    GC_COMPARE(f.samples_s.size(), size_t{2});
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

void APreSplitModuleRunsItsKernel() {
  RequireCuda();
  codegen::BuildOptions options;
  options.pipeline = codegen::kNoLowering;
  codegen::BuildResult r = codegen::Build(Parse(ReadTestFile("split_add.py"), "split_add.py"), Cuda(), options);
  GC_CHECK2(r.ok(), RenderDiagnostics(r.diagnostics));
  NDArray a = HostRandom({1000}, 1), b = HostRandom({1000}, 2);
  NDArray c = NDArray::Empty({1000}, runtime::Float(32), runtime::CUDA(0));
  r.module.get_function("add")(a.CopyTo(runtime::CUDA(0)), b.CopyTo(runtime::CUDA(0)), c);
  NDArray got = c.CopyTo(runtime::CPU());
  for (int i = 0; i < 1000; ++i) GC_COMPARE(got.GetDouble(i), double(float(a.GetDouble(i) + b.GetDouble(i))));
}

void APreSplitModuleEqualsTheInterpreter() {
  RequireCuda();
  RunAndCompare(Parse(ReadTestFile("split_add.py"), "split_add.py"));
}

void VectorAddEqualsTheInterpreter() {
  RequireCuda();
  RunAndCompare(Parse(ReadTestFile("vector_add.py"), "vector_add.py"));
}

void MlpLayersEachEqualTheInterpreter() {
  RequireCuda();
  RunAndCompare(Parse(kMlp, "mlp.py"));
}

void MlpEndToEndOnDeviceTensors() {
  RequireCuda();
  ir::IRModule module = Parse(kMlp, "mlp.py");
  codegen::BuildResult r = codegen::Build(module, Cuda());
  GC_CHECK2(r.ok(), RenderDiagnostics(r.diagnostics));
  NDArray x = HostRandom({64, 256}, 1), w1 = HostRandom({256, 512}, 2), b1 = HostRandom({512}, 3);
  NDArray w2 = HostRandom({512, 128}, 4), b2 = HostRandom({128}, 5);
  NDArray h = NDArray::Empty({64, 512}, runtime::Float(32));
  NDArray y = NDArray::Empty({64, 128}, runtime::Float(32));
  // The GPU: the hidden layer never leaves the device.
  const runtime::DLDevice gpu = runtime::CUDA(0);
  NDArray dx = x.CopyTo(gpu), dw1 = w1.CopyTo(gpu), db1 = b1.CopyTo(gpu);
  NDArray dw2 = w2.CopyTo(gpu), db2 = b2.CopyTo(gpu), dh = h.CopyTo(gpu), dy = y.CopyTo(gpu);
  r.module.get_function("dense_relu")(dx, dw1, db1, dh);
  r.module.get_function("dense")(dh, dw2, db2, dy);
  NDArray got = dy.CopyTo(runtime::CPU());
  // The interpreter on the host.
  auto run = [&](const char* name, std::vector<tir::InterpArg> args) {
    tir::InterpretResult ir = tir::InterpretModule(module, name, args);
    GC_CHECK2(ir.ok(), RenderDiagnostics(ir.diagnostics));
  };
  run("dense_relu", {x, w1, b1, h});
  run("dense", {h, w2, b2, y});
  runtime::CompareResult c = runtime::Compare(got, y, {1e-4, 1e-4});
  GC_CHECK2(c.ok, c.message);
}

// --- vm ----------------------------------------------------------------------------------------

ir::IRModule MlpExample() {
  const char* root = std::getenv("WB_SOURCE_DIR");
  std::string path = std::string(root ? root : ".") + "/resources/examples/mlp.py";
  std::ifstream in(path);
  if (!in) throw CaseFailed{"cannot read " + path + " (set WB_SOURCE_DIR to the repository)"};
  std::stringstream ss;
  ss << in.rdbuf();
  return Parse(ss.str(), "mlp.py");
}

// `--run` of the Relax model on cuda: the VM on the GPU against the Relax interpreter.
void RelaxMlpOnCudaEqualsTheInterpreter() {
  RequireCuda();
  workbench::RunCheckRequest request;
  request.module = MlpExample();
  request.target = Cuda().str();
  request.reference = workbench::ReferenceKind::kInterpreter;
  request.profile = true;
  request.timing = {.number = 3, .repeat = 2};
  workbench::RunCheckResult result = workbench::RunAndCheck(request);
  GC_CHECK2(result.message.empty(), result.message);
  GC_COMPARE(result.functions.size(), size_t{1});
  const auto& f = result.functions[0];
  GC_CHECK2(f.ok(), f.name + ": " + f.message);
  GC_CHECK(f.relax);
  GC_CHECK(f.checked());
  GC_COMPARE(f.samples_s.size(), size_t{2});
}

// The VM's tensors live on the GPU: host arguments are copied there, the result stays there.
void RelaxVmKeepsItsTensorsOnTheDevice() {
  RequireCuda();
  ir::IRModule module = MlpExample();
  codegen::VMBuildResult built = codegen::BuildVM(module, Cuda());
  GC_CHECK2(built.ok(), RenderDiagnostics(built.diagnostics));
  GC_CHECK(codegen::CountCudaKernels(built.kernels) >= 3);
  std::vector<NDArray> inputs = {HostRandom({8, 32}, 1), HostRandom({32, 64}, 2), HostRandom({64}, 3),
                                 HostRandom({64, 10}, 4), HostRandom({10}, 5)};
  runtime::vm::VirtualMachine machine(built.exec, built.kernels, runtime::CUDA(0));
  std::vector<runtime::vm::Value> args;
  // Half the arguments already on the device, half on the host.
  for (size_t i = 0; i < inputs.size(); ++i) {
    args.push_back(runtime::vm::Value::Tensor(i % 2 ? inputs[i].CopyTo(runtime::CUDA(0)) : inputs[i]));
  }
  runtime::vm::Value out = machine.Invoke("main", args);
  GC_COMPARE(int(out.kind), int(runtime::vm::Value::Kind::kTensor));
  GC_COMPARE(int(out.tensor.device().device_type), int(runtime::kDLCUDA));
  std::vector<relax::Value> relax_args;
  for (const auto& a : inputs) relax_args.push_back(relax::Value::Tensor(a));
  relax::RelaxInterpretOptions options;
  options.legalize = transform::LegalizeCall;
  relax::RelaxInterpretResult expected = relax::InterpretRelax(module, "main", relax_args, options);
  GC_CHECK2(expected.ok(), RenderDiagnostics(expected.diagnostics));
  runtime::CompareResult c = runtime::Compare(out.tensor.CopyTo(runtime::CPU()), expected.value.tensor, {1e-4, 1e-4});
  GC_CHECK2(c.ok, c.message);
  // A second call reuses nothing stale: new inputs, a new result.
  args[0] = runtime::vm::Value::Tensor(HostRandom({8, 32}, 9));
  runtime::vm::Value again = machine.Invoke("main", args);
  GC_CHECK(again.tensor->data != out.tensor->data);
}

// A built GPU model exported as one `.so` and loaded back: the CUDA module travels inside it and
// the host code finds its kernels through the module context.
void AnExportedCudaVmLibraryRuns() {
  RequireCuda();
  ir::IRModule module = MlpExample();
  codegen::VMBuildResult built = codegen::BuildVM(module, Cuda());
  GC_CHECK2(built.ok(), RenderDiagnostics(built.diagnostics));
  char dir[] = "/tmp/wb-gpu-export-XXXXXX";
  GC_CHECK(mkdtemp(dir) != nullptr);
  std::string path = std::string(dir) + "/mlp.so";
  std::string error;
  GC_CHECK2(codegen::ExportVMLibrary(built, Cuda(), path, &error), error);
  auto lib = runtime::vm::LoadVMLibrary(path, &error);
  GC_CHECK2(lib.has_value(), error);
  std::vector<NDArray> inputs = {HostRandom({8, 32}, 1), HostRandom({32, 64}, 2), HostRandom({64}, 3),
                                 HostRandom({64, 10}, 4), HostRandom({10}, 5)};
  runtime::vm::VirtualMachine machine(lib->exec, lib->kernels, runtime::CUDA(0));
  std::vector<runtime::vm::Value> args;
  for (const auto& a : inputs) args.push_back(runtime::vm::Value::Tensor(a));
  runtime::vm::Value out = machine.Invoke("main", args);
  std::vector<relax::Value> relax_args;
  for (const auto& a : inputs) relax_args.push_back(relax::Value::Tensor(a));
  relax::RelaxInterpretOptions options;
  options.legalize = transform::LegalizeCall;
  relax::RelaxInterpretResult expected = relax::InterpretRelax(module, "main", relax_args, options);
  GC_CHECK2(expected.ok(), RenderDiagnostics(expected.diagnostics));
  runtime::CompareResult c = runtime::Compare(out.tensor.CopyTo(runtime::CPU()), expected.value.tensor, {1e-4, 1e-4});
  GC_CHECK2(c.ok, c.message);
  std::remove(path.c_str());
  rmdir(dir);
}

}  // namespace

const std::vector<Case>& Cases() {
  static const std::vector<Case> cases = {
      {"device", "deviceProperties", DeviceProperties},
      {"device", "arraysRoundTripThroughTheDevice", ArraysRoundTripThroughTheDevice},
      {"device", "aKernelLaunchesWithItsLaunchParameters", AKernelLaunchesWithItsLaunchParameters},
      {"device", "aLaunchErrorIsExplained", ALaunchErrorIsExplained},
      {"device", "eventTiming", EventTiming},
      {"run", "aPreSplitModuleRunsItsKernel", APreSplitModuleRunsItsKernel},
      {"run", "aPreSplitModuleEqualsTheInterpreter", APreSplitModuleEqualsTheInterpreter},
      {"run", "vectorAddEqualsTheInterpreter", VectorAddEqualsTheInterpreter},
      {"run", "mlpLayersEachEqualTheInterpreter", MlpLayersEachEqualTheInterpreter},
      {"run", "mlpEndToEndOnDeviceTensors", MlpEndToEndOnDeviceTensors},
      {"vm", "relaxMlpOnCudaEqualsTheInterpreter", RelaxMlpOnCudaEqualsTheInterpreter},
      {"vm", "relaxVmKeepsItsTensorsOnTheDevice", RelaxVmKeepsItsTensorsOnTheDevice},
      {"vm", "anExportedCudaVmLibraryRuns", AnExportedCudaVmLibraryRuns},
  };
  return cases;
}

}  // namespace wb::gpucases
