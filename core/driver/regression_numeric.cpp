#include "driver/regression_numeric.h"

#include <filesystem>
#include <fstream>
#include <sstream>

#include "codegen/build_cuda.h"
#include "codegen/target.h"
#include "driver/regression_timing.h"
#include "relax/expr.h"
#include "runtime/cuda/cuda_driver.h"
#include "tir/stmt.h"
#include "workbench/run_check.h"

namespace wb::driver {

namespace {

namespace fs = std::filesystem;
using workbench::FunctionResult;
using workbench::RunStatus;

bool ReadBytes(const std::string& path, std::string* bytes) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return false;
  std::stringstream buf;
  buf << in.rdbuf();
  *bytes = buf.str();
  return true;
}

// DIR/<func>/<output>.npy for every output; a missing one fails the check.
bool LoadSaved(const std::string& dir, const FunctionResult& run,
               std::vector<std::pair<std::string, runtime::NDArray>>* saved, CheckResult* check) {
  for (const auto& [name, a] : run.outputs) {
    fs::path path = fs::path(dir) / run.name / (name + ".npy");
    std::string why;
    runtime::NDArray array = fs::exists(path) ? runtime::LoadNpy(path.string(), &why) : runtime::NDArray();
    if (!array.defined()) {
      check->message = fs::exists(path) ? "cannot read saved output '" + path.string() + "': " + why
                                        : "no saved output '" + path.string() + "' (run with --update-goldens)";
      return false;
    }
    saved->push_back({name, array});
  }
  return true;
}

// Writes the outputs whose bytes differ from the saved ones.
void SaveOutputs(const std::string& dir, const FunctionResult& run, BuiltChecks* out, CheckResult* check) {
  check->passed = true;
  check->message = "saved outputs up to date";
  for (const auto& [name, a] : run.outputs) {
    fs::path path = fs::path(dir) / run.name / (name + ".npy");
    std::string old, bytes = runtime::SerializeNpy(a);
    if (ReadBytes(path.string(), &old) && old == bytes) continue;
    std::error_code ec;
    fs::create_directories(path.parent_path(), ec);
    std::ofstream f(path, std::ios::binary);
    f << bytes;
    if (!f.good()) {
      check->passed = false;
      check->message = "cannot write '" + path.string() + "'";
      return;
    }
    out->updated.push_back(path.string());
  }
}

void Record(const FunctionResult& r, CheckResult* check) {
  if (!r.checked()) return;
  check->max_abs_error = r.max_abs_error;
  check->max_rel_error = r.max_rel_error;
  check->worst = r.worst;
}

}  // namespace

BuiltChecks RunBuiltChecks(const ManifestCase& c, const ir::IRModule& source, const ir::IRModule& transformed,
                           bool update) {
  BuiltChecks out;
  if (!c.numeric && !c.timing) return out;
  std::string why;
  auto target = codegen::ParseTarget(c.target, &why);
  if (!target) {
    out.checks.push_back({"build", c.target, false, "target: " + why, ""});
    return out;
  }
  const NumericCheck n = c.numeric.value_or(NumericCheck{});
  const bool saved_outputs = c.numeric && n.reference_is_directory();
  workbench::RunCheckRequest request;
  request.module = transformed;
  request.reference_module = source;
  request.inputs = n.inputs;
  request.seed = n.seed;
  request.symbolic_extent = kRandomSymbolicExtent;
  request.rtol = n.rtol;
  request.atol = n.atol;
  request.reference = !c.numeric || saved_outputs ? workbench::ReferenceKind::kNone
                                                  : *workbench::ParseReference(n.reference);
  request.keep_outputs = saved_outputs;
  request.profile = c.timing.has_value();
  if (c.timing) request.timing = {.number = c.timing->number, .repeat = c.timing->repeat};
  // The case already runs in a process of its own.
  request.isolate = false;
  // With Relax functions: those, and the PrimFuncs of the module as read on their own (kernels
  // the pipeline generated are checked through their callers).
  if (workbench::HasRelaxFunctions(transformed)) {
    for (size_t i = 0; i < transformed->size(); ++i) {
      const ir::BaseFunc& f = transformed->functions[i];
      const std::string& name = transformed->global_vars[i]->name_hint;
      bool relax = f.as<relax::FunctionNode>() != nullptr;
      bool prim = f.as<tir::PrimFuncNode>() != nullptr;
      if ((relax && !f->global_symbol().empty()) || (prim && source->Lookup(name).defined())) {
        request.functions.push_back(name);
      }
    }
  }
  workbench::CompiledModule compiled = workbench::Compile(transformed, *target);
  if (!compiled.ok()) {
    out.checks.push_back({"build", workbench::HasRelaxFunctions(transformed) ? "Relax VM" : "PrimFuncs", false,
                          "build for " + target->str() + " failed: " + RenderDiagnostics(compiled.diagnostics), ""});
    return out;
  }
  // A CUDA case builds (NVRTC compiles its kernels) everywhere; it runs only where there is a
  // GPU, and elsewhere its run checks are skipped with the reason, not failed. The device is
  // first opened here, in the case's own process, never in the runner's (a CUDA context does not
  // survive a fork).
  if (target->is_cuda()) {
    std::string why;
    if (!runtime::cuda::CudaAvailable(&why)) {
      const std::string reason = "no CUDA device: " + why + " (built " +
                                 std::to_string(codegen::CountCudaKernels(compiled.kernels)) +
                                 " kernel(s) for " + target->str() + "; the run needs a GPU)";
      for (const char* kind : {"numeric", "timing"}) {
        if (std::string(kind) == "numeric" ? !c.numeric : !c.timing) continue;
        CheckResult check{kind, c.target, false, reason, ""};
        check.skipped = true;
        out.checks.push_back(std::move(check));
      }
      return out;
    }
  }
  workbench::RunCheckResult result = workbench::RunCompiled(compiled, request);
  if (!result.message.empty()) {
    out.checks.push_back({"build", c.target, false, result.message, ""});
    return out;
  }
  for (const FunctionResult& run : result.functions) {
    // An input file that exists but cannot be read is the manifest's problem (exit 2).
    if (run.status == RunStatus::kFailed && run.message.rfind("cannot read input '", 0) == 0) {
      out.input_error = run.message;
      return out;
    }
    const bool ran = run.status == RunStatus::kOk || run.status == RunStatus::kMismatch;
    if (c.numeric) {
      CheckResult check{"numeric", run.name, false, "", ""};
      if (!ran) {
        check.message = run.message;
      } else if (!saved_outputs) {
        check.passed = run.ok();
        check.message = run.ok() ? "matches the " + run.reference + " reference" : run.message;
        Record(run, &check);
      } else if (update) {
        SaveOutputs(n.reference, run, &out, &check);
      } else {
        std::vector<std::pair<std::string, runtime::NDArray>> saved;
        if (LoadSaved(n.reference, run, &saved, &check)) {
          FunctionResult compared = run;
          compared.reference = "saved outputs";
          workbench::CompareOutputs(run.outputs, saved, n.rtol, n.atol, &compared);
          check.passed = compared.ok();
          check.message = compared.ok() ? "matches the saved outputs" : compared.message;
          Record(compared, &check);
        }
      }
      out.checks.push_back(check);
    }
    if (c.timing) {
      if (!ran || run.samples_s.empty()) {
        out.checks.push_back({"timing", run.name, false, "not timed: " + run.message, ""});
        continue;
      }
      out.checks.push_back(JudgeTiming(c, run.name, run.median_s(), update));
    }
  }
  return out;
}

}  // namespace wb::driver
