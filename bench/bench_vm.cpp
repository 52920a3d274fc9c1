// The Relax VM end to end against what a user would write by hand (PERFORMANCE.md):
//   1. an MLP (784 -> 256 relu -> 10, float32) at batch 64 and 1 through the VM (the default
//      build pipeline, and with FuseOps/FuseTIR; both with the default schedules of core/dlight),
//      against the same model written with OpenBLAS cblas_sgemm plus bias/relu loops, on 1 and 2
//      threads (ours: the runtime's pool; OpenBLAS: its own); ours and the reference alternate
//      in the same run;
//   2. compile time of that MLP from TVMScript text to a loaded, runnable VM, split by stage
//      (parse, Relax pipeline, kernel build, VM codegen, first call), and the export/load of the
//      `.so`.
// Not a test: it prints figures. Usage: bench_vm [ROUNDS]
#include <cblas.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <string>
#include <vector>

#include "codegen/build.h"
#include "codegen/vm_codegen.h"
#include "relax/expr.h"
#include "runtime/ndarray.h"
#include "runtime/thread_pool.h"
#include "runtime/time_evaluator.h"
#include "runtime/vm/library.h"
#include "runtime/vm/vm.h"
#include "script/tvmscript.h"
#include "tir/stmt.h"
#include "transform/registry.h"
#include "workbench/run_check.h"

using namespace wb;
using runtime::NDArray;
namespace vm = wb::runtime::vm;

namespace {

constexpr int kIn = 784, kHidden = 256, kOut = 10;

std::string MlpScript() {
  return R"(
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor(("n", 784), dtype="float32"), w0: R.Tensor((784, 256), dtype="float32"), b0: R.Tensor((256,), dtype="float32"), w1: R.Tensor((256, 10), dtype="float32"), b1: R.Tensor((10,), dtype="float32")) -> R.Tensor(("n", 10), dtype="float32"):
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
}

double Ms(std::chrono::steady_clock::time_point a, std::chrono::steady_clock::time_point b) {
  return std::chrono::duration<double, std::milli>(b - a).count();
}

double ThreadCpuSeconds() {
  timespec t;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_nsec) * 1e-9;
}

double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

// The stages of BuildVM, timed one by one (what BuildVM does, in its order).
struct CompileTimes {
  double parse = 0, pipeline = 0, kernels = 0, vm_codegen = 0, first_call = 0;
  double total() const { return parse + pipeline + kernels + vm_codegen + first_call; }
};

struct Compiled {
  codegen::VMBuildResult built;
  CompileTimes times;
};

Compiled Compile(const std::string& text, bool fuse, const std::vector<vm::Value>& args) {
  using clock = std::chrono::steady_clock;
  Compiled c;
  auto t0 = clock::now();
  script::ParseResult parsed = script::Parse(text, "mlp.py");
  auto t1 = clock::now();
  if (!parsed.ok()) {
    std::fprintf(stderr, "%s", RenderDiagnostics(parsed.diagnostics).c_str());
    std::exit(1);
  }
  codegen::VMBuildOptions options;
  options.fuse = fuse;
  DiagnosticList diags;
  auto pipeline = transform::BuildPipeline(codegen::VMRelaxPipeline(options), diags);
  ir::IRModule lowered = (*pipeline)(parsed.module);
  auto t2 = clock::now();
  std::vector<ir::GlobalVar> vars;
  std::vector<ir::BaseFunc> prims;
  for (size_t i = 0; i < lowered->size(); ++i) {
    if (lowered->functions[i].as<tir::PrimFuncNode>()) {
      vars.push_back(lowered->global_vars[i]);
      prims.push_back(lowered->functions[i]);
    }
  }
  codegen::BuildResult kernels = codegen::Build(ir::MakeIRModule(vars, prims), codegen::Target::Host());
  auto t3 = clock::now();
  if (!kernels.ok()) {
    std::fprintf(stderr, "%s", RenderDiagnostics(kernels.diagnostics).c_str());
    std::exit(1);
  }
  c.built.kernels = kernels.module;
  c.built.lowered = lowered;
  c.built.exec = codegen::VMCodeGen(lowered);
  auto t4 = clock::now();
  vm::VirtualMachine machine(c.built.exec, c.built.kernels);
  machine.Invoke("main", args);
  auto t5 = clock::now();
  c.times = {Ms(t0, t1), Ms(t1, t2), Ms(t2, t3), Ms(t3, t4), Ms(t4, t5)};
  return c;
}

// The reference: OpenBLAS for the two matmuls, plain loops for bias and relu.
struct BlasMlp {
  const float *x, *w0, *b0, *w1, *b1;
  float *h, *y;
  int n;
  void operator()() const {
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, n, kHidden, kIn, 1.0f, x, kIn, w0, kHidden, 0.0f, h, kHidden);
    for (int i = 0; i < n; ++i) {
      for (int j = 0; j < kHidden; ++j) h[i * kHidden + j] = std::max(h[i * kHidden + j] + b0[j], 0.0f);
    }
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, n, kOut, kHidden, 1.0f, h, kHidden, w1, kOut, 0.0f, y, kOut);
    for (int i = 0; i < n; ++i) {
      for (int j = 0; j < kOut; ++j) y[i * kOut + j] += b1[j];
    }
  }
};

const float* F(const NDArray& a) { return reinterpret_cast<const float*>(a.ElementData()); }

}  // namespace

int main(int argc, char** argv) {
  int rounds = argc > 1 ? std::atoi(argv[1]) : 7;
  openblas_set_num_threads(1);
  runtime::ThreadPool::Global().SetNumThreads(1);
  std::printf("host: %s, %d rounds\n", codegen::Target::Host().str().c_str(), rounds);

  NDArray w0 = NDArray::Empty({kIn, kHidden}, runtime::Float(32)), b0 = NDArray::Empty({kHidden}, runtime::Float(32));
  NDArray w1 = NDArray::Empty({kHidden, kOut}, runtime::Float(32)), b1 = NDArray::Empty({kOut}, runtime::Float(32));
  runtime::FillRandom(w0, 2);
  runtime::FillRandom(b0, 3);
  runtime::FillRandom(w1, 4);
  runtime::FillRandom(b1, 5);

  // --- compile time, median of several compiles
  std::string text = MlpScript();
  NDArray x1 = NDArray::Empty({1, kIn}, runtime::Float(32));
  runtime::FillRandom(x1, 1);
  std::vector<vm::Value> args1 = {x1, w0, b0, w1, b1};
  for (bool fuse : {false, true}) {
    std::vector<CompileTimes> all;
    Compiled last;
    for (int r = 0; r < std::max(3, rounds / 2); ++r) {
      last = Compile(text, fuse, args1);
      all.push_back(last.times);
    }
    auto med = [&](double CompileTimes::*field) {
      std::vector<double> v;
      for (const auto& t : all) v.push_back(t.*field);
      return Median(v);
    };
    std::vector<double> totals;
    for (const auto& t : all) totals.push_back(t.total());
    std::printf("compile MLP (%s): parse %.2f ms, Relax pipeline %.2f ms, kernels (TIR lowering + LLVM + JIT) %.2f ms, "
                "VM codegen %.3f ms, first call %.2f ms; total %.1f ms (median of %zu)\n",
                fuse ? "fused" : "default_build_pipeline", med(&CompileTimes::parse), med(&CompileTimes::pipeline),
                med(&CompileTimes::kernels), med(&CompileTimes::vm_codegen), med(&CompileTimes::first_call),
                Median(totals), all.size());
    // Export to one .so and load it back (runtime only).
    using clock = std::chrono::steady_clock;
    std::string path = (std::filesystem::temp_directory_path() / ("bench_vm_" + std::to_string(getpid()) + ".so")).string();
    std::string error;
    auto t0 = clock::now();
    bool exported = codegen::ExportVMLibrary(last.built, codegen::Target::Host(), path, &error);
    auto t1 = clock::now();
    auto lib = exported ? vm::LoadVMLibrary(path, &error) : std::nullopt;
    auto t2 = clock::now();
    if (!lib) {
      std::printf("export/load failed: %s\n", error.c_str());
    } else {
      std::printf("  export to .so %.1f ms, LoadVMLibrary %.2f ms (%ju bytes)\n", Ms(t0, t1), Ms(t1, t2),
                  static_cast<uintmax_t>(std::filesystem::file_size(path)));
    }
    std::filesystem::remove(path);
  }

  // --- run time against OpenBLAS, interleaved
  for (int threads : {1, 2}) {
  openblas_set_num_threads(threads);
  runtime::ThreadPool::Global().SetNumThreads(threads);
  for (bool fuse : {false, true}) {
    Compiled c = Compile(text, fuse, args1);
    vm::VirtualMachine machine(c.built.exec, c.built.kernels);
    for (int n : {64, 1}) {
      NDArray x = NDArray::Empty({n, kIn}, runtime::Float(32));
      runtime::FillRandom(x, 10 + n);
      std::vector<vm::Value> args = {x, w0, b0, w1, b1};
      NDArray h = NDArray::Empty({n, kHidden}, runtime::Float(32)), y = NDArray::Empty({n, kOut}, runtime::Float(32));
      BlasMlp blas{F(x), F(w0), F(b0), F(w1), F(b1), reinterpret_cast<float*>(h.ElementData()),
                   reinterpret_cast<float*>(y.ElementData()), n};
      vm::Value out = machine.Invoke("main", args);
      blas();
      runtime::CompareResult check = runtime::Compare(out.tensor, y, {1e-4, 1e-4});
      runtime::PackedFunc ours([&](const std::vector<runtime::PackedArg>&, runtime::PackedRet*) { machine.Invoke("main", args); });
      runtime::PackedFunc ref([&](const std::vector<runtime::PackedArg>&, runtime::PackedRet*) { blas(); });
      int number = n == 1 ? 200 : 10;
      std::vector<runtime::TimeEvaluatorResult> t =
          workbench::TimeInterleaved({{ours, {}}, {ref, {}}}, rounds, {.number = number, .repeat = 1});
      const runtime::TimeEvaluatorResult &sa = t[0], &sb = t[1];
      // On one thread everything runs on the calling thread: its CPU time, interleaved, is the
      // steadier ratio on a shared host (preemptions move the wall-clock one by 10-20%).
      std::string cpu;
      if (threads == 1) {
        std::vector<double> ca, cb;
        for (int r = 0; r < rounds; ++r) {
          double t0 = ThreadCpuSeconds();
          for (int k = 0; k < number; ++k) ours.Call({});
          double t1 = ThreadCpuSeconds();
          for (int k = 0; k < number; ++k) ref.Call({});
          double t2 = ThreadCpuSeconds();
          ca.push_back((t1 - t0) / number);
          cb.push_back((t2 - t1) / number);
        }
        char line[160];
        std::snprintf(line, sizeof line, " | CPU time VM %.3f ms, OpenBLAS %.3f ms, %.2fx", Median(ca) * 1e3,
                      Median(cb) * 1e3, Median(ca) / Median(cb));
        cpu = line;
      }
      double flops = 2.0 * n * (double(kIn) * kHidden + double(kHidden) * kOut);
      std::printf("%dT MLP batch %-3d (%-8s) VM %9.3f ms (%.3f-%.3f) %6.2f GFLOP/s | OpenBLAS %8.3f ms (%.3f-%.3f) %6.2f GFLOP/s | "
                  "VM/OpenBLAS time %.2fx%s | result %s\n",
                  threads, n, fuse ? "fused" : "default", sa.median_s() * 1e3, sa.min_s() * 1e3, sa.max_s() * 1e3,
                  flops / sa.median_s() * 1e-9, sb.median_s() * 1e3, sb.min_s() * 1e3, sb.max_s() * 1e3,
                  flops / sb.median_s() * 1e-9, sa.median_s() / sb.median_s(), cpu.c_str(),
                  check.ok ? "equal within 1e-4" : check.message.c_str());
    }
  }
  }
  return 0;
}
