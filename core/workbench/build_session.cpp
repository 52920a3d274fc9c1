#include "workbench/build_session.h"

#include <algorithm>
#include <chrono>

#include "codegen/cuda/codegen_cuda.h"
#include "codegen/target.h"
#include "ir/structural_equal.h"
#include "runtime/cuda/cuda_driver.h"
#include "tir/stmt.h"
#include "workbench/schedule_session.h"
#include "workbench/source_links.h"

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
  request.original = schedule.original();
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
  auto built = std::make_shared<CompiledModule>();
  try {
    if (request.link_path.empty()) {
      *built = Compile(request.module, *target, /*default_schedule=*/true, request.debug_lines);
    } else {
      PrintedModule printed = PrintForLinking(request.module, request.original, request.link_path);
      if (printed.module.defined()) {
        *built = Compile(printed.module, *target, /*default_schedule=*/true, /*debug_lines=*/true);
        out.links = std::make_shared<SourceLinks>(std::move(printed), "", "");
        // The failure's spans name the printed module's lines: report it against the module's
        // own text instead, as an unlinked build of it does.
        if (!built->ok())
          *built = Compile(request.module, *target, /*default_schedule=*/true, request.debug_lines);
      } else {
        // The views can still be shown, only not linked: say why, and build the module as it is.
        std::string why = "the printed module does not parse back";
        for (const Diagnostic& d : printed.diagnostics) {
          if (d.severity == Severity::kError) why = d.message;
        }
        out.diagnostics.Add(
            Diagnostic::Warning("the build's views are not linked to the source: " + why));
        *built = Compile(request.module, *target, /*default_schedule=*/true, request.debug_lines);
      }
    }
  } catch (const std::exception& e) {
    // Build turns the failures it knows into diagnostics; anything else still must not escape a
    // worker thread.
    built->diagnostics.Error(std::string("build: ") + e.what());
  }
  out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (!built->ok()) {
    out.diagnostics.Append(built->diagnostics);
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
    out.cuda_source = built->kernels->GetSource("cuda");
    out.ptx = built->kernels->GetSource("ptx");
  }
  for (const auto& [format, text] : views) {
    if (cancelled()) return out;
    report(std::string("source view: ") + format, fraction);
    fraction += 0.1;
    // A Relax module that calls no kernel has no kernel module to show.
    if (built->kernels.defined()) *text = built->kernels->GetSource(format);
  }
  if (out.links)
    out.links = std::make_shared<SourceLinks>(out.links->printed(), out.llvm_ir, out.assembly);
  out.module = built->kernels;
  out.compiled = built;
  out.state = OutcomeState::kOk;
  report("built", 1);
  return out;
}

// --- Run, check, time ----------------------------------------------------------------------------

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

RunOutcome RunBuilt(const BuildOutcome& build, const RunRequest& request,
                    const CancellationToken& token, const ProgressFn& progress) {
  RunOutcome out;
  out.step = build.request.step;
  out.trace = build.request.trace;
  out.target = build.target;
  out.profiled = request.profile;
  if (!build.ok() || !build.compiled) {
    out.message = build.state == OutcomeState::kCancelled ? "nothing to run: the build was cancelled"
                                                          : "nothing to run: the build failed";
    return out;
  }
  if (build.compiled->target.is_cuda()) {
    std::string why;
    if (!CudaTargetUsable(&why)) {
      out.message = "cannot run on cuda: " + why + " (the kernels were built: see the CUDA and PTX views)";
      return out;
    }
  }
  RunCheckRequest run;
  run.module = build.request.module;
  run.reference_module = build.request.original;
  run.inputs = request.inputs;
  run.seed = request.seed;
  run.reference = request.reference;
  run.profile = request.profile;
  run.timing.number = request.number;
  run.timing.repeat = request.repeat;
  run.isolate = request.isolate;
  RunCheckResult result = RunCompiled(*build.compiled, run, token, progress);
  out.functions = std::move(result.functions);
  out.peaks = std::move(result.peaks);
  if (!result.message.empty()) {
    out.message = result.message;
    return out;
  }
  out.state = result.cancelled ? OutcomeState::kCancelled : OutcomeState::kOk;
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
  if (outcome.peaks) peaks_ = outcome.peaks;
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
  if (built.link_path != request.link_path) return false;
  if (built.module.get() == request.module.get()) return true;
  return request.module.defined() && ir::StructuralEqual(built.module, request.module);
}

}  // namespace wb::workbench
