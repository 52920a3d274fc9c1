// Checking a sequence of transformations one by one: each pass of a pipeline run or each step of
// a schedule, the module after it run against the module before it on the same seeded inputs
// (PrimFuncs through the reference interpreter, Relax functions through the Relax interpreter).
// The first transition whose numbers differ is the one that changed the program's meaning: a
// numeric bisection of the sequence. `--check-each` and the GUI's pass explorer and schedule
// pane all call this.
#pragma once

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "ir/expr.h"
#include "workbench/cancellation.h"
#include "workbench/equivalence.h"

namespace wb::transform {
struct PipelineResult;
}

namespace wb::workbench {

struct ScheduleStep;
struct CompiledModule;

// One transformation: a pass or a schedule step, with the module before and after it.
struct Transition {
  std::string label;  // "pass 3 FuseOps", "step 2 `sch.split(...)`"
  ir::IRModule before;
  ir::IRModule after;
  // Whether the Relax functions are run too. A schedule step changes one PrimFunc, which the
  // PrimFunc check already runs, so steps leave this off (a model's whole Relax graph per step
  // would cost far more than the step's own kernel).
  bool check_relax = true;
  // Where it comes from: the position in the run's snapshots (PassTransitions) or in the steps.
  size_t source = 0;
};

struct TransitionCheck {
  enum class Outcome {
    kEqual,      // every function that could run computes the same numbers
    kChanged,    // some function computes differently, or no longer runs
    kSkipped,    // nothing could be run (too large, no inputs can be made, ...)
    kCancelled,  // not checked: the token was cancelled first
  } outcome = Outcome::kSkipped;
  // One line per function checked: "function `main`: equal", "Relax function `main`: buffer ...".
  std::vector<std::string> lines;
  // The lines of the functions that differ (a subset of `lines`).
  std::vector<std::string> changes;
};

// The passes of a run that changed the module ("pass 3 FuseOps"; passes that left it as it was
// have nothing to check), and the steps of a schedule ("step 2 `sch.split(...)`", the step's
// last statement, PrimFunc checks only).
std::vector<Transition> PassTransitions(const transform::PipelineResult& result);
std::vector<Transition> StepTransitions(const std::vector<ScheduleStep>& steps);

const char* TransitionOutcomeName(TransitionCheck::Outcome outcome);

// The builds of modules checked against their compiled selves (a function too large for the
// interpreter), kept so that a snapshot is built once: a transition's module after is the next
// one's module before. Keeps the latest few.
class CompiledCache {
 public:
  // `module` built for the host without default schedules (what a compiled check compares).
  std::shared_ptr<const CompiledModule> Get(const ir::IRModule& module);
  int builds() const { return builds_; }

 private:
  std::vector<std::pair<ir::IRModule, std::shared_ptr<const CompiledModule>>> entries_;
  int builds_ = 0;
};

// Checks one transition. A function the transition left as the same object is equal without
// being run (a schedule step touches one PrimFunc of the module). `cache` (may be null) shares
// builds between the transitions of a sequence.
TransitionCheck CheckTransition(const Transition& transition, const EquivalenceOptions& options = {},
                                CompiledCache* cache = nullptr);

// Checks every transition in order, reporting progress after each; stops early when
// `stop_at_first_change` (the batch bisection) or when cancelled (the rest come back
// kCancelled). One entry per transition.
std::vector<TransitionCheck> CheckTransitions(const std::vector<Transition>& transitions,
                                              bool stop_at_first_change,
                                              const CancellationToken& token = {},
                                              const ProgressFn& progress = {},
                                              const EquivalenceOptions& options = {});

}  // namespace wb::workbench
