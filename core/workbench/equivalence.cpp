#include "workbench/equivalence.h"

#include <optional>

#include "runtime/ndarray.h"
#include "tir/interpreter.h"
#include "workbench/run_inputs.h"

namespace wb::workbench {

namespace {

using Outcome = FunctionCheck::Outcome;

// Seeded inputs for `func` from the one input maker (run_inputs.h): every buffer gets random
// contents (outputs too, so a pass that forgets to write something is caught), every scalar and
// symbolic dim the symbolic extent. Empty, with the reason in *skip, when it cannot run.
std::optional<PrimFuncInputs> MakeInputs(const tir::PrimFunc& func, const std::string& name,
                                         const EquivalenceOptions& options, std::string* skip) {
  PrimFuncInputs in;
  InputSpec spec{"", options.seed, options.symbolic_extent};
  if (!MakePrimFuncInputs(func, name, spec, &in, skip)) return std::nullopt;
  int64_t elements = 0;
  for (const auto& a : in.arrays) elements += a.defined() ? a.NumElements() : 0;
  if (elements > options.max_elements) {
    *skip = "arguments too large for the interpreter";
    return std::nullopt;
  }
  return in;
}

}  // namespace

const char* OutcomeName(Outcome outcome) {
  switch (outcome) {
    case Outcome::kEqual:
      return "equal";
    case Outcome::kDifferent:
      return "different";
    case Outcome::kFailed:
      return "failed";
    case Outcome::kSkipped:
      return "skipped";
  }
  return "unknown";
}

std::vector<FunctionCheck> CheckEquivalence(const ir::IRModule& before, const ir::IRModule& after,
                                            const EquivalenceOptions& options) {
  std::vector<FunctionCheck> checks;
  for (size_t i = 0; i < before->functions.size(); ++i) {
    auto func = before->functions[i].as_ref<tir::PrimFuncNode>();
    if (!func.defined()) continue;
    FunctionCheck check;
    check.name = before->global_vars[i]->name_hint;
    auto other = after->Lookup(check.name).as_ref<tir::PrimFuncNode>();
    if (!other.defined()) {
      check.outcome = Outcome::kSkipped;
      check.detail = "no PrimFunc of that name after the transformation";
      checks.push_back(check);
      continue;
    }
    if (other.get() == func.get()) {
      // Untouched by the transformation (a schedule step changes one PrimFunc of a module).
      check.detail = "unchanged";
      checks.push_back(check);
      continue;
    }
    std::string skip;
    std::optional<PrimFuncInputs> inputs = MakeInputs(func, check.name, options, &skip);
    if (!inputs) {
      check.outcome = Outcome::kSkipped;
      check.detail = skip;
      checks.push_back(check);
      continue;
    }
    PrimFuncInputs lhs = inputs->Copy(), rhs = inputs->Copy();
    tir::InterpretOptions run_options;
    run_options.max_iterations = options.max_iterations;
    auto r1 = tir::InterpretModule(before, check.name, lhs.InterpArgs(func), run_options);
    if (!r1.ok()) {
      check.outcome = Outcome::kSkipped;
      check.detail = "the original does not run: " + r1.diagnostics[0].message;
      checks.push_back(check);
      continue;
    }
    auto r2 = tir::InterpretModule(after, check.name, rhs.InterpArgs(other), run_options);
    if (!r2.ok()) {
      check.outcome = Outcome::kFailed;
      check.detail = "the transformed function does not run: " + r2.diagnostics[0].message;
    } else {
      for (size_t k = 0; k < lhs.arrays.size(); ++k) {
        if (!lhs.arrays[k].defined()) continue;
        runtime::CompareResult cmp = runtime::Compare(rhs.arrays[k], lhs.arrays[k]);
        if (!cmp.ok) {
          check.outcome = Outcome::kDifferent;
          check.detail = "buffer '" + inputs->names[k] + "' differs: " + cmp.message;
          break;
        }
      }
    }
    checks.push_back(check);
  }
  return checks;
}

}  // namespace wb::workbench
