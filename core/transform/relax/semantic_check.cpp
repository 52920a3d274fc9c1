#include "transform/relax/semantic_check.h"

#include <cstdio>
#include <functional>

#include "transform/relax/bind_params.h"
#include "transform/relax/legalize_ops.h"
#include "transform/relax/lift_transform_params.h"

namespace wb::transform {

using Outcome = RelaxFunctionCheck::Outcome;

relax::RelaxInterpretOptions InterpreterOptions() {
  relax::RelaxInterpretOptions options;
  options.legalize = LegalizeCall;
  return options;
}

const char* RelaxOutcomeName(Outcome outcome) {
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

std::vector<RelaxFunctionCheck> CheckRelaxEquivalence(const ir::IRModule& before,
                                                      const ir::IRModule& after,
                                                      const RelaxCheckOptions& options) {
  std::vector<RelaxFunctionCheck> checks;
  relax::RelaxInterpretOptions run = InterpreterOptions();
  run.print = [](const std::string&) {};  // a check prints nothing of the program's own
  for (size_t i = 0; i < before->functions.size(); ++i) {
    auto func = before->functions[i].as_ref<relax::FunctionNode>();
    if (!func.defined()) continue;
    RelaxFunctionCheck check;
    check.name = before->global_vars[i]->name_hint;
    if (!after->Lookup(check.name).as<relax::FunctionNode>()) {
      check.outcome = Outcome::kSkipped;
      check.detail = "no Relax function of that name after the transformation";
      checks.push_back(check);
      continue;
    }
    auto transformed = after->Lookup(check.name).as_ref<relax::FunctionNode>();
    if (KeptParams(func, transformed)) {
      check.outcome = Outcome::kSkipped;
      check.detail = "parameters were bound to constants (BindParams), whose values the original needs";
      checks.push_back(check);
      continue;
    }
    std::string why;
    auto args = relax::RandomArguments(func, options.seed, options.symbolic_extent, &why);
    if (!args) {
      check.outcome = Outcome::kSkipped;
      check.detail = why;
      checks.push_back(check);
      continue;
    }
    // Kernels may write their arguments in place (call_tir_inplace): each run gets its own copy.
    auto copy = [](std::vector<relax::Value> values) {
      std::function<void(relax::Value&)> deep = [&](relax::Value& v) {
        if (v.kind == relax::Value::Kind::kTensor) v.tensor = v.tensor.Copy();
        for (auto& f : v.fields) deep(f);
      };
      for (auto& v : values) deep(v);
      return values;
    };
    relax::RelaxInterpretResult r1 = relax::InterpretRelax(before, check.name, copy(*args), run);
    if (!r1.ok()) {
      check.outcome = Outcome::kSkipped;
      check.detail = "the original does not run: " + r1.diagnostics[0].message;
      checks.push_back(check);
      continue;
    }
    // A function that LiftTransformParams split runs as its callers run it: the transform of its
    // weights once, then the function on its inputs and what the transform returned.
    std::vector<relax::Value> after_args = copy(*args);
    auto lifted = FindLiftedParams(before, check.name) ? std::nullopt : FindLiftedParams(after, check.name);
    if (lifted && lifted->num_input <= after_args.size()) {
      std::vector<relax::Value> weights(after_args.begin() + lifted->num_input, after_args.end());
      relax::RelaxInterpretResult t =
          relax::InterpretRelax(after, lifted->transform, {relax::Value::TupleOf(std::move(weights))}, run);
      if (!t.ok()) {
        check.outcome = Outcome::kFailed;
        check.detail = "its transform function " + lifted->transform + " does not run: " + t.diagnostics[0].message;
        checks.push_back(check);
        continue;
      }
      after_args.resize(lifted->num_input);
      for (const relax::Value& v : t.value.fields) after_args.push_back(v);
    }
    relax::RelaxInterpretResult r2 = relax::InterpretRelax(after, check.name, std::move(after_args), run);
    if (!r2.ok()) {
      check.outcome = Outcome::kFailed;
      check.detail = "the transformed function does not run: " + r2.diagnostics[0].message;
      checks.push_back(check);
      continue;
    }
    relax::ValueComparison cmp = relax::CompareValues(r2.value, r1.value);
    check.max_abs_error = cmp.max_abs_error;
    if (!cmp.ok) {
      check.outcome = Outcome::kDifferent;
      char err[64];
      std::snprintf(err, sizeof(err), "%g", cmp.max_abs_error);
      check.detail = cmp.message + " (max abs error " + err + ")";
    }
    checks.push_back(check);
  }
  return checks;
}

}  // namespace wb::transform
