#include "workbench/session.h"

#include "ir/structural_hash.h"
#include "transform/registry.h"

namespace wb::workbench {

Analysis Analyze(std::string text, std::string path) {
  Analysis a;
  a.parse = script::Parse(text, std::move(path));
  a.diagnostics = a.parse.diagnostics;
  if (a.parse.module.defined() && !a.parse.diagnostics.HasErrors()) {
    a.diagnostics.Append(script::VerifyWellFormed(a.parse));
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
                                        const ProgressFn& progress,
                                        const transform::PassControl& control) {
  transform::PipelineResult result;
  result.module = module;
  if (!module.defined()) {
    result.diagnostics.Error("the document does not parse; fix its errors to run passes");
    return result;
  }
  auto pass = transform::BuildPipeline(pipeline_text, result.diagnostics);
  if (!pass) return result;
  transform::PipelineOptions options;
  options.control = control;
  options.should_stop = [token] { return token.cancelled(); };
  if (progress) {
    options.on_pass = [progress](int index, int total, const std::string& name) {
      progress("pass " + std::to_string(index + 1) + " of " + std::to_string(total) + ": " + name,
               total > 0 ? double(index) / total : 0.0);
    };
  }
  return transform::RunPipeline(*pass, module, options);
}

std::optional<std::string> PipelineAfter(const std::string& pipeline_text, size_t k,
                                         DiagnosticList& diags) {
  auto specs = transform::ParsePipeline(pipeline_text, diags);
  if (!specs) return std::nullopt;
  if (k >= specs->size()) {
    diags.Error("the pipeline has " + std::to_string(specs->size()) + " passes, so at most " +
                std::to_string(specs->size() - 1) + " can be skipped");
    return std::nullopt;
  }
  return transform::PipelineText({specs->begin() + long(k), specs->end()});
}

transform::PipelineResult ResumePipelineOn(const transform::PipelineResult& run, int index,
                                           const std::string& edited_text,
                                           const std::string& pipeline_text,
                                           const CancellationToken& token,
                                           const ProgressFn& progress,
                                           const transform::PassControl& control) {
  transform::PipelineResult result;
  result.resumed_after = index;
  if (index < 0 || index >= int(run.snapshots.size())) {
    result.diagnostics.Error("there is no pass " + std::to_string(index + 1) + " to resume after");
    return result;
  }
  Analysis edited = Analyze(edited_text, "<module after " + run.snapshots[index].name + ">");
  if (edited.diagnostics.HasErrors() || !edited.parse.module.defined()) {
    result.diagnostics = edited.diagnostics;
    result.module = run.snapshots[index].after;
    return result;
  }
  // The snapshot's place in the pipeline as written: passes it disabled did not run, so the
  // snapshots match the pipeline's passes in order with those left out.
  DiagnosticList diags;
  auto specs = transform::ParsePipeline(pipeline_text, diags);
  size_t position = 0, matched = 0;
  bool found = false;
  for (size_t i = 0; specs && i < specs->size() && !found; ++i) {
    if ((*specs)[i].name != run.snapshots[matched].name) continue;
    if (int(matched) == index) {
      position = i;
      found = true;
    }
    ++matched;
  }
  if (!found) {
    result.diagnostics.Error("pass " + std::to_string(index + 1) + " (" + run.snapshots[index].name +
                             ") is not a pass of the pipeline '" + pipeline_text + "'");
    result.diagnostics.Append(diags);
    return result;
  }
  result.snapshots.assign(run.snapshots.begin(), run.snapshots.begin() + index + 1);
  transform::PassSnapshot& last = result.snapshots.back();
  last.after = edited.parse.module;
  last.hash_after = ir::StructuralHash(last.after);
  result.module = last.after;
  if (position + 1 == specs->size()) return result;  // nothing after it
  auto rest = transform::BuildPipeline(
      transform::PipelineText({specs->begin() + long(position) + 1, specs->end()}), result.diagnostics);
  if (!rest) return result;
  transform::PipelineOptions options;
  options.control = control;
  options.should_stop = [token] { return token.cancelled(); };
  if (progress) {
    options.on_pass = [progress, index](int i, int total, const std::string& name) {
      progress("pass " + std::to_string(index + 2 + i) + " of " + std::to_string(index + 1 + total) +
                   ": " + name + " (resumed)",
               total > 0 ? double(i) / total : 0.0);
    };
  }
  transform::PipelineResult tail = transform::RunPipeline(*rest, last.after, options);
  for (auto& snap : tail.snapshots) {
    snap.index += index + 1;
    result.snapshots.push_back(std::move(snap));
  }
  result.module = tail.module;
  result.diagnostics = std::move(tail.diagnostics);
  result.cancelled = tail.cancelled;
  result.total_passes = index + 1 + tail.total_passes;
  return result;
}

const transform::PipelineResult& Session::RunPipeline(const std::string& pipeline_text,
                                                      const transform::PassControl& control) {
  last_run_ = RunPipelineOn(analysis_.parse.ok() ? analysis_.parse.module : ir::IRModule(),
                            pipeline_text, {}, nullptr, control);
  return last_run_;
}

}  // namespace wb::workbench
