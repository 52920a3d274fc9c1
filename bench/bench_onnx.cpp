// An ONNX model end to end, as a user gets it (issue 19's figures; PERFORMANCE.md):
//   1. import time: frontend::onnx::FromONNXFile, the median of several imports;
//   2. build time: the imported module through the VM build (BuildVM) with the default
//      schedules, unfused (the default_build_pipeline `--run` uses) and fused (LegalizeOps,
//      FuseOps, FuseTIR, as TVM's relax.build does on the CPU);
//   3. run time of `main` through the Relax VM on 1 and 2 threads (the runtime's pool), the
//      median of ROUNDS calls after a warm-up call, on seeded random inputs.
// bench/resnet18.py runs it beside PyTorch eager on the same model in the same run.
// Not a test: it prints figures, and `--json FILE` writes them.
// Usage: bench_onnx MODEL.onnx [--rounds N] [--threads 1,2] [--no-unfused] [--json FILE]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "codegen/vm_codegen.h"
#include "frontend/onnx/onnx_frontend.h"
#include "relax/expr.h"
#include "support/diagnostic.h"
#include "tir/stmt.h"
#include "runtime/thread_pool.h"
#include "runtime/vm/vm.h"
#include "workbench/run_check.h"
#include "workbench/run_inputs.h"

using namespace wb;
namespace vm = wb::runtime::vm;
using Clock = std::chrono::steady_clock;

namespace {

double Ms(Clock::time_point a, Clock::time_point b) { return std::chrono::duration<double, std::milli>(b - a).count(); }

double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

[[noreturn]] void Fail(const std::string& message) {
  std::fprintf(stderr, "bench_onnx: %s\n", message.c_str());
  std::exit(1);
}

std::vector<int> ParseThreads(const std::string& text) {
  std::vector<int> out;
  size_t start = 0;
  while (start <= text.size()) {
    size_t comma = text.find(',', start);
    std::string item = text.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    int n = std::atoi(item.c_str());
    if (n <= 0) Fail("--threads expects positive integers separated by commas, got '" + text + "'");
    out.push_back(n);
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  std::string model, json_path;
  int rounds = 10;
  std::vector<int> threads = {1, 2};
  bool unfused = true;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) Fail(arg + " expects a value");
      return argv[++i];
    };
    if (arg == "--rounds") {
      rounds = std::max(1, std::atoi(value().c_str()));
    } else if (arg == "--threads") {
      threads = ParseThreads(value());
    } else if (arg == "--no-unfused") {
      unfused = false;
    } else if (arg == "--json") {
      json_path = value();
    } else if (!arg.empty() && arg[0] == '-') {
      Fail("unknown option " + arg + " (usage: bench_onnx MODEL.onnx [--rounds N] [--threads 1,2] [--no-unfused] [--json FILE])");
    } else {
      model = arg;
    }
  }
  if (model.empty()) Fail("usage: bench_onnx MODEL.onnx [--rounds N] [--threads 1,2] [--no-unfused] [--json FILE]");
  const codegen::Target target = codegen::Target::Host();
  std::printf("host: %s; model %s; %d rounds\n", target.str().c_str(), model.c_str(), rounds);
  nlohmann::json report = {{"model", model}, {"target", target.str()}, {"rounds", rounds}};

  // --- import
  std::vector<double> imports;
  frontend::onnx::ImportResult imported;
  for (int r = 0; r < 3; ++r) {
    auto t0 = Clock::now();
    imported = frontend::onnx::FromONNXFile(model);
    imports.push_back(Ms(t0, Clock::now()));
    if (!imported.ok()) Fail("the import failed:\n" + RenderDiagnostics(imported.diagnostics));
  }
  std::printf("import: %.1f ms (median of %zu)\n", Median(imports), imports.size());
  report["import_ms"] = Median(imports);

  auto main_fn = imported.module->Lookup("main").as<relax::FunctionNode>();
  if (!main_fn) Fail("the imported module has no Relax function main");
  workbench::RelaxInputs inputs;
  std::string error;
  workbench::InputSpec spec;
  spec.seed = 1;
  if (!workbench::MakeRelaxInputs(relax::Function(main_fn), "main", spec, &inputs, &error)) Fail(error);
  std::vector<vm::Value> args;
  for (const auto& a : inputs.args) args.push_back(workbench::ToVM(a));

  for (bool fuse : {false, true}) {
    if (!fuse && !unfused) continue;
    const char* label = fuse ? "fused" : "default_build_pipeline";
    codegen::VMBuildOptions options;
    options.fuse = fuse;
    auto t0 = Clock::now();
    codegen::VMBuildResult built = codegen::BuildVM(imported.module, target, options);
    double build_ms = Ms(t0, Clock::now());
    if (!built.ok()) Fail(std::string("the ") + label + " build failed:\n" + RenderDiagnostics(built.diagnostics));
    size_t kernels = 0;
    for (const auto& f : built.lowered->functions) kernels += f.as<tir::PrimFuncNode>() != nullptr;
    std::printf("%s: build %.2f s (%zu kernels)\n", label, build_ms / 1000.0, kernels);
    nlohmann::json entry = {{"build_ms", build_ms}, {"kernels", kernels}};
    vm::VirtualMachine machine(built.exec, built.kernels);
    for (int n : threads) {
      runtime::ThreadPool::Global().SetNumThreads(n);
      machine.Invoke("main", args);  // warm-up
      std::vector<double> times;
      for (int r = 0; r < rounds; ++r) {
        auto s = Clock::now();
        machine.Invoke("main", args);
        times.push_back(Ms(s, Clock::now()));
      }
      double best = *std::min_element(times.begin(), times.end());
      std::printf("  %d thread%s: %.2f ms median, %.2f ms best of %d\n", n, n == 1 ? "" : "s", Median(times), best,
                  rounds);
      entry["run_ms"][std::to_string(n)] = {{"median", Median(times)}, {"best", best}};
    }
    // Where the time goes: the VM's per-call profile over a few calls, the most expensive first.
    vm::CallProfile profile;
    machine.set_profile(&profile);
    constexpr int kProfiled = 3;
    for (int r = 0; r < kProfiled; ++r) machine.Invoke("main", args);
    machine.set_profile(nullptr);
    std::sort(profile.entries.begin(), profile.entries.end(),
              [](const vm::CallProfile::Entry& a, const vm::CallProfile::Entry& b) { return a.seconds > b.seconds; });
    double total = 0;
    for (const auto& e : profile.entries) total += e.seconds;
    std::printf("  where the time goes on %d thread%s (%d profiled calls):\n", threads.back(),
                threads.back() == 1 ? "" : "s", kProfiled);
    for (size_t i = 0; i < profile.entries.size() && i < 8; ++i) {
      const auto& e = profile.entries[i];
      std::printf("    %-48s %4.0f calls %9.2f ms %5.1f%%\n", e.name.c_str(), static_cast<double>(e.calls) / kProfiled,
                  e.seconds * 1e3 / kProfiled, total > 0 ? 100 * e.seconds / total : 0.0);
      entry["top_calls"].push_back({{"name", e.name}, {"ms", e.seconds * 1e3 / kProfiled}});
    }
    report[label] = entry;
  }
  if (!json_path.empty()) {
    std::ofstream out(json_path);
    out << report.dump(2) << "\n";
    if (!out) Fail("cannot write " + json_path);
  }
  return 0;
}
