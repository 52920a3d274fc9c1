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

std::optional<std::string> RefuseTestingPasses(const std::string& pipeline_text) {
  DiagnosticList ignored;  // a malformed pipeline is reported by whoever builds it
  auto specs = transform::ParsePipeline(pipeline_text, ignored);
  if (!specs) return std::nullopt;
  for (const transform::PassSpec& spec : *specs) {
    if (spec.name.rfind("Testing", 0) == 0) {
      return "pass '" + spec.name + "' exists only to test failure handling in batch runs; it is "
             "not run here";
    }
  }
  return std::nullopt;
}

const transform::PipelineResult& Session::RunPipeline(const std::string& pipeline_text) {
  last_run_ = transform::PipelineResult();
  if (auto refusal = RefuseTestingPasses(pipeline_text)) {
    last_run_.diagnostics.Error(*refusal);
    return last_run_;
  }
  if (!analysis_.parse.ok()) {
    last_run_.diagnostics.Error("the document does not parse; fix its errors to run passes");
    return last_run_;
  }
  auto pass = transform::BuildPipeline(pipeline_text, last_run_.diagnostics);
  if (!pass) return last_run_;
  last_run_ = transform::RunPipeline(*pass, analysis_.parse.module);
  return last_run_;
}

}  // namespace wb::workbench
