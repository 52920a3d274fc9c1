// Shared checks for the TIR lowering pass suites (tst_tir_*.cpp): golden before/after cases
// compared structurally, the interpreter's verdict on seeded random inputs, and the printer /
// parser round trip of lowered TIR. Each check returns an empty string on success, or what went
// wrong (with both texts) for QVERIFY2.
#pragma once

#include <map>
#include <string>

#include "ir/structural_equal.h"
#include "script/tvmscript.h"
#include "transform/instrument.h"
#include "transform/registry.h"
#include "workbench/equivalence.h"

namespace wb::testing {

inline const char* kScriptHeader =
    "# from tvm.script import ir as I\n# from tvm.script import tirx as T\n\n";

inline ir::IRModule ParseModule(const std::string& body, std::string* error) {
  auto r = script::Parse(std::string(kScriptHeader) + body, "case.py");
  if (!r.ok()) {
    *error = "parse failed:\n" + RenderDiagnostics(r.diagnostics) + "\n" + body;
    return {};
  }
  return r.module;
}

// Runs pipeline text (a pass or a list) on `module` with verification after every pass.
inline ir::IRModule RunPasses(const std::string& pipeline, const ir::IRModule& module,
                              std::string* error,
                              const std::map<std::string, ir::ObjectRef>& config = {}) {
  DiagnosticList diags;
  auto pass = transform::BuildPipeline(pipeline, diags);
  if (!pass) {
    *error = RenderDiagnostics(diags);
    return {};
  }
  transform::PipelineOptions options;
  options.control.config = config;
  auto result = transform::RunPipeline(*pass, module, options);
  if (!result.ok()) {
    *error = RenderDiagnostics(result.diagnostics) + "\n--- input:\n" + script::PrintModule(module);
    return {};
  }
  return result.module;
}

// print(parse(print(m))) == print(m) and parse(print(m)) is structurally m.
inline std::string CheckRoundTrip(const ir::IRModule& module) {
  std::string text = script::PrintModule(module);
  auto reparsed = script::Parse(text, "printed.py");
  if (!reparsed.ok()) {
    return "printed text does not parse:\n" + RenderDiagnostics(reparsed.diagnostics) + "\n" + text;
  }
  if (auto m = ir::FindFirstMismatch(module, reparsed.module)) {
    return "reparsed module differs at " + m->lhs_path + " (" + m->reason + "):\n" + text;
  }
  std::string again = script::PrintModule(reparsed.module);
  if (again != text) return "printing is not stable:\n" + text + "\n--- again:\n" + again;
  return "";
}

// The interpreter gives the same buffers before and after, and really compared something.
inline std::string CheckSameMeaning(const ir::IRModule& before, const ir::IRModule& after,
                                    uint64_t seed = 7) {
  workbench::EquivalenceOptions options;
  options.seed = seed;
  int compared = 0;
  std::string problems;
  for (const auto& check : workbench::CheckEquivalence(before, after, options)) {
    using O = workbench::FunctionCheck::Outcome;
    if (check.outcome == O::kEqual) ++compared;
    else problems += check.name + ": " + workbench::OutcomeName(check.outcome) + ": " +
                     check.detail + "\n";
  }
  if (!problems.empty()) {
    return problems + "--- before:\n" + script::PrintModule(before) + "\n--- after:\n" +
           script::PrintModule(after);
  }
  if (compared == 0) return "no function was compared";
  return "";
}

// `pipeline` turns `before` into exactly `after`; the result keeps the meaning of `before` and
// round-trips through the printer and parser.
inline std::string CheckGolden(const std::string& pipeline, const std::string& before,
                               const std::string& after,
                               const std::map<std::string, ir::ObjectRef>& config = {}) {
  std::string error;
  ir::IRModule input = ParseModule(before, &error);
  if (!error.empty()) return error;
  ir::IRModule expected = ParseModule(after, &error);
  if (!error.empty()) return error;
  ir::IRModule got = RunPasses(pipeline, input, &error, config);
  if (!error.empty()) return error;
  if (auto m = ir::FindFirstMismatch(got, expected)) {
    return "mismatch at " + m->lhs_path + " (" + m->reason + ")\n--- got:\n" +
           script::PrintModule(got) + "\n--- expected:\n" + script::PrintModule(expected);
  }
  if (std::string e = CheckRoundTrip(got); !e.empty()) return e;
  return CheckSameMeaning(input, got);
}

}  // namespace wb::testing
