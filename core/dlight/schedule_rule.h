// core/dlight: deterministic default schedules, TVM's DLight for the CPU. A rule looks at one
// PrimFunc and the target and either returns a schedule (a schedule::Schedule whose trace is
// the recipe: it prints in TVM's trace syntax, replays and can be edited like any other) or
// says it does not apply. Rules are tried in order; the last one of a rule list (Fallback)
// always applies.
//
// A rule never produces wrong code: every step is a checked schedule primitive (a primitive
// whose preconditions fail throws, and the rule then does not apply), and a rule only applies
// where its pattern is proven on the IR (for example, Matmul only on a block that is provably
// C[i, j] += A[i, k] * B[k, j]).
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "codegen/target.h"
#include "schedule/schedule.h"
#include "tir/stmt.h"

namespace wb::dlight {

struct ScheduleRule {
  std::string name;  // TVM's rule name where TVM has the rule ("Matmul", "Fallback", ...)
  // The schedule, or nullopt when the rule does not apply. May throw schedule::ScheduleError
  // (or std::invalid_argument) from a primitive: that too means "does not apply".
  std::function<std::optional<schedule::Schedule>(const tir::PrimFunc&, const codegen::Target&)>
      apply;
};

// The schedule a rule chose for a function.
struct AppliedRule {
  std::string rule;
  schedule::Schedule schedule;
};

// The first rule of `rules` that applies to `func`, or nullopt when none does. The schedule
// works on a module holding `func` alone, named "main" (as TVM's dlight does), so its trace
// replays onto that function wherever it sits.
std::optional<AppliedRule> ApplyRules(const tir::PrimFunc& func, const codegen::Target& target,
                                      const std::vector<ScheduleRule>& rules);

// The rule's schedule as recipe text for the function where it sits in a module, named
// `func_name` there (the trace's lookups name the function "main" otherwise).
std::string RecipeFor(const AppliedRule& applied, const std::string& func_name);

// The module a rule's schedule works on: `func` as "main".
ir::IRModule SingleFunctionModule(const tir::PrimFunc& func);

// Whether `func` already carries a schedule, so that the default schedules leave it alone: its
// "tir.is_scheduled" attribute when it has one (set on what the default schedules produce, as
// TVM does; False asks for a default schedule whatever the loops look like), else any sign of a
// schedule in its body: a loop that is not serial (parallel, vectorized, unrolled, bound to a
// thread) or carries an annotation, a block with annotations or nested in a block below the
// root, or a block whose loops are not one serial loop per iterator in the iterators' order
// (what split, fuse, reorder, tile, compute_at, blockize leave). A recipe that only inlines or
// adds cache stages leaves none of these signs: mark such a function with
// T.func_attr({"tir.is_scheduled": True}) to keep the default schedules off it.
bool IsScheduled(const tir::PrimFunc& func);

}  // namespace wb::dlight
