// What the Relax pass tests share: a golden case runs a pipeline on TVMScript text, compares the
// result structurally with the expected TVMScript text, and runs every Relax function of the
// module before and after on seeded random inputs through the Relax interpreter.
#pragma once

#include <string>

#include "ir/structural_equal.h"
#include "relax/well_formed.h"
#include "script/tvmscript.h"
#include "transform/instrument.h"
#include "transform/registry.h"
#include "transform/relax/semantic_check.h"

namespace relax_pass_test {

inline wb::ir::IRModule ParseModule(const std::string& text, std::string* error) {
  wb::script::ParseResult parsed = wb::script::Parse(text, "case.py");
  if (!parsed.ok()) {
    for (const auto& d : parsed.diagnostics) {
      *error += std::to_string(d.span.start().line) + ": " + d.message + "\n";
    }
    return {};
  }
  return parsed.module;
}

// Runs `pipeline` on `module`; the error (empty on success) goes to *error.
inline wb::ir::IRModule RunPasses(const std::string& pipeline, const wb::ir::IRModule& module,
                                  std::string* error) {
  wb::DiagnosticList diags;
  auto pass = wb::transform::BuildPipeline(pipeline, diags);
  if (!pass) {
    *error = "pipeline does not build: " + (diags.empty() ? std::string() : diags[0].message);
    return {};
  }
  wb::transform::PipelineResult result = wb::transform::RunPipeline(*pass, module);
  if (!result.ok()) {
    *error = "pipeline failed: " + result.diagnostics[0].message;
    return {};
  }
  return result.module;
}

// Every Relax function that is still there computes the same before and after; "" when so.
inline std::string SameResults(const wb::ir::IRModule& before, const wb::ir::IRModule& after) {
  std::string problems;
  int compared = 0;
  for (const auto& c : wb::transform::CheckRelaxEquivalence(before, after)) {
    if (!after->Lookup(c.name).defined()) continue;  // removed by the pass (DeadCodeElimination)
    if (c.outcome == wb::transform::RelaxFunctionCheck::Outcome::kEqual) {
      ++compared;
      continue;
    }
    problems += c.name + ": " + wb::transform::RelaxOutcomeName(c.outcome) + " (" + c.detail + ")\n";
  }
  if (problems.empty() && compared == 0) problems = "no Relax function was compared\n";
  return problems;
}

// The golden case on a module built in C++ (for input the parser cannot produce).
inline std::string GoldenCase(const std::string& pipeline, const wb::ir::IRModule& in,
                              const std::string& expected, bool semantic = true) {
  std::string error;
  wb::ir::IRModule want = ParseModule(expected, &error);
  if (!want.defined()) return "the expected module does not parse:\n" + error;
  wb::ir::IRModule out = RunPasses(pipeline, in, &error);
  if (!out.defined()) return error;
  if (auto mismatch = wb::ir::FindFirstMismatch(out, want)) {
    return "result differs from the expected module at " + mismatch->lhs_path + ":\n" +
           wb::script::PrintModule(out) + "\n--- expected:\n" + wb::script::PrintModule(want);
  }
  wb::DiagnosticList wf = wb::relax::VerifyWellFormed(out);
  if (wf.HasErrors()) return "the result is not well-formed: " + wf[0].message;
  // The result must also print to text that parses back to it (what the GUI and dumps show).
  wb::ir::IRModule reparsed = ParseModule(wb::script::PrintModule(out), &error);
  if (!reparsed.defined()) return "the printed result does not parse:\n" + error;
  if (semantic) {
    std::string diff = SameResults(in, out);
    if (!diff.empty()) return "the pass changed what the module computes:\n" + diff;
  }
  return "";
}

// The golden case: "" when `pipeline` turns `before` into `expected` (structurally), the result
// is well-formed and prints to text that parses, and the module computes the same before and
// after.
inline std::string GoldenCase(const std::string& pipeline, const std::string& before,
                              const std::string& expected, bool semantic = true) {
  std::string error;
  wb::ir::IRModule in = ParseModule(before, &error);
  if (!in.defined()) return "the input does not parse:\n" + error;
  return GoldenCase(pipeline, in, expected, semantic);
}

}  // namespace relax_pass_test
