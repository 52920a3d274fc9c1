// Running and checking the functions of a module: the one mechanism behind `--batch --run`, the
// manifest's numeric and timing checks, `--check-each`, the GUI's Build & Profile panel and the
// benchmarks. A request names the module and target, which functions, their inputs (seeded
// random or a directory of .npy files), the reference that checks them, the timing (TVM's time
// evaluator) and whether each function runs in a child process; the result says, per function,
// how it ended (RunStatus), what it computed, how far that is from the reference and where, and
// how long it took.
//
// A profiled CPU run also places each function on this machine's roofline: the bytes one call
// moves (codegen/memory_traffic.h), its arithmetic intensity (FLOPs over bytes), and the fraction
// of the roof it reaches, against the host's measured peaks (workbench/host_peaks.h): those of
// every thread for a function with a parallel loop, those of one thread otherwise; the cache's
// bandwidth for a function whose bytes fit in the L2 of those cores, memory's otherwise.
//
// PrimFuncs are called directly; Relax functions run through the Relax VM (codegen::BuildVM).
//
// The reference (ReferenceKind) is what the outputs are compared with, run on the same inputs:
// - interpreter: the reference interpreters (tir::InterpretModule, relax::InterpretRelax) on the
//   module as written. Independent of codegen, but slow: see kAutoInterpreterLimit.
// - compiled: the module as written (before any schedule, default schedule or tuning record),
//   built for the host CPU with LLVM.
// - auto: the interpreter while the function executes at most kAutoInterpreterLimit operations
//   (codegen::CountOperations on the bound shapes; for a Relax function the sum over the kernels
//   its VM run called), compiled above that or when the count is unknown.
// - none: run only.
//
// Isolation: on the CPU each function runs in its own child process (support/child_process.h),
// so a kernel that crashes is that function's kCrashed result and a cancel kills the child at
// once. A CUDA context does not survive a fork: GPU runs stay in this process.
#pragma once

#include <map>
#include <memory>
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "codegen/target.h"
#include "ir/expr.h"
#include "relax/interpreter.h"
#include "runtime/module.h"
#include "runtime/ndarray.h"
#include "runtime/time_evaluator.h"
#include "runtime/vm/executable.h"
#include "runtime/vm/value.h"
#include "support/diagnostic.h"
#include "workbench/cancellation.h"
#include "workbench/host_peaks.h"

namespace wb::workbench {

enum class RunStatus {
  kOk,         // ran and, when checked, matched the reference
  kMismatch,   // ran, and an output differs from the reference
  kFailed,     // could not run (no inputs, the call failed, the reference failed)
  kCrashed,    // its process died of a signal (FunctionResult::signal)
  kTimedOut,   // ran past RunCheckRequest::timeout_s and was killed
  kOutOfMemory,  // an allocation failed past its process's memory limit (isolated runs only)
  kCancelled,  // cancelled before or while it ran
};
const char* RunStatusName(RunStatus status);
std::optional<RunStatus> ParseRunStatus(const std::string& name);

enum class ReferenceKind { kAuto, kInterpreter, kCompiled, kNone };
const char* ReferenceName(ReferenceKind kind);
// "auto", "interpreter", "compiled", "none"; nullopt for anything else.
std::optional<ReferenceKind> ParseReference(const std::string& text);

// Above this many executed operations (codegen::CountOperations) `auto` takes the compiled
// reference. The interpreter's loop kernels run a 256^3 matmul (six operations per multiply-add)
// in about 0.3 s here (bench_interpreter: 50-63 M multiply-adds/s), so this is a third of a
// second or so of interpreter time per call.
inline constexpr double kAutoInterpreterLimit = 1e8;

// TVM's time evaluator: `repeat` samples, each the mean of `number` calls (grown until a sample
// lasts min_repeat_ms), cooldown_ms between samples, and with flush_cache the CPU caches flushed
// before each sample (TVM's cache_flush_cpu_non_first_arg, done by streaming through a buffer
// larger than the last-level cache).
struct TimingOptions {
  int number = 10;
  int repeat = 3;
  int min_repeat_ms = 0;
  int cooldown_ms = 0;
  bool flush_cache = false;
};

// The time evaluator's options for `timing`: its number, repeat, min_repeat_ms and cooldown, and
// the cache flush as the evaluator's preproc. What RunCheck times with.
runtime::TimeEvaluatorOptions EvaluatorOptions(const TimingOptions& timing);

// One call among several timed together (a benchmark's kernel and its references).
struct TimedCall {
  runtime::PackedFunc fn;
  std::vector<runtime::PackedArg> args;
};
// Times the calls in `rounds` interleaved rounds, each round one sample of each call in order
// (`timing` with repeat 1), so that a drift of the host hits them all alike: one result per
// call, `rounds` samples each (report median_s). Throws runtime::Error as TimeEvaluate does.
std::vector<runtime::TimeEvaluatorResult> TimeInterleaved(const std::vector<TimedCall>& calls, int rounds,
                                                          const TimingOptions& timing);

struct CompiledModule;

struct RunCheckRequest {
  ir::IRModule module;            // what is built and run (scheduled, transformed)
  ir::IRModule reference_module;  // what the reference runs: the module as written; null: `module`
  std::string target = "llvm";    // target text or tag
  // Global names to run; empty: every entry point (the Relax functions with a global symbol when
  // the module has Relax functions, else every PrimFunc that is not a GPU kernel).
  std::vector<std::string> functions;
  // Empty or "random": seeded random inputs. Otherwise a directory of DIR/<func>/<param>.npy or
  // DIR/<param>.npy (a PrimFunc parameter is also found by its buffer's name; scalars as 0-d or
  // 1-element arrays); parameters without a file are random, shaped by the shape variables the
  // files bind.
  std::string inputs;
  uint64_t seed = 0;
  // The size given to a symbolic dim that no input file binds; nullopt: such a PrimFunc fails
  // ("the shape of A is symbolic") and a Relax function gets 4.
  std::optional<int64_t> symbolic_extent;
  ReferenceKind reference = ReferenceKind::kAuto;
  std::optional<double> rtol;  // unset: runtime::DefaultTolerance of each output's dtype
  std::optional<double> atol;
  bool profile = false;
  TimingOptions timing;
  bool isolate = true;
  // Per function, isolated runs only; unset: the child process's default (kDefaultChildTimeoutS,
  // so a kernel that never ends is a clear failure, not a frozen run); 0: none.
  std::optional<double> timeout_s;
  // The runtime thread pool's size in the child that runs a function (isolated runs only; 0: the
  // size it inherits from this process), so that a run measures as a build for that many cores
  // runs.
  int num_threads = 0;
  // Bytes an isolated run may map beyond the parent's size (ChildOptions::memory_limit_bytes);
  // unset: DefaultChildMemoryLimit(); 0: none. Past it, the function is kOutOfMemory.
  std::optional<size_t> memory_limit_bytes;
  bool keep_outputs = false;   // fill FunctionResult::outputs
  // PrimFuncs: outputs to compare with instead of running a reference (`reference` is then not
  // used), named as FunctionResult::outputs names them. An isolated run compares them in its
  // child, so only the verdict crosses the process boundary, not the outputs (the tuner checks
  // each candidate against the default schedule's outputs on the same seeded inputs this way).
  // The result's reference is then "expected".
  std::shared_ptr<const std::vector<std::pair<std::string, runtime::NDArray>>> expected_outputs;
  // Profiled PrimFuncs: a function whose checked call took longer than this many seconds is not
  // timed further; that call is its one sample (FunctionResult::too_slow). 0: every function is
  // timed. The tuner's cut for candidates that cannot win, which would spend the search's time.
  double slow_call_s = 0;
  // With `profile` on the CPU: measure the host's peaks again instead of reading their cache.
  bool measure_peaks = false;
  // kCompiled: the reference module already built for the host without default schedules (as
  // Compile(reference_module, Host, false) builds it); null: built by the run. A sequence of
  // checks passes the build of one check's module on as the next one's reference.
  std::shared_ptr<const CompiledModule> compiled_reference;
};

// A profiled Relax function's time in one packed call of the VM (a kernel or a builtin), per call
// of the function (the VM's CallProfile over the profiled calls, divided by their number).
struct CallTime {
  std::string name;
  bool kernel = false;
  double calls = 0;    // calls per function call
  double seconds = 0;  // per function call
  std::optional<double> flops;  // per function call, a kernel's when countable
  std::optional<double> gflops_per_s() const {
    if (!flops || seconds <= 0) return std::nullopt;
    return *flops / seconds / 1e9;
  }
};

// One function's run.
struct FunctionResult {
  std::string name;
  bool relax = false;  // a Relax function run through the VM
  RunStatus status = RunStatus::kOk;
  std::string message;  // why it is not kOk; or a note on an unchecked kOk run
  int signal = 0;       // kCrashed
  // The reference that checked the outputs ("interpreter" or "compiled"); empty: not checked.
  std::string reference;
  bool checked() const { return !reference.empty(); }
  double max_abs_error = 0;
  double max_rel_error = 0;
  std::string worst;  // the element with the largest absolute error: "C[3, 17]"
  // The outputs (buffers the function writes; a Relax result's tensors as output, output_0...).
  std::vector<std::pair<std::string, runtime::NDArray>> outputs;
  std::map<std::string, int64_t> symbolic;  // Relax: the size picked for each symbolic var
  std::vector<double> samples_s;            // seconds per call, one per repeat
  // Its checked call took longer than RunCheckRequest::slow_call_s: samples_s is that call alone.
  bool too_slow = false;
  int number = 0;                           // calls per sample (after min_repeat_ms growth)
  std::optional<double> flops;              // of one call, when countable
  std::optional<double> operations;         // executed operations of one call (the auto choice)
  std::optional<double> bytes;              // moved by one call (codegen/memory_traffic.h)
  bool parallel = false;                    // has a parallel loop: its roof is every thread's
  // The roof of a profiled CPU run: the host's FMA and bandwidth peaks for its thread count.
  std::optional<double> peak_gflops;
  std::optional<double> peak_gbytes_per_s;
  bool in_cache = false;  // peak_gbytes_per_s is the L2's (its bytes fit there), not memory's
  // A profiled Relax function's packed calls, the most time first (after the timed calls, a few
  // calls through a profiling VM: their sum is close to, not exactly, the median).
  std::vector<CallTime> call_times;
  double median_s() const;
  double mean_s() const;
  double min_s() const;
  double max_s() const;
  double std_s() const;  // population standard deviation of the samples
  // flops / median time; nullopt without samples or a FLOP count.
  std::optional<double> gflops_per_s() const;
  // flops / bytes; nullopt without both (or with no bytes).
  std::optional<double> arithmetic_intensity() const;
  // gflops_per_s over the roof at this intensity, min(peak_gflops, intensity * peak bandwidth).
  std::optional<double> roofline_fraction() const;
  bool ok() const { return status == RunStatus::kOk; }
};

// The one codec for results that cross a process boundary (and for reports): every field,
// outputs as base64 .npy.
nlohmann::json ToJson(const FunctionResult& result);
FunctionResult FunctionResultFromJson(const nlohmann::json& j);

// A module built to be run: PrimFuncs as a runtime::Module, and when it has Relax functions, the
// VM executable whose kernels that module holds.
struct CompiledModule {
  codegen::Target target;
  ir::IRModule source;                             // what was built
  runtime::Module kernels;                         // null when the build failed
  std::shared_ptr<runtime::vm::Executable> exec;   // null without Relax functions
  ir::IRModule lowered;                            // the VM's lowered module (kernel work)
  // The module before the pipeline's default schedules, whose padding (rows to whole register
  // tiles, columns to whole vectors) adds work the model does not have: the FLOPs are counted on
  // its kernels. Null when the pipeline ran no default schedules (`lowered` counts then).
  ir::IRModule unscheduled;
  DiagnosticList diagnostics;                      // why it failed
  bool ok() const { return kernels.defined() || exec != nullptr; }
};

bool HasRelaxFunctions(const ir::IRModule& module);

// codegen::BuildVM for a module with Relax functions, else codegen::Build. `default_schedule`
// off builds the legalized kernels as written (the compiled reference: a default schedule must
// not check itself). `debug_lines`: codegen::BuildOptions::debug_lines (for the kernels of a
// Relax module too).
CompiledModule Compile(const ir::IRModule& module, const codegen::Target& target,
                       bool default_schedule = true, bool debug_lines = false);

struct RunCheckResult {
  std::string target;    // canonical text
  std::string message;   // when nothing could run at all (a bad target, a failed build)
  DiagnosticList diagnostics;
  std::vector<FunctionResult> functions;
  bool cancelled = false;
  std::optional<HostPeaks> peaks;  // a profiled CPU run: the roofs its functions are placed under
  // True when something ran and every function is kOk.
  bool ok() const;
  const FunctionResult* Find(const std::string& name) const;
};

// Builds request.module for request.target, then RunCompiled.
RunCheckResult RunAndCheck(const RunCheckRequest& request, const CancellationToken& token = {},
                           const ProgressFn& progress = {});

// Runs the functions of `compiled` (built from request.module) as the request says. Progress
// stages: "run and check NAME", "run NAME", "time NAME (k/R)".
RunCheckResult RunCompiled(const CompiledModule& compiled, const RunCheckRequest& request,
                           const CancellationToken& token = {}, const ProgressFn& progress = {});

// Comparing tensors: every pair of named outputs, with the request's tolerances. Fills the
// result's errors and worst element; a difference makes it kMismatch with a message naming the
// output.
void CompareOutputs(const std::vector<std::pair<std::string, runtime::NDArray>>& actual,
                    const std::vector<std::pair<std::string, runtime::NDArray>>& expected,
                    std::optional<double> rtol, std::optional<double> atol, FunctionResult* result);

// A Relax value as the VM takes it, and the VM's result as a Relax value (`like` gives scalars
// their dtype).
runtime::vm::Value ToVM(const relax::Value& value);
relax::Value FromVM(const runtime::vm::Value& value, const relax::Value& like);

}  // namespace wb::workbench
