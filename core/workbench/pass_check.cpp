#include "workbench/pass_check.h"

#include "transform/relax/semantic_check.h"
#include "workbench/equivalence.h"

namespace wb::workbench {

PassMeaningCheck CheckEachPass(const transform::PipelineResult& run, const CancellationToken& token,
                               const ProgressFn& progress) {
  PassMeaningCheck out;
  const size_t n = run.snapshots.size();
  for (size_t i = 0; i < n; ++i) {
    const transform::PassSnapshot& snap = run.snapshots[i];
    if (!snap.changed() || !snap.after.defined()) continue;
    if (token.cancelled()) {
      out.cancelled = true;
      return out;
    }
    if (progress) {
      progress("check pass " + std::to_string(snap.index + 1) + " of " + std::to_string(n) + ": " + snap.name,
               double(i) / double(n));
    }
    for (const FunctionCheck& c : CheckEquivalence(snap.before, snap.after)) {
      if (c.outcome == FunctionCheck::Outcome::kDifferent || c.outcome == FunctionCheck::Outcome::kFailed) {
        out.differences.push_back("function `" + c.name + "`: " + c.detail);
      }
    }
    for (const auto& c : transform::CheckRelaxEquivalence(snap.before, snap.after)) {
      if (c.outcome == transform::RelaxFunctionCheck::Outcome::kDifferent ||
          c.outcome == transform::RelaxFunctionCheck::Outcome::kFailed) {
        out.differences.push_back("Relax function `" + c.name + "`: " + c.detail);
      }
    }
    if (!out.differences.empty()) {
      out.changed = static_cast<int>(i);
      return out;
    }
    out.equal.push_back(i);
  }
  return out;
}

}  // namespace wb::workbench
