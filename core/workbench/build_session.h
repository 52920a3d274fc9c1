// Build and profile, without any UI: which targets this machine offers (and why one is not
// offered), building the scheduled module for one, running its PrimFuncs (or its Relax functions
// through the VM) on random or loaded inputs, checking them against a reference, timing them
// (number x repeat) through the one run-and-check mechanism (run_check.h), and a history of
// profiles keyed by schedule step, which the GUI charts.
//
// The work itself (BuildModule, RunBuilt) is free functions on immutable inputs, so the GUI can
// run them on a worker thread and hand the outcome back to the BuildSession on its own thread;
// a CancellationToken shared with the worker is checked between stages and between repeats, and
// on the CPU kernels run in a child process that a cancel kills (support/child_process.h).
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "ir/expr.h"
#include "runtime/module.h"
#include "support/diagnostic.h"
#include "workbench/cancellation.h"
#include "workbench/run_check.h"

namespace wb::workbench {

class ScheduleSession;
class SourceLinks;

// --- Targets -------------------------------------------------------------------------------------

// One entry of the target chooser.
struct TargetOption {
  std::string name;         // "llvm", a tag ("avx2"), or "cuda"
  std::string text;         // what codegen::ParseTarget reads
  std::string description;  // the canonical target it resolves to, or what it is for
  bool can_build = false;
  bool can_run = false;     // built code runs on this machine
  std::string reason;       // why it cannot build or run; empty when it can do both
};

// The host CPU (`llvm`) first, then every target tag, then `cuda`.
std::vector<TargetOption> BuildTargets();

// Whether CUDA kernels can be built here (NVRTC in this build) and also run (a GPU and its
// driver, asked of the CUDA runtime); false with the reason in *why.
bool CudaCanBuild(std::string* why);
bool CudaTargetUsable(std::string* why);

enum class OutcomeState { kOk, kFailed, kCancelled };
const char* OutcomeStateName(OutcomeState state);

// --- Build ---------------------------------------------------------------------------------------

struct BuildRequest {
  ir::IRModule module;          // the module as scheduled
  ir::IRModule original;        // as written (what the reference runs); null: `module`
  std::string target = "llvm";  // target text or tag
  int step = 0;                 // how many schedule steps `module` has had
  std::string trace;            // those steps' trace, as TVM prints it
  // Debug line information in the code, from the statements' spans (codegen::BuildOptions::
  // debug_lines): the LLVM IR and assembly views then map back to the text `module` was parsed
  // from (codegen/source_map.h).
  bool debug_lines = false;
  // Non-empty: link the views to the text (workbench/source_links.h). The module is printed under
  // this name (legalized first when it has Relax functions), parsed back, and that is built, with
  // debug lines; BuildOutcome::links then maps the views' lines to the printed module's and to
  // the document's bindings (`original`'s spans, else `module`'s).
  std::string link_path;
};

// The scheduled module of `schedule` (its original when it has no step) with its step and trace.
BuildRequest RequestFromSchedule(const ScheduleSession& schedule, std::string target = "llvm");

struct BuildOutcome {
  OutcomeState state = OutcomeState::kFailed;
  BuildRequest request;
  std::string target;           // canonical text of the target built for
  runtime::Module module;       // the kernels; defined when state is kOk
  std::shared_ptr<const CompiledModule> compiled;  // what RunBuilt runs
  DiagnosticList diagnostics;   // why it failed (spans where the failure has one)
  std::string llvm_ir;          // before LLVM's optimization
  std::string llvm_ir_opt;      // after it
  std::string assembly;
  std::string cuda_source;      // CUDA targets: the kernels' CUDA C
  std::string ptx;              // and the PTX NVRTC made of it
  double seconds = 0;           // lowering and code generation
  // BuildRequest::link_path: the links of the views; set once the printed module parsed back
  // (its views empty when the build then failed).
  std::shared_ptr<const SourceLinks> links;
  bool ok() const { return state == OutcomeState::kOk; }
};

BuildOutcome BuildModule(const BuildRequest& request, const CancellationToken& token = {},
                         const ProgressFn& progress = {});

// --- Run, check, time ----------------------------------------------------------------------------

// What the panel asks of a run; RunBuilt turns it into a RunCheckRequest (run_check.h).
struct RunRequest {
  std::string inputs;  // empty: seeded random inputs; else a directory of .npy files
  uint64_t seed = 0;
  ReferenceKind reference = ReferenceKind::kAuto;
  bool profile = false;
  int number = 10;     // calls per measurement
  int repeat = 3;      // measurements
  // CPU targets: each function runs in a child process, so a kernel that crashes is reported
  // instead of ending this process, and a cancel kills the child at once (run_check.h).
  bool isolate = true;
};

struct RunOutcome {
  OutcomeState state = OutcomeState::kFailed;
  std::string message;  // when nothing could run at all
  int step = 0;
  std::string trace;
  std::string target;
  bool profiled = false;
  std::vector<FunctionResult> functions;
  std::optional<HostPeaks> peaks;  // a profiled CPU run: the roofs (RunCheckResult::peaks)
  const FunctionResult* Find(const std::string& name) const;
};

// Runs the entry points of a successful build (its PrimFuncs, or its Relax functions through the
// VM), checked against the request's reference on the module as written (BuildRequest::original).
// Cancelling: see RunCompiled.
RunOutcome RunBuilt(const BuildOutcome& build, const RunRequest& request,
                    const CancellationToken& token = {}, const ProgressFn& progress = {});

// --- The session ---------------------------------------------------------------------------------

// One profile in the history: a schedule step's results on one target.
struct ProfilePoint {
  int step = 0;
  std::string trace;
  std::string target;
  std::vector<FunctionResult> functions;
  const FunctionResult* Find(const std::string& name) const;
};

class BuildSession {
 public:
  // Synchronous: does the work on this thread, adopts the outcome and returns it.
  BuildOutcome Build(const BuildRequest& request, const CancellationToken& token = {},
                            const ProgressFn& progress = {});
  // Runs the current build; fails (with the reason) when there is none.
  RunOutcome Run(const RunRequest& request, const CancellationToken& token = {},
                        const ProgressFn& progress = {});

  // Outcomes computed elsewhere (a worker thread). A cancelled build keeps the previous one; a
  // failed build replaces it, so nothing runs code that no longer matches what was asked. A
  // profiled run that was not cancelled becomes a history point, replacing the one with the same
  // step, trace and target.
  void AdoptBuild(BuildOutcome outcome);
  void AdoptRun(RunOutcome outcome);
  // Peaks measured again (workbench/host_peaks.h); a profiled run's peaks are adopted with it.
  void AdoptPeaks(HostPeaks peaks) { peaks_ = std::move(peaks); }

  // True when the current build is successful and was made from `request`'s module and target.
  bool IsCurrent(const BuildRequest& request) const;
  const std::optional<BuildOutcome>& build() const { return build_; }
  const std::optional<RunOutcome>& lastRun() const { return run_; }
  const std::vector<ProfilePoint>& history() const { return history_; }
  // The roofs the latest profile or measurement gave; nullopt before either.
  const std::optional<HostPeaks>& peaks() const { return peaks_; }
  void ClearHistory() { history_.clear(); }

 private:
  std::optional<BuildOutcome> build_;
  std::optional<RunOutcome> run_;
  std::vector<ProfilePoint> history_;
  std::optional<HostPeaks> peaks_;
};

}  // namespace wb::workbench
