// Pass -> performance attribution: which passes make a module fast. The module is built and timed
// once with every pass (its --pipeline, then the build's own pipelines: the Relax VM's and the
// TIR lowering), then rebuilt with each of those passes disabled in turn (PassContext's
// disabled_passes) and timed again through the one run-and-check mechanism (run_check.h), so a
// pass whose absence breaks the build, or changes the results, says so instead of a time. Each
// time without a pass is compared with the module with every pass timed again right beside it,
// not with one measurement at the start: on a loaded machine the two then see the same load.
//
// What it does not do: passes that run outside a pipeline (MakePackedAPI, which Build calls
// directly) cannot be disabled and are reported as such; a pass that runs several times is
// disabled everywhere at once.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "codegen/target.h"
#include "ir/expr.h"
#include "workbench/cancellation.h"
#include "workbench/run_check.h"

namespace wb::workbench {

struct PassAttributionRequest {
  ir::IRModule module;     // what the pipeline starts from (scheduled, when it was)
  std::string pipeline;    // pass pipeline text run before the build; empty: none
  codegen::Target target;
  // Inputs, reference, timing of every run; `module` and `profile` are set here.
  RunCheckRequest run;
};

struct PassImpact {
  enum class Outcome {
    kTimed,          // built, ran, matched the reference: the times say the rest
    kBuildFails,     // the build fails without it
    kWrongResults,   // built, but a function no longer matches the reference
    kRunFails,       // built, but a function failed, crashed or timed out
    kNotDisablable,  // it ran although disabled (it runs outside any pipeline)
  };
  std::string pass;
  Outcome outcome = Outcome::kTimed;
  std::string message;   // why it is not kTimed
  // The sum of the functions' median seconds per call with every pass (measured beside this
  // pass's run when it was timed, else the first measurement).
  double with_s = 0;
  double without_s = 0;  // the same without this pass (kTimed only)
  // Per function: name, with, without.
  struct Function {
    std::string name;
    double with_s = 0;
    double without_s = 0;
  };
  std::vector<Function> functions;
  // (without - with) / with, in percent: positive when the module is slower without the pass.
  double change_percent() const { return with_s > 0 ? (without_s - with_s) / with_s * 100 : 0; }
};
const char* PassImpactOutcomeName(PassImpact::Outcome outcome);

struct PassAttribution {
  std::string message;              // when nothing could be attributed (the full build fails)
  std::vector<std::string> passes;  // every pass the full build ran, in order, once each
  RunCheckResult baseline;          // the run with every pass
  std::vector<PassImpact> impacts;  // one per pass, in that order
  bool cancelled = false;
  bool ok() const { return message.empty(); }
};

// Progress: "build without NAME (i/n)" and the run's own stages. Cancelling stops between passes
// (and the runs between samples); the passes attributed so far stay in the result. `on_impact`,
// when set, gets each pass's impact as soon as it is known (on the calling thread).
PassAttribution AttributePasses(const PassAttributionRequest& request,
                                const CancellationToken& token = {},
                                const ProgressFn& progress = {},
                                const std::function<void(const PassImpact&)>& on_impact = {});

// The report as JSON: {"passes": [{"pass", "outcome", "with_s", "without_s", "change_percent",
// "message", "functions": [{"name", "with_s", "without_s"}]}]}.
nlohmann::json ToJson(const PassAttribution& attribution);

}  // namespace wb::workbench
