// The UI-agnostic state of one workbench window: the document and its parse, the diagnostics,
// and the last pipeline run with its per-pass snapshots. The GUI shows what this holds; the
// batch runner and the LSP server use the same calls.
#pragma once

#include <memory>
#include <optional>
#include <string>

#include "script/tvmscript.h"
#include "transform/instrument.h"
#include "workbench/cancellation.h"

namespace wb::workbench {

// What the editor needs after each edit: computed without touching any shared state, so it
// can run off the UI thread.
struct Analysis {
  std::string text;
  script::ParseResult parse;
  DiagnosticList diagnostics;  // parse errors, then well-formedness findings
};
Analysis Analyze(std::string text, std::string path);

// Runs `pipeline_text` over `module` (undefined when the document does not parse), touching no
// shared state, so a face can call it on a worker thread. Before each pass `progress` gets
// "pass i of n: Name" and the fraction done; `token` stops the run between passes (the result
// is then `cancelled`, with the snapshots of the passes that finished). `control` sets the opt
// level, config and disabled or required passes. Every failure comes back as diagnostics in the
// result.
transform::PipelineResult RunPipelineOn(const ir::IRModule& module,
                                        const std::string& pipeline_text,
                                        const CancellationToken& token = {},
                                        const ProgressFn& progress = nullptr,
                                        const transform::PassControl& control = {});

// The text of the passes of `pipeline_text` (a named pipeline expanded) after the first `k`;
// nullopt with the reason in `diags` when the text does not parse or has no pass after the k-th.
std::optional<std::string> PipelineAfter(const std::string& pipeline_text, size_t k,
                                         DiagnosticList& diags);

// Edit and resume: the module after snapshot `index` of `run` (a run of `pipeline_text`)
// replaced by `edited_text`, analyzed as the editor analyzes a document (parse errors and
// well-formedness findings come back as the result's diagnostics, and nothing runs), then the
// passes of the pipeline after that one run on it, under `control`. The result holds the
// snapshots up to `index` (the last one's `after` the edited module) and then those of the
// passes that ran, numbered on; `resumed_after` is `index`.
transform::PipelineResult ResumePipelineOn(const transform::PipelineResult& run, int index,
                                           const std::string& edited_text,
                                           const std::string& pipeline_text,
                                           const CancellationToken& token = {},
                                           const ProgressFn& progress = nullptr,
                                           const transform::PassControl& control = {});

class Session {
 public:
  static constexpr const char* kDefaultPipeline =
      "LowerInitBlock, ConvertBlocksToOpaque, LowerOpaqueBlock, RemoveNoOp";

  void SetDocument(std::string text, std::string path);
  // Installs an analysis computed elsewhere (off the UI thread) for the current text.
  void SetAnalysis(Analysis analysis);

  const std::string& path() const { return path_; }
  const std::string& text() const { return analysis_.text; }
  const Analysis& analysis() const { return analysis_; }
  bool parsed() const { return analysis_.parse.module.defined(); }

  // The canonical text of the document, or nullopt (with the reason in `diags`) when it does
  // not parse.
  std::optional<std::string> Formatted(DiagnosticList& diags) const;

  // Runs a pipeline over the parsed document. Pipeline text errors, a document that does not
  // parse and failing passes all come back as diagnostics in the result.
  const transform::PipelineResult& RunPipeline(const std::string& pipeline_text,
                                               const transform::PassControl& control = {});
  const transform::PipelineResult& last_run() const { return last_run_; }
  // Installs a run computed elsewhere (RunPipelineOn on a worker thread) as the last run.
  void AdoptRun(transform::PipelineResult run) { last_run_ = std::move(run); }

 private:
  std::string path_ = "<untitled>";
  Analysis analysis_;
  transform::PipelineResult last_run_;
};

}  // namespace wb::workbench
