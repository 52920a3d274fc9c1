#include "driver/module_input.h"

#include <fstream>
#include <optional>
#include <ostream>
#include <sstream>

#include "frontend/load_module.h"
#include "schedule/recipe.h"
#include "transform/registry.h"
#include "workbench/equivalence.h"
#include "workbench/pass_check.h"
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

// --check-each with --schedule: the recipe one statement a step (workbench::ScheduleSession),
// each step's module run against the one before it; the first step that changes the numbers is
// named, exit 1.
int CheckEachStep(const BatchOptions& opts, const ir::IRModule& module, const std::string& recipe,
                  std::ostream& err) {
  workbench::ScheduleSession session;
  DiagnosticList diags = session.Reset(module, opts.func);
  if (!diags.HasErrors()) diags = session.LoadRecipe(recipe, opts.schedule);
  if (diags.HasErrors()) {
    err << RenderDiagnostics(diags, opts.color);
    return 1;
  }
  for (size_t i = 0; i < session.steps().size(); ++i) {
    const workbench::ScheduleStep& step = session.steps()[i];
    std::string label = "step " + std::to_string(i + 1) + " `" + step.text + "`";
    for (const auto& c : workbench::CheckEquivalence(step.before, step.after)) {
      if (Differs(c)) {
        err << "workbench: --check-each: " << label << " changed what function `" << c.name
            << "` computes: " << c.detail << "\n";
        return 1;
      }
      err << "  check " << label << " " << c.name << ": " << workbench::OutcomeName(c.outcome) << "\n";
    }
  }
  return 0;
}

}  // namespace

int CheckEachPass(const transform::PipelineResult& result, std::ostream& err) {
  workbench::PassMeaningCheck check = workbench::CheckEachPass(result);
  auto label = [&](size_t at) {
    const transform::PassSnapshot& snap = result.snapshots[at];
    return "pass " + std::to_string(snap.index + 1) + " " + snap.name;
  };
  for (size_t index : check.equal) err << "  check " << label(index) << ": equal\n";
  if (check.changed < 0) return 0;
  err << "workbench: --check-each: " << label(static_cast<size_t>(check.changed)) << " changed what the module computes:\n";
  for (const auto& line : check.differences) err << "  " << line << "\n";
  return 1;
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
