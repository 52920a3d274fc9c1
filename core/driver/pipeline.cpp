// `workbench --batch FILE --pipeline "PassA, PassB(arg=1)" [--dump-dir DIR] [--check | --check-each]`:
// the module after the passes, each pass's snapshot written to DIR, and the module checked as a
// whole (--check) or pass by pass (--check-each) against the one before it on seeded inputs.
// `--resume-after K --with EDITED`: edit and resume, passes K+1..n run on the edited module after
// pass K (refused, with the editor's diagnostics, when it does not parse or is ill-formed), and
// --check compares the result with FILE, so an edit that changes the numbers is caught.
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <optional>
#include <ostream>

#include "driver/commands.h"
#include "driver/module_input.h"
#include "transform/registry.h"
#include "transform/relax/semantic_check.h"
#include "workbench/equivalence.h"
#include "workbench/session.h"

namespace wb::driver {

namespace {

// One file per pass (`03-FuseOps.before.py` / `.after.py`) plus passes.json; a resumed run's
// passes are numbered from `resumed_after` + 1, as in the whole pipeline.
bool DumpSnapshots(const std::string& dir, const transform::PipelineResult& result,
                   int resumed_after, const std::string& edited, std::ostream& err) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) {
    err << "workbench: cannot create '" << dir << "': " << ec.message() << "\n";
    return false;
  }
  nlohmann::json passes = nlohmann::json::array();
  for (const auto& snap : result.snapshots) {
    char prefix[16];
    int index = snap.index + 1 + std::max(resumed_after, 0);
    std::snprintf(prefix, sizeof(prefix), "%02d-", index);
    std::string stem = std::string(prefix) + snap.name;
    if (!WriteText(std::filesystem::path(dir) / (stem + ".before.py"), snap.BeforeText(), err)) {
      return false;
    }
    if (snap.after.defined() &&
        !WriteText(std::filesystem::path(dir) / (stem + ".after.py"), snap.AfterText(), err)) {
      return false;
    }
    passes.push_back({{"index", index},
                      {"name", snap.name},
                      {"changed", snap.changed()},
                      {"milliseconds", snap.milliseconds},
                      {"before", stem + ".before.py"},
                      {"after", stem + ".after.py"}});
  }
  nlohmann::json diagnostics = nlohmann::json::array();
  for (const auto& d : result.diagnostics) diagnostics.push_back(d.message);
  nlohmann::json report = {{"passes", passes}, {"diagnostics", diagnostics}};
  if (resumed_after >= 0) report["resumed"] = {{"after", resumed_after}, {"edited", edited}};
  return WriteText(std::filesystem::path(dir) / "passes.json", report.dump(2) + "\n", err);
}

// --check: every function of the input against the pipeline's result.
int CheckWhole(const ir::IRModule& before, const ir::IRModule& after, std::ostream& err) {
  using workbench::FunctionCheck;
  std::vector<std::string> changed;
  for (const auto& c : workbench::CheckEquivalence(before, after)) {
    err << "  check " << c.name << ": " << workbench::OutcomeName(c.outcome);
    if (!c.detail.empty()) err << " (" << c.detail << ")";
    err << "\n";
    if (c.outcome == FunctionCheck::Outcome::kDifferent || c.outcome == FunctionCheck::Outcome::kFailed) {
      changed.push_back(c.name + ": " + c.detail);
    }
  }
  // Relax functions run through the Relax interpreter (op calls legalized, kernels
  // interpreted), compared with the same tolerances.
  for (const auto& c : transform::CheckRelaxEquivalence(before, after)) {
    err << "  check " << c.name << ": " << transform::RelaxOutcomeName(c.outcome);
    if (!c.detail.empty()) err << " (" << c.detail << ")";
    err << "\n";
    if (c.outcome == transform::RelaxFunctionCheck::Outcome::kDifferent ||
        c.outcome == transform::RelaxFunctionCheck::Outcome::kFailed) {
      changed.push_back("Relax function " + c.name + ": " + c.detail);
    }
  }
  if (changed.empty()) return 0;
  err << "workbench: the pipeline changed what the module computes:\n";
  for (const auto& line : changed) err << "  " << line << "\n";
  return 1;
}

// --resume-after K: the passes after the K-th of the pipeline as written (a named pipeline
// expanded), as one pipeline; nullopt after saying why not.
std::optional<ir::Pass> PassesAfter(const std::string& pipeline, int k, bool color, std::ostream& err) {
  DiagnosticList diags;
  std::optional<std::string> rest = workbench::PipelineAfter(pipeline, size_t(k), diags);
  std::optional<ir::Pass> pass;
  if (rest) pass = transform::BuildPipeline(*rest, diags);
  if (!pass) {
    err << "workbench: --resume-after " << k << ":\n" << RenderDiagnostics(diags, color);
  }
  return pass;
}

// The edited module of --with, refused (exit 1) with the editor's diagnostics when it does not
// parse or is not well-formed.
bool ReadEdited(const BatchOptions& opts, script::ParseResult* edited, std::ostream& err) {
  if (!ParseFileOrReport(opts.resume_with, edited, opts.color, err)) return false;
  DiagnosticList findings = script::VerifyWellFormed(*edited);
  err << RenderDiagnostics(findings, opts.color);
  return !findings.HasErrors();
}

}  // namespace

int RunPipelineCommand(const BatchOptions& opts, std::ostream& out, std::ostream& err) {
  script::ParseResult parsed;
  if (!ParseFileOrReport(opts.files[0], &parsed, opts.color, err)) return ParseFailureCode(parsed);
  const bool resume = opts.resume_after >= 0;
  std::optional<ir::Pass> pass;
  if (resume) {
    pass = PassesAfter(opts.pipeline, opts.resume_after, opts.color, err);
  } else {
    DiagnosticList diags;
    pass = transform::BuildPipeline(opts.pipeline, diags);
    err << RenderDiagnostics(diags, opts.color);
  }
  if (!pass) return 2;
  // Resumed, the passes run on the edited module; the input stays what --check compares with.
  script::ParseResult edited;
  if (resume && !ReadEdited(opts, &edited, err)) return ParseFailureCode(edited);
  const script::ParseResult& start = resume ? edited : parsed;
  transform::PipelineResult result = transform::RunPipeline(*pass, start.module);
  if (!opts.dump_dir.empty() &&
      !DumpSnapshots(opts.dump_dir, result, opts.resume_after, opts.resume_with, err)) {
    return 2;
  }
  err << RenderDiagnostics(result.diagnostics, opts.color);
  if (resume) err << "  resumed after pass " << opts.resume_after << " on " << opts.resume_with << "\n";
  for (const auto& snap : result.snapshots) {
    err << "  " << snap.name << (snap.changed() ? "  changed  " : "  unchanged  ") << snap.milliseconds << " ms\n";
  }
  if (!result.ok()) return 1;
  if (opts.check_each) {
    if (int rc = CheckEachPass(result, err)) return rc;
  } else if (opts.check) {
    if (int rc = CheckWhole(parsed.module, result.module, err)) return rc;
  }
  script::ParseResult printed = start;
  printed.module = result.module;
  out << script::Print(printed) << "\n";
  return 0;
}

}  // namespace wb::driver
