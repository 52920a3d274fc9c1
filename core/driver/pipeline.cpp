// `workbench --batch FILE --pipeline "PassA, PassB(arg=1)" [--dump-dir DIR] [--check | --check-each]`:
// the module after the passes, each pass's snapshot written to DIR, and the module checked as a
// whole (--check) or pass by pass (--check-each) against the one before it on seeded inputs.
#include <cstdio>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <ostream>

#include "driver/commands.h"
#include "driver/module_input.h"
#include "transform/registry.h"
#include "transform/relax/semantic_check.h"
#include "workbench/equivalence.h"

namespace wb::driver {

namespace {

// One file per pass (`03-FuseOps.before.py` / `.after.py`) plus passes.json.
bool DumpSnapshots(const std::string& dir, const transform::PipelineResult& result,
                   std::ostream& err) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) {
    err << "workbench: cannot create '" << dir << "': " << ec.message() << "\n";
    return false;
  }
  nlohmann::json passes = nlohmann::json::array();
  for (const auto& snap : result.snapshots) {
    char prefix[16];
    std::snprintf(prefix, sizeof(prefix), "%02d-", snap.index + 1);
    std::string stem = std::string(prefix) + snap.name;
    if (!WriteText(std::filesystem::path(dir) / (stem + ".before.py"), snap.BeforeText(), err)) {
      return false;
    }
    if (snap.after.defined() &&
        !WriteText(std::filesystem::path(dir) / (stem + ".after.py"), snap.AfterText(), err)) {
      return false;
    }
    passes.push_back({{"index", snap.index + 1},
                      {"name", snap.name},
                      {"changed", snap.changed()},
                      {"milliseconds", snap.milliseconds},
                      {"before", stem + ".before.py"},
                      {"after", stem + ".after.py"}});
  }
  nlohmann::json diagnostics = nlohmann::json::array();
  for (const auto& d : result.diagnostics) diagnostics.push_back(d.message);
  return WriteText(std::filesystem::path(dir) / "passes.json",
                   nlohmann::json{{"passes", passes}, {"diagnostics", diagnostics}}.dump(2) + "\n",
                   err);
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

}  // namespace

int RunPipelineCommand(const BatchOptions& opts, std::ostream& out, std::ostream& err) {
  script::ParseResult parsed;
  if (!ParseFileOrReport(opts.files[0], &parsed, opts.color, err)) return ParseFailureCode(parsed);
  DiagnosticList diags;
  auto pass = transform::BuildPipeline(opts.pipeline, diags);
  if (!pass) {
    err << RenderDiagnostics(diags, opts.color);
    return 2;
  }
  transform::PipelineResult result = transform::RunPipeline(*pass, parsed.module);
  if (!opts.dump_dir.empty() && !DumpSnapshots(opts.dump_dir, result, err)) return 2;
  err << RenderDiagnostics(result.diagnostics, opts.color);
  for (const auto& snap : result.snapshots) {
    err << "  " << snap.name << (snap.changed() ? "  changed  " : "  unchanged  ") << snap.milliseconds << " ms\n";
  }
  if (!result.ok()) return 1;
  if (opts.check_each) {
    if (int rc = CheckEachPass(result, err)) return rc;
  } else if (opts.check) {
    if (int rc = CheckWhole(parsed.module, result.module, err)) return rc;
  }
  parsed.module = result.module;
  out << script::Print(parsed) << "\n";
  return 0;
}

}  // namespace wb::driver
