#include "workbench/check_each.h"

#include "transform/instrument.h"
#include "transform/relax/semantic_check.h"
#include "workbench/run_check.h"
#include "workbench/schedule_session.h"

namespace wb::workbench {

std::vector<Transition> PassTransitions(const transform::PipelineResult& result) {
  std::vector<Transition> transitions;
  for (size_t i = 0; i < result.snapshots.size(); ++i) {
    const auto& snap = result.snapshots[i];
    if (!snap.changed() || !snap.before.defined() || !snap.after.defined()) continue;
    transitions.push_back({"pass " + std::to_string(snap.index + 1) + " " + snap.name, snap.before, snap.after,
                           /*check_relax=*/true, i});
  }
  return transitions;
}

std::vector<Transition> StepTransitions(const std::vector<ScheduleStep>& steps) {
  std::vector<Transition> transitions;
  for (size_t i = 0; i < steps.size(); ++i) {
    transitions.push_back({"step " + std::to_string(i + 1) + " `" + steps[i].Title() + "`", steps[i].before, steps[i].after,
                           /*check_relax=*/false, i});
  }
  return transitions;
}

const char* TransitionOutcomeName(TransitionCheck::Outcome outcome) {
  switch (outcome) {
    case TransitionCheck::Outcome::kEqual:
      return "equal";
    case TransitionCheck::Outcome::kChanged:
      return "changed";
    case TransitionCheck::Outcome::kSkipped:
      return "skipped";
    case TransitionCheck::Outcome::kCancelled:
      return "cancelled";
  }
  return "unknown";
}

namespace {

// A PrimFunc the interpreter could not check (too large for it, or something it cannot
// evaluate), checked as `--reference compiled` does: the function after the transition built
// with LLVM and run against the function before it built the same way, in a child process, on
// the same seeded inputs. Both sides go through this project's codegen, so this catches what the
// transition changed, not a codegen bug both share.
// Both sides are built without default schedules: the check is of what the transition changed
// (a default schedule of the module after it is checked where it is applied), and so a snapshot's
// build serves as the module after one transition and the module before the next.
FunctionCheck CheckCompiled(const Transition& t, const FunctionCheck& skipped, const EquivalenceOptions& options,
                            CompiledCache& cache) {
  RunCheckRequest request;
  request.module = t.after;
  request.reference_module = t.before;
  request.functions = {skipped.name};
  request.seed = options.seed;
  request.symbolic_extent = options.symbolic_extent;
  request.reference = ReferenceKind::kCompiled;
  request.compiled_reference = cache.Get(t.before);
  std::shared_ptr<const CompiledModule> after = cache.Get(t.after);
  RunCheckResult run;
  if (!after->ok()) {
    run.message = "the build of the module after it failed: " + RenderDiagnostics(after->diagnostics);
  } else {
    run = RunCompiled(*after, request);
  }
  FunctionCheck check = skipped;
  const FunctionResult* r = run.Find(skipped.name);
  if (!r) {
    check.detail += "; the compiled check did not run: " + (run.message.empty() ? "no result" : run.message);
    return check;
  }
  switch (r->status) {
    case RunStatus::kOk:
      check.outcome = FunctionCheck::Outcome::kEqual;
      check.detail = "against the compiled function before it";
      break;
    case RunStatus::kMismatch:
      check.outcome = FunctionCheck::Outcome::kDifferent;
      check.detail = r->message + " (against the compiled function before it)";
      break;
    case RunStatus::kCrashed:
    case RunStatus::kTimedOut:
    case RunStatus::kOutOfMemory:
      check.outcome = FunctionCheck::Outcome::kFailed;
      check.detail = std::string("the transformed function, compiled, ") + RunStatusName(r->status) + ": " + r->message;
      break;
    default:  // kFailed (a build failed, no inputs), kCancelled
      check.detail += "; the compiled check: " + r->message;
      break;
  }
  return check;
}

}  // namespace

std::shared_ptr<const CompiledModule> CompiledCache::Get(const ir::IRModule& module) {
  for (const auto& [m, built] : entries_) {
    if (m.same_as(module)) return built;
  }
  ++builds_;
  auto built = std::make_shared<const CompiledModule>(Compile(module, codegen::Target::Host(), /*default_schedule=*/false));
  entries_.emplace_back(module, built);
  // A sequence needs the last module after; keep a few.
  if (entries_.size() > 4) entries_.erase(entries_.begin());
  return built;
}

TransitionCheck CheckTransition(const Transition& t, const EquivalenceOptions& options, CompiledCache* cache) {
  CompiledCache local;
  if (!cache) cache = &local;
  TransitionCheck check;
  bool ran = false;
  // One function's outcome: a line always, a change when it differs or no longer runs.
  auto add = [&](const std::string& what, const std::string& name, const char* outcome, bool changed,
                 bool skipped, const std::string& detail) {
    std::string line = what + " `" + name + "`: " + outcome;
    if (!detail.empty()) line += " (" + detail + ")";
    check.lines.push_back(line);
    if (changed) check.changes.push_back(what + " `" + name + "`: " + detail);
    ran = ran || !skipped;
  };
  for (FunctionCheck c : CheckEquivalence(t.before, t.after, options)) {
    using Outcome = FunctionCheck::Outcome;
    if (c.outcome == Outcome::kSkipped && options.compiled_fallback && t.after->Lookup(c.name).defined()) {
      c = CheckCompiled(t, c, options, *cache);
    }
    add("function", c.name, OutcomeName(c.outcome), c.outcome == Outcome::kDifferent || c.outcome == Outcome::kFailed,
        c.outcome == Outcome::kSkipped, c.detail);
  }
  if (t.check_relax) {
    transform::RelaxCheckOptions relax_options;
    relax_options.seed = options.seed;
    relax_options.symbolic_extent = options.symbolic_extent;
    for (const auto& c : transform::CheckRelaxEquivalence(t.before, t.after, relax_options)) {
      using Outcome = transform::RelaxFunctionCheck::Outcome;
      add("Relax function", c.name, transform::RelaxOutcomeName(c.outcome),
          c.outcome == Outcome::kDifferent || c.outcome == Outcome::kFailed, c.outcome == Outcome::kSkipped,
          c.detail);
    }
  }
  check.outcome = !check.changes.empty() ? TransitionCheck::Outcome::kChanged
                  : ran                  ? TransitionCheck::Outcome::kEqual
                                         : TransitionCheck::Outcome::kSkipped;
  return check;
}

std::vector<TransitionCheck> CheckTransitions(const std::vector<Transition>& transitions,
                                              bool stop_at_first_change, const CancellationToken& token,
                                              const ProgressFn& progress, const EquivalenceOptions& options) {
  std::vector<TransitionCheck> checks(transitions.size());
  for (auto& c : checks) c.outcome = TransitionCheck::Outcome::kCancelled;
  CompiledCache cache;
  for (size_t i = 0; i < transitions.size(); ++i) {
    if (token.cancelled()) break;
    if (progress) progress("checking " + transitions[i].label, static_cast<double>(i) / transitions.size());
    checks[i] = CheckTransition(transitions[i], options, &cache);
    if (stop_at_first_change && checks[i].outcome == TransitionCheck::Outcome::kChanged) {
      checks.resize(i + 1);
      break;
    }
  }
  if (progress) progress("checked", 1.0);
  return checks;
}

}  // namespace wb::workbench
