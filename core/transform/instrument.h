// The instruments every face of the workbench runs pipelines with: a snapshot of the module
// before and after each pass (with its structural hash, so "unchanged" is known without diffing
// text), the pass's wall time, and a well-formedness check that names the pass that broke it.
#pragma once

#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "ir/transform.h"
#include "support/diagnostic.h"
#include "transform/pass_control.h"

namespace wb::transform {

struct PassSnapshot {
  int index = 0;  // position in the run, from 0
  std::string name;
  // The module before and after. IR is immutable and shared, so keeping both costs little;
  // text is printed on demand.
  ir::IRModule before;
  ir::IRModule after;
  uint64_t hash_before = 0;
  uint64_t hash_after = 0;
  double milliseconds = 0;

  bool changed() const { return hash_before != hash_after; }
  std::string BeforeText() const;
  std::string AfterText() const;
};

class SnapshotInstrument : public ir::PassInstrument {
 public:
  std::string name() const override { return "Snapshot"; }
  void RunBeforePass(const ir::IRModule& module, const ir::PassInfo& info) override;
  void RunAfterPass(const ir::IRModule& module, const ir::PassInfo& info) override;
  const std::vector<PassSnapshot>& snapshots() const { return snapshots_; }

 private:
  std::vector<PassSnapshot> snapshots_;
  std::chrono::steady_clock::time_point start_;
};

// Verifies every PrimFunc (tir::VerifyWellFormed) and every Relax function
// (relax::VerifyWellFormed) after each pass; on a finding, stops the pipeline with a PassError
// whose message names the pass and whose notes hold the verifier's findings, with their spans.
class WellFormedInstrument : public ir::PassInstrument {
 public:
  std::string name() const override { return "WellFormed"; }
  void RunAfterPass(const ir::IRModule& module, const ir::PassInfo& info) override;
};

// The number of passes `pass` runs under `context`: the leaves of nested Sequentials that the
// context enables (opt level, disabled and required passes). Progress reports count these.
int CountPasses(const ir::Pass& pass, const ir::PassContext& context);

// Reports "pass i of n" before each pass and stops the pipeline between passes once `should_stop`
// says so (a pass itself runs to its end: nothing interrupts it). It acts in ShouldRun, before
// any instrument sees the pass, so a stopped pipeline has no half-recorded snapshot.
class ProgressInstrument : public ir::PassInstrument {
 public:
  using OnPass = std::function<void(int index, int total, const std::string& name)>;
  ProgressInstrument(int total, OnPass on_pass, std::function<bool()> should_stop)
      : total_(total), on_pass_(std::move(on_pass)), should_stop_(std::move(should_stop)) {}
  std::string name() const override { return "Progress"; }
  bool ShouldRun(const ir::IRModule& module, const ir::PassInfo& info) override;
  // Passes that started (all of them finished unless one threw).
  int started() const { return started_; }
  int total() const { return total_; }

 private:
  void StopIfAsked();
  int total_;
  int started_ = 0;
  OnPass on_pass_;
  std::function<bool()> should_stop_;
};

// Thrown by ProgressInstrument to stop a pipeline; RunPipeline turns it into a cancelled result.
class PipelineCancelled : public std::exception {
 public:
  const char* what() const noexcept override { return "the pipeline was cancelled"; }
};

struct PipelineResult {
  ir::IRModule module;  // the last module produced (the input when the first pass failed)
  std::vector<PassSnapshot> snapshots;
  DiagnosticList diagnostics;
  // Stopped between passes on request: `snapshots` holds the passes that finished, `module` the
  // last one's output. Not an error: diagnostics stay empty.
  bool cancelled = false;
  int total_passes = 0;  // the passes the pipeline would have run (CountPasses)
  // Edit and resume: the run went on from an edited module after snapshot `resumed_after`
  // (snapshots up to it are the earlier run's, the last with the edited module as `after`);
  // -1 for a run from the start.
  int resumed_after = -1;
  bool ok() const { return !diagnostics.HasErrors(); }
  // "cancelled after 3 of 12 passes"; empty when the run was not cancelled.
  std::string CancelledMessage() const;
};

struct PipelineOptions {
  bool verify = true;  // run WellFormedInstrument
  // Set over the settings of PassContext::Current() (so a face that entered a context for a
  // whole command keeps it); the instruments of that context are not carried over.
  PassControl control;
  // Called on the running thread before each pass (index from 0, total from CountPasses).
  ProgressInstrument::OnPass on_pass;
  // Checked before each pass (after on_pass); true stops the run there.
  std::function<bool()> should_stop;
};

// Runs `pass` on `module` with snapshots (and verification), catching a failing pass and
// turning it into a diagnostic that names it. Never throws.
PipelineResult RunPipeline(const ir::Pass& pass, const ir::IRModule& module,
                           const PipelineOptions& options = {});

}  // namespace wb::transform
