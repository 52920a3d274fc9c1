#include "driver/module_input.h"

#include <fstream>
#include <optional>
#include <ostream>
#include <sstream>

#include "frontend/load_module.h"
#include "schedule/recipe.h"
#include "transform/registry.h"
#include "transform/relax/semantic_check.h"
#include "workbench/check_each.h"
#include "workbench/equivalence.h"
#include "workbench/schedule_session.h"

namespace wb::driver {

bool ReadFile(const std::string& path, std::string* text) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return false;
  std::ostringstream buf;
  buf << in.rdbuf();
  *text = buf.str();
  return true;
}

bool WriteText(const std::filesystem::path& path, const std::string& text, std::ostream& err) {
  std::ofstream f(path, std::ios::binary);
  if (!f) {
    err << "workbench: cannot write '" << path.string() << "'\n";
    return false;
  }
  f << text;
  return true;
}

// TVMScript or an ONNX model (by extension), through the loader every face shares.
bool ParseFileOrReport(const std::string& path, script::ParseResult* parsed, bool color, std::ostream& err,
                       std::vector<std::string>* output_names) {
  if (!std::ifstream(path, std::ios::binary)) {
    err << "workbench: cannot read file '" << path << "'\n";
    return false;
  }
  *parsed = frontend::LoadModule(path, output_names);
  err << RenderDiagnostics(parsed->diagnostics, color);
  return parsed->ok();
}

namespace {

using workbench::FunctionCheck;

bool Differs(const FunctionCheck& c) {
  return c.outcome == FunctionCheck::Outcome::kDifferent || c.outcome == FunctionCheck::Outcome::kFailed;
}

// The numeric bisection of --check-each (workbench::CheckTransitions, as the GUI runs it): each
// transition's outcome on a line of its own, the first that changes the numbers named with what
// differs, exit 1.
int ReportCheckEach(const std::vector<workbench::Transition>& transitions, std::ostream& err) {
  std::vector<workbench::TransitionCheck> checks = workbench::CheckTransitions(transitions, true);
  for (size_t i = 0; i < checks.size(); ++i) {
    const workbench::TransitionCheck& c = checks[i];
    if (c.outcome == workbench::TransitionCheck::Outcome::kChanged) {
      err << "workbench: --check-each: " << transitions[i].label << " changed what the module computes:\n";
      for (const auto& line : c.changes) err << "  " << line << "\n";
      return 1;
    }
    err << "  check " << transitions[i].label << ": " << workbench::TransitionOutcomeName(c.outcome) << "\n";
    if (c.outcome == workbench::TransitionCheck::Outcome::kSkipped) {
      for (const auto& line : c.lines) err << "    " << line << "\n";
    }
  }
  return 0;
}

// --check-each with --schedule: the recipe one statement a step (workbench::ScheduleSession).
int CheckEachStep(const BatchOptions& opts, const ir::IRModule& module, const std::string& recipe,
                  std::ostream& err) {
  workbench::ScheduleSession session;
  DiagnosticList diags = session.Reset(module, opts.func);
  if (!diags.HasErrors()) diags = session.LoadRecipe(recipe, opts.schedule);
  if (diags.HasErrors()) {
    err << RenderDiagnostics(diags, opts.color);
    return 1;
  }
  return ReportCheckEach(workbench::StepTransitions(session.steps()), err);
}

}  // namespace

int CheckEachPass(const transform::PipelineResult& result, std::ostream& err) {
  return ReportCheckEach(workbench::PassTransitions(result), err);
}

int ApplyScheduleOption(const BatchOptions& opts, ir::IRModule* module, std::ostream& err) {
  std::string recipe;
  if (!ReadFile(opts.schedule, &recipe)) {
    err << "workbench: cannot read file '" << opts.schedule << "'\n";
    return 2;
  }
  std::optional<schedule::Schedule> sch;
  try {
    sch.emplace(*module);
    if (!opts.func.empty()) sch->WorkOn(opts.func);
  } catch (const std::invalid_argument& e) {
    err << "workbench: " << e.what() << "\n";
    return 2;
  }
  DiagnosticList diags = schedule::ApplyRecipe(*sch, recipe, opts.schedule);
  if (diags.HasErrors()) {
    err << RenderDiagnostics(diags, opts.color);
    return 1;
  }
  if (opts.check_each) {
    if (int rc = CheckEachStep(opts, *module, recipe, err)) return rc;
  } else if (opts.check) {
    for (const auto& c : workbench::CheckEquivalence(*module, sch->mod())) {
      if (Differs(c)) {
        err << "workbench: --check: function `" << c.name << "` computes differently after the schedule: "
            << c.detail << "\n";
        return 1;
      }
      err << "  check " << c.name << ": " << workbench::OutcomeName(c.outcome);
      if (!c.detail.empty()) err << " (" << c.detail << ")";
      err << "\n";
    }
  }
  *module = sch->mod();
  return 0;
}

int ApplyPipelineOption(const BatchOptions& opts, ir::IRModule* module, transform::PipelineResult* result,
                        std::ostream& err) {
  DiagnosticList diags;
  auto pass = transform::BuildPipeline(opts.pipeline, diags);
  if (!pass) {
    err << RenderDiagnostics(diags, opts.color);
    return 2;
  }
  *result = transform::RunPipeline(*pass, *module);
  err << RenderDiagnostics(result->diagnostics, opts.color);
  if (!result->ok()) return 1;
  if (opts.check_each) {
    if (int rc = CheckEachPass(*result, err)) return rc;
  }
  *module = result->module;
  return 0;
}

}  // namespace wb::driver
