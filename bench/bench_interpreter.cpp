// The reference interpreter's speed: multiply-adds per second on an N^3 float32 matmul written as
// TVMScript writes it (one block, an init, a reduction) and on the same matmul lowered by the
// TIR pipeline (flat buffers, plain loops), and simple operations per second on an elementwise
// kernel (per element: two loads, a multiply, an add, a store: five operations). Each is printed
// with its ratio to a plain C++ loop doing the same work in the same run, and checked against it.
// The two are timed in interleaved rounds (workbench::TimeInterleaved, as the other benchmarks
// time), so that a drift of this shared machine hits both alike; medians are reported.
// Usage: bench_interpreter [N] [ELEMENTS] [ROUNDS]   (defaults 256, 1048576, 3)
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <optional>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "runtime/ndarray.h"
#include "script/tvmscript.h"
#include "tir/interpreter.h"
#include "transform/instrument.h"
#include "transform/registry.h"
#include "workbench/run_check.h"

namespace {

using namespace wb;
ir::IRModule Parse(const std::string& text) {
  script::ParseResult r = script::Parse(text, "bench.py");
  if (!r.ok()) {
    std::fprintf(stderr, "parse failed:\n%s", RenderDiagnostics(r.diagnostics).c_str());
    std::exit(2);
  }
  return r.module;
}

std::string Matmul(int n) {
  const std::string buf = "T.Buffer((" + std::to_string(n) + ", " + std::to_string(n) + "), \"float32\")";
  return "from tvm.script import ir as I\nfrom tvm.script import tirx as T\n\n"
         "@I.ir_module\nclass Module:\n"
         "    @T.prim_func(s_tir=True)\n"
         "    def main(A: " + buf + ", B: " + buf + ", C: " + buf + "):\n"
         "        for i, j, k in T.grid(" + std::to_string(n) + ", " + std::to_string(n) + ", " + std::to_string(n) + "):\n"
         "            with T.sblock(\"C\"):\n"
         "                vi, vj, vk = T.axis.remap(\"SSR\", [i, j, k])\n"
         "                T.reads(A[vi, vk], B[vk, vj])\n"
         "                T.writes(C[vi, vj])\n"
         "                with T.init():\n"
         "                    C[vi, vj] = T.float32(0.0)\n"
         "                C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj]\n";
}

std::string Elementwise(int64_t n) {
  const std::string buf = "T.Buffer((" + std::to_string(n) + ",), \"float32\")";
  return "from tvm.script import ir as I\nfrom tvm.script import tirx as T\n\n"
         "@I.ir_module\nclass Module:\n"
         "    @T.prim_func(s_tir=True)\n"
         "    def main(A: " + buf + ", B: " + buf + ", C: " + buf + "):\n"
         "        for i in range(" + std::to_string(n) + "):\n"
         "            with T.sblock(\"C\"):\n"
         "                vi = T.axis.spatial(" + std::to_string(n) + ", i)\n"
         "                C[vi] = A[vi] * B[vi] + T.float32(1.0)\n";
}

ir::IRModule Lowered(const ir::IRModule& module) {
  DiagnosticList diags;
  std::optional<ir::Pass> pass = transform::BuildPipeline("tir_lowering", diags);
  if (!pass) {
    std::fprintf(stderr, "tir_lowering:\n%s", RenderDiagnostics(diags).c_str());
    std::exit(2);
  }
  transform::PipelineResult run = transform::RunPipeline(*pass, module);
  if (!run.ok()) {
    std::fprintf(stderr, "tir_lowering failed:\n%s", RenderDiagnostics(run.diagnostics).c_str());
    std::exit(2);
  }
  return run.module;
}

runtime::NDArray Random(std::vector<int64_t> shape, uint64_t seed) {
  runtime::NDArray a = runtime::NDArray::Empty(std::move(shape), runtime::Float(32));
  runtime::FillRandom(a, seed);
  return a;
}

float* Data(const runtime::NDArray& a) { return reinterpret_cast<float*>(a.ElementData()); }

// A call of `main` of `module` on `args` through the reference interpreter.
runtime::PackedFunc Interpreter(const ir::IRModule& module, const std::vector<runtime::NDArray>& args) {
  return runtime::PackedFunc([module, args](const std::vector<runtime::PackedArg>&, runtime::PackedRet*) {
    std::vector<tir::InterpArg> interp_args(args.begin(), args.end());
    tir::InterpretResult r = tir::InterpretModule(module, "main", std::move(interp_args));
    if (!r.ok()) {
      std::fprintf(stderr, "interpreter failed:\n%s", RenderDiagnostics(r.diagnostics).c_str());
      std::exit(2);
    }
  });
}

int g_rounds = 3;

// Median seconds of the interpreter and of the plain loop, timed in interleaved rounds.
std::pair<double, double> Time(const runtime::PackedFunc& interpreter, const runtime::PackedFunc& loop) {
  std::vector<runtime::TimeEvaluatorResult> t =
      workbench::TimeInterleaved({{interpreter, {}}, {loop, {}}}, g_rounds, {.number = 1, .repeat = 1});
  return {t[0].median_s(), std::max(t[1].median_s(), 1e-9)};
}

// Largest absolute difference between `got` and `want`.
double MaxError(const float* got, const std::vector<float>& want) {
  double worst = 0;
  for (size_t i = 0; i < want.size(); ++i) worst = std::max(worst, std::fabs(double(got[i]) - want[i]));
  return worst;
}

void Report(const char* what, double ops, const char* unit, double interp_s, double loop_s,
            double error) {
  std::printf("%-34s %8.3f s  %7.2f M %s/s   plain C++ loop %8.4f s (interpreter %5.0fx slower)  max error %.2g\n",
              what, interp_s, ops / interp_s / 1e6, unit, loop_s, interp_s / loop_s, error);
}

void BenchMatmul(int n) {
  runtime::NDArray a = Random({n, n}, 1), b = Random({n, n}, 2), c = Random({n, n}, 3);
  auto want = std::make_shared<std::vector<float>>(size_t(n) * n);
  const float* pa = Data(a);
  const float* pb = Data(b);
  runtime::PackedFunc loop([=](const std::vector<runtime::PackedArg>&, runtime::PackedRet*) {
    for (int i = 0; i < n; ++i) {
      for (int j = 0; j < n; ++j) {
        float acc = 0;
        for (int k = 0; k < n; ++k) acc = acc + pa[i * n + k] * pb[k * n + j];
        (*want)[size_t(i) * n + j] = acc;
      }
    }
  });
  const double macs = double(n) * n * n;
  ir::IRModule module = Parse(Matmul(n));
  const std::string size = std::to_string(n) + "^3";
  auto [t, loop_s] = Time(Interpreter(module, {a, b, c}), loop);
  Report(("matmul " + size + " (blocks)").c_str(), macs, "multiply-adds", t, loop_s, MaxError(Data(c), *want));
  std::fill(Data(c), Data(c) + size_t(n) * n, 0.0f);
  std::tie(t, loop_s) = Time(Interpreter(Lowered(module), {a, b, c}), loop);
  Report(("matmul " + size + " (lowered)").c_str(), macs, "multiply-adds", t, loop_s, MaxError(Data(c), *want));
}

void BenchElementwise(int64_t n) {
  runtime::NDArray a = Random({n}, 4), b = Random({n}, 5), c = Random({n}, 6);
  auto want = std::make_shared<std::vector<float>>(n);
  const float* pa = Data(a);
  const float* pb = Data(b);
  runtime::PackedFunc loop([=](const std::vector<runtime::PackedArg>&, runtime::PackedRet*) {
    for (int64_t i = 0; i < n; ++i) (*want)[i] = pa[i] * pb[i] + 1.0f;
  });
  const double ops = 5.0 * double(n);
  auto [t, loop_s] = Time(Interpreter(Parse(Elementwise(n)), {a, b, c}), loop);
  Report(("elementwise " + std::to_string(n)).c_str(), ops, "operations", t, loop_s, MaxError(Data(c), *want));
}

}  // namespace

int main(int argc, char** argv) {
  const int n = argc > 1 ? std::atoi(argv[1]) : 256;
  const int64_t elements = argc > 2 ? std::atoll(argv[2]) : 1 << 20;
  g_rounds = argc > 3 ? std::atoi(argv[3]) : 3;
  if (n <= 0 || elements <= 0 || g_rounds <= 0) {
    std::fprintf(stderr, "usage: bench_interpreter [N] [ELEMENTS] [ROUNDS]\n");
    return 2;
  }
  BenchMatmul(n);
  BenchElementwise(elements);
  return 0;
}
