// Tuning: the evolutionary search over each task's design space, measuring candidates through
// workbench's run-and-check mechanism and recording them in the database (TVM's
// EvolutionarySearch, LocalBuilder/LocalRunner and the round-robin task scheduler, scaled to a
// small machine).
//
// Per task, first the default schedule (core/dlight's, when a rule applies) is measured and
// checked against the reference (workbench's `auto`: the interpreter for small work, the module
// as written compiled by LLVM above); its outputs become the task's expected outputs, so each
// candidate afterwards is checked once, on the same seeded inputs, against them, in its run's
// child process, so that only the verdict comes back (its run has no reference of its own; the
// tolerance is the dtype's default). A candidate that fails to build,
// crashes, hangs past the timeout or computes other numbers is recorded as failed (run seconds
// 1e10) and never chosen.
//
// The default schedule is also the first candidate of the population: a candidate of its own
// sketch (kDefaultSketch, default_sketch.h: core/dlight's trace with its exact splits made
// sampled tiles) whose decisions replay to it, recorded with the time just measured, so that the
// search starts from it and MutateTileSize changes its tiles as TVM's search mutates the
// database's best. Beside it, where the default schedule orders a reduction loop between its
// tiles, the default with its reduction blocked (kBlockedSketch, MakeBlockedSketch: SSRSRS
// around the rule's tiles) with the default's decisions is a parent of mutations too, and is
// measured in the task's first batch (it computes as the default does, with unit loops), so that
// the search can block the reduction for the caches, which the default's own structure cannot
// express.
//
// Each batch of a task: a population of the best measured candidates (the default schedule and
// the database's among them; init_measured_ratio of it, filled with their mutations while fewer
// are measured) and random samples of the design space; genetic_num_iters rounds in which
// parents drawn by the cost model's score are mutated (mutator.h, with genetic_mutate_prob); then the
// num_trials_per_iter best predicted candidates not measured yet (duplicates removed by
// structural hash of the scheduled function), eps_greedy of them random samples instead (while
// the default schedule seeds the population and the cost model is untrained, the best predicted
// are taken among the seeds' mutations only: random samples of the space are mostly far slower
// than the default, and an untrained model ranks at random). The
// batch is built first, in parallel, each candidate in its own child process (as TVM's
// LocalBuilder; BuildInChildren), then measured one candidate at a time, with no build running
// beside it. The cost model is retrained after each batch.
//
// When the budget is spent (not after a cancel), each task's verify_top_k best candidates and
// its default schedule are measured again, verify_rounds times, interleaved (one of each in turn,
// the order rotated each round), so that they are compared in the same conditions: the winner
// by the median of its rounds' medians becomes the task's choice (database_verified.json), which
// ApplyDatabase takes; the default schedule stays when it wins. Search measurements alone cannot
// choose on a loaded machine: the load changes between them, and the fastest of many noisy
// measurements is mostly luck. The finalists are built once for all their rounds. Every run,
// the re-measurements too, runs in a child process with the target's thread count (-num-cores,
// else the runtime pool's size), as the build runs.
//
// For a cuda target the design space and postprocessors are the CUDA ones (schedule_rules.h) and
// the default schedule core/dlight's GPU rules'; a candidate is built from the module
// VerifyGPUCode lowered. Where there is no CUDA device (and no runner is
// given), nothing can be measured: Tune builds and verifies each task's design space instead
// (VerifyDesignSpace) and returns it with no_device set and an error saying so.
//
// Tasks share one trial budget through TVM's gradient-based task scheduler: a round-robin
// warm-up gives each task one batch (no larger than the budget left divided by the tasks still
// waiting for theirs), then each batch goes to the active task whose weighted gradient
// weight * (0.2 * (best 3 batches ago - best now) / 3 + 0.8 * best now / its batches) is largest.
// A task whose design space runs dry leaves with a message; so does one the budget never
// reached. Deterministic for a seed given the same measurements: every draw
// comes from generators seeded by `seed` and the task's index. Cancellation is checked between
// candidates and inside each build and run.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "codegen/target.h"
#include "ir/expr.h"
#include "meta_schedule/task.h"
#include "workbench/cancellation.h"
#include "workbench/run_check.h"

namespace wb::meta_schedule {

// A candidate for the builder: the scheduled function ("main"), and for cuda the module
// VerifyGPUCode lowered it to (the build starts from it instead of lowering it again).
struct BuildInput {
  tir::PrimFunc func;
  ir::IRModule lowered;  // null: the build lowers `func`
};
// What the builder made of a candidate.
struct BuiltCandidate {
  tir::PrimFunc func;  // the scheduled function
  // Null without a builder (the runner builds what it needs), or when the build failed.
  std::shared_ptr<const workbench::CompiledModule> compiled;
  std::string error;   // why the build failed (it crashed, hung, or the compiler refused): not run
  double build_s = 0;  // the build's own seconds
};
// Builds a batch of candidates (in the batch's order).
using BuilderFn = std::function<std::vector<BuiltCandidate>(
    const std::vector<BuildInput>& batch, const workbench::CancellationToken& token)>;

// One candidate's measurement: a FunctionResult of workbench's mechanism (status, samples,
// outputs), and the seconds its run took.
struct Measurement {
  workbench::FunctionResult result;
  double run_s = 0;
};
using Outputs = std::vector<std::pair<std::string, runtime::NDArray>>;
// The limits of one run (TuneOptions::slow_limit).
struct RunLimits {
  double timeout_s = 0;    // a run longer than this is killed (kTimedOut)
  double slow_call_s = 0;  // a checked call longer than this is its only sample (too_slow); 0: none
};
// Measures a built candidate (as "main"); `expected`: the outputs to compare with (in the run's
// child process), empty to check it against the reference (computing `original`) and keep its
// outputs instead.
using RunnerFn = std::function<Measurement(
    const BuiltCandidate& candidate, const tir::PrimFunc& original, const Outputs& expected,
    const RunLimits& limits, const workbench::CancellationToken& token)>;

struct TuneOptions {
  std::string target = "llvm";
  int max_trials = 64;  // over all tasks
  uint64_t seed = 1;
  int num_trials_per_iter = 16;
  int population_size = 64;
  double init_measured_ratio = 0.2;
  int genetic_num_iters = 3;
  double genetic_mutate_prob = 0.85;
  double eps_greedy = 0.05;
  size_t cost_model_min_train = 16;
  // TVM's runner: 3 calls a sample, one sample, at least 100 ms of calls (after a warm-up call).
  workbench::TimingOptions timing{3, 1, 100, 0, false};
  double timeout_s = 30;  // per candidate run (the default schedule's checked run: 10x)
  // A candidate whose checked call takes more than slow_limit times the task's best latency so far
  // is not timed further: that call is its one sample (a measurement, counted too_slow). One that
  // slow cannot win, and timing it in full (a warm-up and `number` calls more, each of them
  // slow) would cost the search most of its time: random samples of a large matmul's space are
  // mostly 10-20 times slower than the default schedule. A run is killed (kTimedOut: failed, too
  // slow too) once it has taken slow_limit times what its calls would take at the best latency
  // (plus 2 s for the process, the inputs and the check). 0: only timeout_s. A checked call
  // shorter than timing.min_repeat_ms is never cut (a small kernel's first call is cold).
  double slow_limit = 3;
  double build_timeout_s = 60;  // per candidate build
  int build_jobs = 0;           // builds at once; 0: this machine's cores
  int verify_top_k = 3;   // candidates re-measured beside the default schedule; 0: no verification
  int verify_rounds = 3;
  std::string work_dir;   // the database; empty: none (nothing is recorded)
  int space_samples = 8;  // cuda without a device: valid candidates wanted per sketch (VerifyDesignSpace)
  // Empty: BuildInChildren and MeasureWithRunCheck for `target`. A runner given without a
  // builder gets its candidates unbuilt.
  BuilderFn builder;
  RunnerFn runner;
};

struct TaskReport {
  std::string name;
  int weight = 1;
  double flops = 0;
  int trials = 0;  // candidates measured (the default schedule included)
  int failed = 0;
  int too_slow = 0;  // runs cut by slow_limit: timed by their checked call alone, or killed (failed)
  // Medians: with verification, of the closing re-measurement (the same conditions for both);
  // else of the search's measurements.
  std::optional<double> default_s;  // the default schedule
  std::optional<double> best_s;     // the best candidate, the default schedule included
  std::string best_trace;           // the default schedule's when it stayed the best
  bool verified = false;            // best_s and default_s come from the re-measurement
  std::optional<double> search_best_s;  // the best median the search itself measured
  // The default schedule seeded the population as a candidate of kDefaultSketch
  // (default_sketch.h); else why not (no default schedule rule applies, or its splits are no
  // perfect tiles).
  bool seeded = false;
  std::string seed_message;
  int default_sketch_trials = 0;  // candidates measured of that sketch (mutations of the default)
  // The default schedule's reduction blocked (MakeBlockedSketch): its candidate with the
  // default's decisions is a parent of mutations too; else why not.
  bool blocked = false;
  std::string blocked_message;
  int blocked_sketch_trials = 0;  // candidates measured of kBlockedSketch
  std::string message;  // why it was not tuned, or what failed
  std::optional<double> gflops() const;
  std::optional<double> speedup() const;  // default / best
};

struct TuneProgress {
  std::string task;
  int trial = 0;  // done, over all tasks
  int total = 0;
  std::optional<double> best_s;  // of this task
  double eta_s = 0;
};
using TuneProgressFn = std::function<void(const TuneProgress&)>;

// One sketch of a task's design space, as VerifyDesignSpace found it.
struct SketchSummary {
  int sketch = 0;
  int sampled = 0;   // candidates drawn
  int valid = 0;     // through the rules and every postprocessor (VerifyGPUCode included)
  int compiled = 0;  // of those, built for the target (cuda: CUDA C compiled by NVRTC)
  int distinct = 0;  // valid ones with different scheduled functions (structural hash)
  std::string first_error;  // why the first rejected candidate was rejected
  std::string trace;        // a valid candidate's trace
};
struct SpaceSummary {
  std::string task;
  std::vector<SketchSummary> sketches;
  std::string message;  // why the task has no design space (symbolic shapes, ...)
  bool built = true;    // the valid candidates were built (cuda: false when this build has no NVRTC)
  bool ok() const;      // every sketch has a valid candidate (that compiled, when built)
};

struct TuneResult {
  std::vector<TaskReport> tasks;
  // cuda without a device: the design spaces, built and verified but not measured.
  bool no_device = false;
  std::vector<SpaceSummary> space;
  std::string error;  // nothing could be tuned (no tasks, a bad target, an unusable work dir)
  std::vector<std::string> warnings;  // the database's skipped lines
  bool cancelled = false;
  int trials = 0;
  int verify_runs = 0;  // the closing re-measurements (not trials: they measure no new candidate)
  // Where the time went, in seconds.
  double generate_s = 0;  // design space sampling, mutation, postprocessors, features
  double model_s = 0;     // cost model training and prediction
  double measure_s = 0;   // build and run: build_s + run_s
  double build_s = 0;     // the builder's batches, from start to end (builds run in parallel)
  double build_cpu_s = 0;  // the builds' own seconds, summed (above build_s when they overlapped)
  double run_s = 0;        // the candidates' checked, timed runs (child processes included)
  double total_s = 0;
  std::vector<int> batches;  // the task (its index) of each batch, in order
  // The candidates measured, in order, as their structural hashes (for determinism checks).
  std::vector<uint64_t> measured;
};

// The builder for `target`: each batch built `jobs` at a time (0: this machine's cores), each
// candidate in its own child process (workbench/isolated_build.h); a build that fails, crashes
// or runs past `timeout_s` is that candidate's error.
BuilderFn BuildInChildren(const std::string& target, int jobs, double timeout_s);

// The run-and-check runner for `target`: a built candidate run in a child process on the
// target's num_cores threads, checked and timed (workbench/run_check.h).
RunnerFn MeasureWithRunCheck(const std::string& target, const workbench::TimingOptions& timing);

// Each task's design space for `target`: every sketch sampled (seeded by `seed`) until `samples`
// candidates passed the rules and postprocessors, or 16 x `samples` were drawn; the valid ones
// built (cuda: through NVRTC, when this build has it).
std::vector<SpaceSummary> VerifyDesignSpace(const ExtractedTasks& tasks, const codegen::Target& target,
                                            uint64_t seed, int samples);

TuneResult Tune(const ExtractedTasks& tasks, const TuneOptions& options,
                const workbench::CancellationToken& token = {}, const TuneProgressFn& progress = {});

}  // namespace wb::meta_schedule
