#include "workbench/session.h"

#include "tir/verifier.h"
#include "transform/registry.h"

namespace wb::workbench {

Analysis Analyze(std::string text, std::string path) {
  Analysis a;
  a.parse = script::Parse(text, std::move(path));
  a.diagnostics = a.parse.diagnostics;
  if (a.parse.module.defined() && !a.parse.diagnostics.HasErrors()) {
    a.diagnostics.Append(tir::VerifyWellFormed(a.parse.module));
  }
  a.text = std::move(text);
  return a;
}

void Session::SetDocument(std::string text, std::string path) {
  path_ = std::move(path);
  analysis_ = Analyze(std::move(text), path_);
}

void Session::SetAnalysis(Analysis analysis) { analysis_ = std::move(analysis); }

std::optional<std::string> Session::Formatted(DiagnosticList& diags) const {
  if (!analysis_.parse.ok()) {
    diags.Error("the document does not parse; fix its errors before formatting");
    diags.Append(analysis_.parse.diagnostics);
    return std::nullopt;
  }
  return script::Print(analysis_.parse);
}

transform::PipelineResult RunPipelineOn(const ir::IRModule& module,
                                        const std::string& pipeline_text,
                                        const CancellationToken& token,
                                        const ProgressFn& progress) {
  transform::PipelineResult result;
  result.module = module;
  if (!module.defined()) {
    result.diagnostics.Error("the document does not parse; fix its errors to run passes");
    return result;
  }
  auto pass = transform::BuildPipeline(pipeline_text, result.diagnostics);
  if (!pass) return result;
  transform::PipelineOptions options;
  options.should_stop = [token] { return token.cancelled(); };
  if (progress) {
    options.on_pass = [progress](int index, int total, const std::string& name) {
      progress("pass " + std::to_string(index + 1) + " of " + std::to_string(total) + ": " + name,
               total > 0 ? double(index) / total : 0.0);
    };
  }
  return transform::RunPipeline(*pass, module, options);
}

const transform::PipelineResult& Session::RunPipeline(const std::string& pipeline_text) {
  last_run_ =
      RunPipelineOn(analysis_.parse.ok() ? analysis_.parse.module : ir::IRModule(), pipeline_text);
  return last_run_;
}

}  // namespace wb::workbench
