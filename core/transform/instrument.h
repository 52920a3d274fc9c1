// The instruments every face of the workbench runs pipelines with: a snapshot of the module
// before and after each pass (with its structural hash, so "unchanged" is known without diffing
// text), the pass's wall time, and a well-formedness check that names the pass that broke it.
#pragma once

#include <chrono>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "ir/transform.h"
#include "support/diagnostic.h"

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

// Verifies every PrimFunc after each pass; on a finding, stops the pipeline with a PassError
// whose message names the pass and whose notes hold the verifier's findings.
class WellFormedInstrument : public ir::PassInstrument {
 public:
  std::string name() const override { return "WellFormed"; }
  void RunAfterPass(const ir::IRModule& module, const ir::PassInfo& info) override;
};

struct PipelineResult {
  ir::IRModule module;  // the last module produced (the input when the first pass failed)
  std::vector<PassSnapshot> snapshots;
  DiagnosticList diagnostics;
  bool ok() const { return !diagnostics.HasErrors(); }
};

struct PipelineOptions {
  int opt_level = 2;
  bool verify = true;  // run WellFormedInstrument
  std::map<std::string, ir::ObjectRef> config;
};

// Runs `pass` on `module` with snapshots (and verification), catching a failing pass and
// turning it into a diagnostic that names it. Never throws.
PipelineResult RunPipeline(const ir::Pass& pass, const ir::IRModule& module,
                           const PipelineOptions& options = {});

}  // namespace wb::transform
