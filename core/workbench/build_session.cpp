#include "workbench/build_session.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <cstdio>
#include <cstdlib>
#include <nlohmann/json.hpp>
#include <numeric>

#include "codegen/build.h"
#include "codegen/cuda/codegen_cuda.h"
#include "codegen/run_check.h"
#include "codegen/target.h"
#include "ir/structural_equal.h"
#include "runtime/cuda/cuda_driver.h"
#include "support/child_process.h"
#include "tir/stmt.h"
#include "workbench/schedule_session.h"

namespace wb::workbench {

const char* OutcomeStateName(OutcomeState state) {
  switch (state) {
    case OutcomeState::kOk: return "ok";
    case OutcomeState::kFailed: return "failed";
    case OutcomeState::kCancelled: return "cancelled";
  }
  return "unknown";
}

// --- Targets -------------------------------------------------------------------------------------

bool CudaCanBuild(std::string* why) {
  // Building needs NVRTC only: a machine without a GPU still compiles kernels to PTX.
  if (codegen::NvrtcAvailable()) return true;
  *why = "this build has no CUDA support (NVRTC was not found when it was configured)";
  return false;
}

bool CudaTargetUsable(std::string* why) {
  // The driver is what a machine without a GPU lacks; the toolkit alone cannot run a kernel.
  return CudaCanBuild(why) && runtime::cuda::CudaAvailable(why);
}

namespace {

// A CUDA target (the "cuda" kind or a GPU tag): built when NVRTC is here, run when a GPU is.
void SetCudaAbilities(TargetOption* option) {
  option->can_build = CudaCanBuild(&option->reason);
  option->can_run = option->can_build && runtime::cuda::CudaAvailable(&option->reason);
}

}  // namespace

std::vector<TargetOption> BuildTargets() {
  std::vector<TargetOption> out;
  codegen::Target host = codegen::Target::Host();
  out.push_back({"llvm", "llvm", host.str(), true, true, ""});
  for (const auto& [tag, text] : codegen::TargetTags()) {
    TargetOption option{tag, tag, text, false, false, ""};
    std::string error;
    auto target = codegen::ParseTarget(tag, &error);
    if (!target) {
      option.reason = error;
      out.push_back(option);
      continue;
    }
    option.description = target->str();
    if (target->kind == "cuda") {
      SetCudaAbilities(&option);
      out.push_back(option);
      continue;
    }
    option.can_build = true;
    // Code for a CPU with features this one lacks builds (its IR and assembly are worth reading)
    // but would die of an illegal instruction here.
    std::string missing;
    for (const std::string& feature : target->features) {
      if (feature.size() > 1 && feature[0] == '+' && !host.HasFeature(feature.substr(1))) {
        missing += (missing.empty() ? "" : ", ") + feature.substr(1);
      }
    }
    option.can_run = missing.empty();
    if (!missing.empty()) option.reason = "this CPU lacks " + missing + ": build and read only";
    out.push_back(option);
  }
  TargetOption cuda{"cuda", "cuda", "NVIDIA GPU (CUDA)", false, false, ""};
  SetCudaAbilities(&cuda);
  out.push_back(cuda);
  return out;
}

// --- Build ---------------------------------------------------------------------------------------

BuildRequest RequestFromSchedule(const ScheduleSession& schedule, std::string target) {
  BuildRequest request;
  request.module = schedule.module();
  request.target = std::move(target);
  request.step = static_cast<int>(schedule.steps().size());
  request.trace = schedule.TraceText();
  return request;
}

BuildOutcome BuildModule(const BuildRequest& request, const CancellationToken& token,
                         const ProgressFn& progress) {
  BuildOutcome out;
  out.request = request;
  auto report = [&](const std::string& stage, double fraction) {
    if (progress) progress(stage, fraction);
  };
  auto cancelled = [&] {
    if (!token.cancelled()) return false;
    out.state = OutcomeState::kCancelled;
    return true;
  };
  if (!request.module.defined()) {
    out.diagnostics.Error("nothing to build: the document does not parse");
    return out;
  }
  if (cancelled()) return out;
  report("target", 0);
  std::string error;
  auto target = codegen::ParseTarget(request.target, &error);
  if (!target) {
    out.diagnostics.Error("target: " + error);
    return out;
  }
  // Asked of the parsed target, so a GPU tag (nvidia/h200) is checked like `cuda` itself.
  std::string why;
  if (target->kind == "cuda" && !CudaCanBuild(&why)) {
    out.diagnostics.Error("cannot build for cuda: " + why);
    return out;
  }
  out.target = target->str();
  if (cancelled()) return out;
  report("lowering and code generation", 0.05);
  auto start = std::chrono::steady_clock::now();
  codegen::BuildResult built;
  try {
    built = codegen::Build(request.module, *target);
  } catch (const std::exception& e) {
    // Build turns the failures it knows into diagnostics; anything else still must not escape a
    // worker thread.
    built.diagnostics.Error(std::string("build: ") + e.what());
  }
  out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (!built.ok()) {
    out.diagnostics.Append(built.diagnostics);
    if (out.diagnostics.empty()) out.diagnostics.Error("the build failed without saying why");
    return out;
  }
  // Each view costs a compilation of its own inside the module (the assembly above all).
  const std::pair<const char*, std::string*> views[] = {{"ll", &out.llvm_ir},
                                                        {"ll-opt", &out.llvm_ir_opt},
                                                        {"asm", &out.assembly}};
  double fraction = 0.7;
  if (target->kind == "cuda") {
    // The host side's LLVM views stay; the kernels' own are the CUDA C and its PTX.
    out.cuda_source = built.module->GetSource("cuda");
    out.ptx = built.module->GetSource("ptx");
  }
  for (const auto& [format, text] : views) {
    if (cancelled()) return out;
    report(std::string("source view: ") + format, fraction);
    fraction += 0.1;
    *text = built.module->GetSource(format);
  }
  out.module = built.module;
  out.state = OutcomeState::kOk;
  report("built", 1);
  return out;
}

// --- Run, check, time ----------------------------------------------------------------------------

double FunctionResult::mean_s() const {
  if (samples_s.empty()) return 0;
  return std::accumulate(samples_s.begin(), samples_s.end(), 0.0) / samples_s.size();
}

double FunctionResult::min_s() const {
  return samples_s.empty() ? 0 : *std::min_element(samples_s.begin(), samples_s.end());
}

double FunctionResult::std_s() const {
  if (samples_s.empty()) return 0;
  double mean = mean_s(), sum = 0;
  for (double s : samples_s) sum += (s - mean) * (s - mean);
  return std::sqrt(sum / samples_s.size());
}

std::optional<double> FunctionResult::gflops_per_s() const {
  if (!flops || samples_s.empty() || mean_s() <= 0) return std::nullopt;
  return *flops / mean_s() / 1e9;
}

const FunctionResult* RunOutcome::Find(const std::string& name) const {
  for (const auto& f : functions) {
    if (f.name == name) return &f;
  }
  return nullptr;
}

const FunctionResult* ProfilePoint::Find(const std::string& name) const {
  for (const auto& f : functions) {
    if (f.name == name) return &f;
  }
  return nullptr;
}

namespace {

// codegen::RunAndCheck on a one-function module: it owns making the inputs (and their copies to
// a device), so timing goes through it one repeat at a time, which lets a cancel land between
// repeats. Each repeat then has its own warm-up call, as TVM's time_evaluator has per call.
codegen::FunctionRunResult RunOne(const ir::IRModule& one, const runtime::Module& built,
                                  const codegen::RunCheckOptions& options) {
  try {
    auto results = codegen::RunAndCheck(one, built, options);
    if (results.size() == 1) return results[0];
    codegen::FunctionRunResult r;
    r.status = codegen::FunctionRunResult::Status::kError;
    r.message = "expected one result from the run, got " + std::to_string(results.size());
    return r;
  } catch (const std::exception& e) {
    codegen::FunctionRunResult r;
    r.status = codegen::FunctionRunResult::Status::kError;
    r.message = e.what();
    return r;
  }
}

// What one function's run tells its caller as it goes, wherever it runs.
struct FunctionHooks {
  std::function<void(const std::string& stage)> stage;  // before each unit of work
  std::function<bool()> cancelled;                      // asked between repeats
  std::function<void(double seconds)> sample;           // each repeat's time per call
};

// Runs, checks and (when asked) times one function of a one-function module: the body of
// RunBuilt, in this process or in a child.
FunctionResult RunFunction(const ir::IRModule& one, const std::string& name,
                           const runtime::Module& built, const RunRequest& request,
                           runtime::DLDevice device, const FunctionHooks& hooks) {
  FunctionResult fr;
  fr.name = name;
  codegen::RunCheckOptions options;
  options.inputs = request.inputs;
  options.seed = request.seed;
  options.check = request.check;
  options.device = device;
  hooks.stage((request.check ? "run and check " : "run ") + fr.name);
  codegen::FunctionRunResult r = RunOne(one, built, options);
  if (!r.name.empty()) fr.name = r.name;
  fr.status = codegen::StatusName(r.status);
  fr.message = r.message;
  fr.checked = r.checked;
  fr.max_abs_error = r.max_abs_error;
  fr.flops = r.flops;
  // A mismatching kernel still runs, and how fast it is matters while fixing it.
  if (!request.profile || r.status == codegen::FunctionRunResult::Status::kError) return fr;
  options.check = false;
  options.profile = true;
  options.timing = {.number = request.number, .repeat = 1};
  for (int k = 0; k < request.repeat; ++k) {
    if (hooks.cancelled && hooks.cancelled()) {
      fr.status = "cancelled";
      fr.message = "cancelled after " + std::to_string(k) + " of " + std::to_string(request.repeat) +
                   " repeats";
      return fr;
    }
    hooks.stage("time " + fr.name + " (" + std::to_string(k + 1) + "/" +
                std::to_string(request.repeat) + ")");
    codegen::FunctionRunResult t = RunOne(one, built, options);
    if (t.status == codegen::FunctionRunResult::Status::kError || t.samples_s.empty()) {
      fr.status = "error";
      fr.message = "timing: " + (t.message.empty() ? std::string("no measurement") : t.message);
      fr.samples_s.clear();
      return fr;
    }
    fr.samples_s.push_back(t.samples_s[0]);
    if (hooks.sample) hooks.sample(t.samples_s[0]);
  }
  return fr;
}

nlohmann::json ResultToJson(const FunctionResult& f) {
  nlohmann::json j = {{"name", f.name},         {"status", f.status},
                      {"message", f.message},   {"checked", f.checked},
                      {"max_abs_error", f.max_abs_error}, {"samples_s", f.samples_s}};
  if (f.flops) j["flops"] = *f.flops;
  return j;
}

bool ResultFromJson(const std::string& text, FunctionResult* f) {
  nlohmann::json j = nlohmann::json::parse(text, nullptr, false);
  if (!j.is_object()) return false;
  f->name = j.value("name", f->name);
  f->status = j.value("status", "error");
  f->message = j.value("message", "");
  f->checked = j.value("checked", false);
  f->max_abs_error = j.value("max_abs_error", 0.0);
  f->samples_s = j.value("samples_s", std::vector<double>{});
  if (j.contains("flops") && j["flops"].is_number()) f->flops = j["flops"].get<double>();
  return true;
}

// The last lines a crashed or failed child wrote to stderr, for its message.
std::string StderrTail(const std::string& text) {
  std::string tail = text;
  while (!tail.empty() && (tail.back() == '\n' || tail.back() == ' ')) tail.pop_back();
  if (tail.size() > 400) tail = "..." + tail.substr(tail.size() - 400);
  return tail.empty() ? "" : " (stderr: " + tail + ")";
}

// RunFunction in a child process: a kernel that crashes ends the child, not this process, and
// a cancel kills the child at once, in the middle of a call if it must. Progress and each
// repeat's time come back as they happen, so a cancel keeps the repeats already done.
FunctionResult RunFunctionInChild(const ir::IRModule& one, const std::string& name,
                                  const runtime::Module& built, const RunRequest& request,
                                  const CancellationToken& token,
                                  const std::function<void(const std::string&)>& stage) {
  FunctionResult fr;
  fr.name = name;
  std::string last_stage;
  int repeats_started = 0;
  ChildOptions options;
  options.cancelled = [&] { return token.cancelled(); };
  options.on_progress = [&](const std::string& message) {
    if (message.empty()) return;
    std::string text = message.substr(1);
    if (message[0] == 'S') {
      last_stage = text;
      repeats_started += text.rfind("time ", 0) == 0;
      stage(text);
    } else if (message[0] == 'T') {
      fr.samples_s.push_back(std::strtod(text.c_str(), nullptr));
    }
  };
  ChildResult child = RunInChild(
      [&](ChildChannel& channel) {
        FunctionHooks hooks;
        hooks.stage = [&](const std::string& s) { channel.Progress("S" + s); };
        hooks.sample = [&](double seconds) {
          char text[40];
          std::snprintf(text, sizeof(text), "T%.17g", seconds);
          channel.Progress(text);
        };
        return ResultToJson(RunFunction(one, name, built, request, {}, hooks)).dump();
      },
      options);
  // What the kernel wrote to stderr is not lost: it reaches ours in one piece, after the run.
  if (!child.stderr_text.empty()) std::fputs(child.stderr_text.c_str(), stderr);
  switch (child.end) {
    case ChildEnd::kFinished:
      if (!ResultFromJson(child.payload, &fr)) {
        fr.status = "error";
        fr.message = "the run's result could not be read back from its process";
      }
      return fr;
    case ChildEnd::kCancelled:
      fr.status = "cancelled";
      fr.message = repeats_started > 0 ? "cancelled during repeat " + std::to_string(repeats_started) +
                                             " of " + std::to_string(request.repeat)
                                       : "cancelled while it ran";
      return fr;
    case ChildEnd::kCrashed:
      fr.status = "crashed";
      fr.message = child.message + (last_stage.empty() ? "" : " during " + last_stage) +
                   StderrTail(child.stderr_text);
      fr.samples_s.clear();
      return fr;
    default:
      fr.status = "error";
      fr.message = child.message + StderrTail(child.stderr_text);
      fr.samples_s.clear();
      return fr;
  }
}

}  // namespace

RunOutcome RunBuilt(const BuildOutcome& build, const RunRequest& request,
                    const CancellationToken& token, const ProgressFn& progress) {
  RunOutcome out;
  out.step = build.request.step;
  out.trace = build.request.trace;
  out.target = build.target;
  out.profiled = request.profile;
  auto report = [&](const std::string& stage, double fraction) {
    if (progress) progress(stage, fraction);
  };
  if (!build.ok()) {
    out.message = build.state == OutcomeState::kCancelled ? "nothing to run: the build was cancelled"
                                                          : "nothing to run: the build failed";
    return out;
  }
  if (request.profile && (request.number < 1 || request.repeat < 1)) {
    out.message = "number and repeat must be at least 1";
    return out;
  }
  // RunAndCheck takes inputs it cannot find as random: a mistyped directory must not look like a
  // run on the user's data.
  std::error_code ec;
  if (!request.inputs.empty() && request.inputs != "random" &&
      !std::filesystem::is_directory(request.inputs, ec)) {
    out.message = "the input directory " + request.inputs + " does not exist";
    return out;
  }
  const ir::IRModule& source = build.request.module;
  std::vector<size_t> funcs;
  for (size_t i = 0; i < source->functions.size(); ++i) {
    if (source->functions[i].as<tir::PrimFuncNode>()) funcs.push_back(i);
  }
  if (funcs.empty()) {
    out.message = "the module has no PrimFunc to run";
    return out;
  }
  // A CUDA build runs on cuda(0): RunAndCheck copies the inputs there and times with CUDA events.
  runtime::DLDevice device{};
  if (build.target.rfind("cuda", 0) == 0) {
    std::string why;
    if (!CudaTargetUsable(&why)) {
      out.message = "cannot run on cuda: " + why + " (the kernels were built: see the CUDA and PTX views)";
      return out;
    }
    device.device_type = runtime::kDLCUDA;
  }
  // A CUDA context does not survive a fork: GPU runs stay in this process.
  const bool isolate = request.isolate && device.device_type == runtime::kDLCPU;
  const int per_function = 1 + (request.profile ? request.repeat : 0);
  const double units = funcs.size() * static_cast<double>(per_function);
  double done = 0;
  auto stage = [&](const std::string& text) {
    report(text, done / units);
    ++done;
  };
  for (size_t n = 0; n < funcs.size(); ++n) {
    size_t fi = funcs[n];
    std::string name = source->global_vars[fi]->name_hint;
    if (token.cancelled()) {
      FunctionResult fr;
      fr.name = name;
      fr.status = "cancelled";
      fr.message = "cancelled before it ran";
      out.functions.push_back(std::move(fr));
      out.state = OutcomeState::kCancelled;
      return out;
    }
    ir::IRModule one = ir::MakeIRModule({source->global_vars[fi]}, {source->functions[fi]}, source->attrs);
    FunctionResult fr;
    if (isolate) {
      fr = RunFunctionInChild(one, name, build.module, request, token, stage);
    } else {
      FunctionHooks hooks;
      hooks.stage = stage;
      hooks.cancelled = [&] { return token.cancelled(); };
      fr = RunFunction(one, name, build.module, request, device, hooks);
    }
    done = static_cast<double>((n + 1) * per_function);
    const bool cancelled = fr.status == "cancelled";
    out.functions.push_back(std::move(fr));
    if (cancelled) {
      out.state = OutcomeState::kCancelled;
      return out;
    }
  }
  out.state = OutcomeState::kOk;
  report("done", 1);
  return out;
}

// --- The session ---------------------------------------------------------------------------------

BuildOutcome BuildSession::Build(const BuildRequest& request, const CancellationToken& token,
                                 const ProgressFn& progress) {
  BuildOutcome outcome = BuildModule(request, token, progress);
  AdoptBuild(outcome);
  return outcome;
}

RunOutcome BuildSession::Run(const RunRequest& request, const CancellationToken& token,
                             const ProgressFn& progress) {
  RunOutcome outcome;
  if (!build_) {
    outcome.message = "nothing built yet: build first";
  } else {
    outcome = RunBuilt(*build_, request, token, progress);
  }
  AdoptRun(outcome);
  return outcome;
}

void BuildSession::AdoptBuild(BuildOutcome outcome) {
  if (outcome.state == OutcomeState::kCancelled) return;
  build_ = std::move(outcome);
}

void BuildSession::AdoptRun(RunOutcome outcome) {
  run_ = outcome;
  if (!outcome.profiled || outcome.state != OutcomeState::kOk) return;
  ProfilePoint point{outcome.step, outcome.trace, outcome.target, std::move(outcome.functions)};
  for (auto& existing : history_) {
    if (existing.step == point.step && existing.trace == point.trace &&
        existing.target == point.target) {
      existing = std::move(point);
      return;
    }
  }
  history_.push_back(std::move(point));
}

bool BuildSession::IsCurrent(const BuildRequest& request) const {
  if (!build_ || !build_->ok()) return false;
  const BuildRequest& built = build_->request;
  if (built.target != request.target || built.step != request.step || built.trace != request.trace) {
    return false;
  }
  if (built.module.get() == request.module.get()) return true;
  return request.module.defined() && ir::StructuralEqual(built.module, request.module);
}

}  // namespace wb::workbench
