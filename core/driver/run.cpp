// `workbench --batch FILE [--schedule R] [--pipeline P] --run [--profile] [--save-outputs DIR]`:
// build the module for the target, run every entry point (its PrimFuncs, or its Relax functions
// through the VM), check each against the reference and time it, through the one mechanism
// (workbench/run_check.h); optionally write the results as .npy files. Profiled on the CPU, a
// roofline table follows: per function its bytes, arithmetic intensity and fraction of the roof.
#include <algorithm>
#include <cctype>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <optional>
#include <ostream>

#include "codegen/build_cuda.h"
#include "codegen/target.h"
#include "driver/commands.h"
#include "driver/module_input.h"
#include "relax/expr.h"
#include "runtime/ndarray.h"
#include "runtime/cuda/cuda_driver.h"
#include "workbench/pass_attribution.h"
#include "workbench/run_check.h"

namespace wb::driver {

namespace {

using workbench::FunctionResult;
using workbench::RunStatus;

// `--target cuda --run` where there is no GPU: built, nothing ran.
constexpr int kExitNoGpu = 3;

std::string ReferenceText(const std::string& reference) {
  return reference == "compiled" ? "the compiled reference" : "the " + reference;
}

// One line per function: what happened, which reference checked it, and the times.
void PrintResult(const FunctionResult& r, std::ostream& out, std::ostream& err) {
  out << (r.ok() ? "ok      " : "FAILED  ") << r.name << (r.relax ? " (Relax VM)" : "");
  if (!r.symbolic.empty()) {
    out << "  [";
    bool first = true;
    for (const auto& [var, size] : r.symbolic) {
      out << (first ? "" : ", ") << var << " = " << size;
      first = false;
    }
    out << "]";
  }
  if (r.ok()) {
    out << (r.checked() ? "  matches " + ReferenceText(r.reference) : std::string("  ran"));
    if (!r.message.empty()) out << " (" << r.message << ")";
  } else {
    out << ": " << workbench::RunStatusName(r.status) << ": " << r.message;
    if (r.status == RunStatus::kMismatch) out << " (checked against " << ReferenceText(r.reference) << ")";
  }
  if (r.status == RunStatus::kCrashed) {
    err << "error: " << (r.relax ? "Relax function '" : "kernel '") << r.name << "' crashed: " << r.message << "\n";
  }
  if (!r.samples_s.empty()) {
    char line[200];
    std::snprintf(line, sizeof(line), "  median %.4f ms (mean %.4f, min %.4f, max %.4f, std %.4f; %zu x %d calls)",
                  r.median_s() * 1e3, r.mean_s() * 1e3, r.min_s() * 1e3, r.max_s() * 1e3, r.std_s() * 1e3,
                  r.samples_s.size(), r.number);
    out << line;
    if (auto g = r.gflops_per_s()) {
      std::snprintf(line, sizeof(line), "  %.2f GFLOP/s", *g);
      out << line;
    }
  }
  out << "\n";
}

// The attribution table: per pass, the latency with every pass and without it, and the change.
void PrintAttribution(const workbench::PassAttribution& a, std::ostream& out) {
  if (!a.ok()) return;
  out << "pass attribution (sum of the functions' medians, rebuilt without each pass):\n";
  char line[256];
  std::snprintf(line, sizeof(line), "  %-40s %12s %12s %9s\n", "pass", "with (ms)", "without (ms)", "change");
  out << line;
  for (const auto& impact : a.impacts) {
    if (impact.outcome == workbench::PassImpact::Outcome::kTimed) {
      std::snprintf(line, sizeof(line), "  %-40s %12.4f %12.4f %+8.1f%%\n", impact.pass.c_str(),
                    impact.with_s * 1e3, impact.without_s * 1e3, impact.change_percent());
      out << line;
      continue;
    }
    const char* what = impact.outcome == workbench::PassImpact::Outcome::kBuildFails      ? "the build fails without it"
                       : impact.outcome == workbench::PassImpact::Outcome::kWrongResults ? "wrong results without it"
                       : impact.outcome == workbench::PassImpact::Outcome::kRunFails     ? "the run fails without it"
                                                                                         : "cannot be disabled";
    out << "  " << impact.pass << std::string(impact.pass.size() < 40 ? 41 - impact.pass.size() : 1, ' ') << what
        << ": " << impact.message << "\n";
  }
}

// Per profiled function: where it sits under this machine's roofs.
void PrintRoofline(const workbench::RunCheckResult& result, std::ostream& out) {
  if (!result.peaks) return;
  PrintHostPeaks(*result.peaks, out);
  char line[256];
  std::snprintf(line, sizeof(line), "  %-24s %10s %14s %10s %12s %12s %8s\n", "function", "GFLOP/s", "bytes",
                "FLOP/byte", "roof GFLOP/s", "roof GB/s", "of roof");
  out << line;
  for (const auto& r : result.functions) {
    if (r.samples_s.empty()) continue;
    auto number = [](std::optional<double> v, const char* format) {
      char text[40];
      if (!v) return std::string("-");
      std::snprintf(text, sizeof(text), format, *v);
      return std::string(text);
    };
    auto fraction = r.roofline_fraction();
    std::snprintf(line, sizeof(line), "  %-24s %10s %14s %10s %12s %12s %8s\n", r.name.c_str(),
                  number(r.gflops_per_s(), "%.2f").c_str(), number(r.bytes, "%.0f").c_str(),
                  number(r.arithmetic_intensity(), "%.3g").c_str(), number(r.peak_gflops, "%.1f").c_str(),
                  (number(r.peak_gbytes_per_s, "%.1f") + (r.peak_gbytes_per_s ? r.in_cache ? " L2" : " mem" : "")).c_str(),
                  fraction ? number(*fraction * 100, "%.1f%%").c_str() : "-");
    out << line;
  }
}

// Per profiled Relax function: its kernels and builtins by time (the VM's per-call profile), the
// most expensive first, so a model's slow kernel is named.
void PrintCallTimes(const workbench::RunCheckResult& result, std::ostream& out) {
  constexpr size_t kShown = 15;
  for (const auto& r : result.functions) {
    if (r.call_times.empty()) continue;
    double total = 0;
    for (const auto& c : r.call_times) total += c.seconds;
    out << "calls of " << r.name << " by time (per call of " << r.name << "):\n";
    char line[320];
    std::snprintf(line, sizeof(line), "  %-44s %8s %7s %11s %7s %10s\n", "kernel or builtin", "kind", "calls",
                  "time (ms)", "share", "GFLOP/s");
    out << line;
    for (size_t i = 0; i < r.call_times.size() && i < kShown; ++i) {
      const auto& c = r.call_times[i];
      std::string gflops = "-";
      if (auto g = c.gflops_per_s()) {
        char text[32];
        std::snprintf(text, sizeof(text), "%.2f", *g);
        gflops = text;
      }
      std::snprintf(line, sizeof(line), "  %-44s %8s %7.0f %11.4f %6.1f%% %10s\n", c.name.c_str(),
                    c.kernel ? "kernel" : "builtin", c.calls, c.seconds * 1e3, total > 0 ? 100 * c.seconds / total : 0.0,
                    gflops.c_str());
      out << line;
    }
    if (r.call_times.size() > kShown) {
      double rest = 0;
      for (size_t i = kShown; i < r.call_times.size(); ++i) rest += r.call_times[i].seconds;
      std::snprintf(line, sizeof(line), "  (%zu more: %.4f ms, %.1f%%)\n", r.call_times.size() - kShown, rest * 1e3,
                    total > 0 ? 100 * rest / total : 0.0);
      out << line;
    }
  }
}

// A file name for an output name: characters other than letters, digits, '.', '-' and '_' (an
// exporter's "/block/Add_output_0") become '_'.
std::string FileNameOf(const std::string& name) {
  std::string out = name;
  for (char& c : out) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '.' && c != '-' && c != '_') c = '_';
  }
  return out.empty() || out == "." || out == ".." ? "_" + out : out;
}

// --save-outputs DIR: an ONNX model's main writes DIR/<graph output>.npy; any other Relax
// function DIR/<func>/out<i>.npy (its result's tensors in order); a PrimFunc
// DIR/<func>/<buffer>.npy. Returns the number written, or -1 after reporting a failure.
int SaveOutputs(const std::string& dir, const std::vector<FunctionResult>& results,
                const std::vector<std::string>& onnx_outputs, std::ostream& err) {
  namespace fs = std::filesystem;
  int written = 0;
  for (const auto& r : results) {
    bool by_graph_name = r.relax && r.name == "main" && !onnx_outputs.empty() &&
                         onnx_outputs.size() == r.outputs.size();
    fs::path folder = by_graph_name ? fs::path(dir) : fs::path(dir) / FileNameOf(r.name);
    std::error_code ec;
    fs::create_directories(folder, ec);
    if (ec) {
      err << "workbench: --save-outputs: cannot create '" << folder.string() << "': " << ec.message() << "\n";
      return -1;
    }
    for (size_t i = 0; i < r.outputs.size(); ++i) {
      std::string file = by_graph_name ? FileNameOf(onnx_outputs[i])
                         : r.relax     ? "out" + std::to_string(i)
                                       : FileNameOf(r.outputs[i].first);
      fs::path path = folder / (file + ".npy");
      std::string why;
      if (!runtime::SaveNpy(path.string(), r.outputs[i].second, &why)) {
        err << "workbench: --save-outputs: cannot write '" << path.string() << "': " << why << "\n";
        return -1;
      }
      ++written;
    }
  }
  return written;
}

}  // namespace

int RunRunCommand(const BatchOptions& opts, std::ostream& out, std::ostream& err) {
  script::ParseResult parsed;
  std::vector<std::string> onnx_outputs;
  if (!ParseFileOrReport(opts.files[0], &parsed, opts.color, err, &onnx_outputs)) return ParseFailureCode(parsed);
  std::string target_error;
  auto target = codegen::ParseTarget(opts.target.empty() ? "llvm" : opts.target, &target_error);
  if (!target) {
    err << "workbench: --target: " << target_error << "\n";
    return 2;
  }
  workbench::RunCheckRequest request;
  request.reference_module = parsed.module;
  request.module = parsed.module;
  if (!opts.schedule.empty()) {
    if (int rc = ApplyScheduleOption(opts, &request.module, err)) return rc;
  }
  const ir::IRModule scheduled = request.module;
  if (!opts.pipeline.empty()) {
    transform::PipelineResult result;
    if (int rc = ApplyPipelineOption(opts, &request.module, &result, err)) return rc;
  }
  if (!opts.work_dir.empty()) {
    if (int rc = ApplyWorkDirOption(opts, *target, &request.module, out, err)) return rc;
  }
  const bool relax = workbench::HasRelaxFunctions(request.module);
  // --func picks the Relax function to run; with --schedule it names the scheduled PrimFunc.
  if (relax && opts.schedule.empty() && !opts.func.empty()) {
    std::string all;
    bool found = false;
    for (size_t i = 0; i < request.module->size(); ++i) {
      if (!request.module->functions[i].as<relax::FunctionNode>()) continue;
      const std::string& name = request.module->global_vars[i]->name_hint;
      all += (all.empty() ? "" : ", ") + name;
      found |= name == opts.func;
    }
    if (!found) {
      err << "workbench: --func: no Relax function '" << opts.func << "' (the module has: " << all << ")\n";
      return 2;
    }
    request.functions = {opts.func};
  }
  workbench::CompiledModule compiled = workbench::Compile(request.module, *target);
  if (!compiled.ok()) {
    err << RenderDiagnostics(compiled.diagnostics, opts.color);
    if (relax) err << "workbench: build of the Relax module for " << target->str() << " failed\n";
    else err << "workbench: build for " << target->str() << " failed\n";
    return 1;
  }
  if (target->is_cuda()) {
    std::string why;
    if (!runtime::cuda::CudaAvailable(&why)) {
      err << "workbench: built for " << target->str() << " (" << codegen::CountCudaKernels(compiled.kernels)
          << " kernel(s)), but there is no GPU to run on: no CUDA device: " << why << "\n";
      return kExitNoGpu;
    }
  }
  request.inputs = opts.inputs;
  request.seed = opts.seed;
  request.reference = opts.reference;
  request.profile = opts.profile;
  request.timing = opts.timing;
  request.keep_outputs = !opts.save_outputs.empty();
  request.measure_peaks = opts.measure_peaks;
  workbench::RunCheckResult result = workbench::RunCompiled(compiled, request);
  if (!result.message.empty()) {
    err << "workbench: " << result.message << "\n";
    return 2;
  }
  out << "target: " << target->str() << "\n";
  out << "reference: " << workbench::ReferenceName(opts.reference);
  if (opts.reference == workbench::ReferenceKind::kAuto) {
    out << " (the interpreter up to " << workbench::kAutoInterpreterLimit
        << " executed operations, the module as written compiled with LLVM above)";
  }
  out << "\n";
  nlohmann::json report = nlohmann::json::array();
  int failures = 0;
  for (const auto& r : result.functions) {
    failures += !r.ok();
    PrintResult(r, out, err);
    report.push_back(workbench::ToJson(r));
  }
  out << result.functions.size() - failures << " passed, " << failures << " failed\n";
  for (const auto& d : result.diagnostics) {
    if (d.severity == Severity::kWarning) err << "workbench: warning: " << d.message << "\n";
  }
  PrintRoofline(result, out);
  PrintCallTimes(result, out);
  if (!opts.save_outputs.empty()) {
    int written = SaveOutputs(opts.save_outputs, result.functions, onnx_outputs, err);
    if (written < 0) return 2;
    out << "saved " << written << " output(s) under " << opts.save_outputs << "\n";
  }
  std::optional<workbench::PassAttribution> attribution;
  if (opts.attribute_passes && !failures) {
    workbench::PassAttributionRequest attribute;
    attribute.module = scheduled;
    attribute.pipeline = opts.pipeline;
    attribute.target = *target;
    attribute.run = request;
    attribution = workbench::AttributePasses(attribute);
    PrintAttribution(*attribution, out);
    if (!attribution->ok()) {
      err << "workbench: --attribute-passes: " << attribution->message << "\n";
      return 1;
    }
  }
  if (!opts.json_path.empty()) {
    std::ofstream json(opts.json_path);
    if (!json) {
      err << "workbench: cannot write '" << opts.json_path << "'\n";
      return 2;
    }
    nlohmann::json doc = {{"target", target->str()},
                          {"reference", workbench::ReferenceName(opts.reference)},
                          {"functions", report}};
    if (attribution) doc["attribution"] = workbench::ToJson(*attribution);
    if (result.peaks) doc["peaks"] = workbench::ToJson(*result.peaks);
    json << doc.dump(2) << "\n";
  }
  return failures ? 1 : 0;
}

}  // namespace wb::driver
