#include "workbench/pass_attribution.h"

#include <algorithm>
#include <memory>
#include <nlohmann/json.hpp>

#include "transform/instrument.h"
#include "transform/registry.h"

namespace wb::workbench {

const char* PassImpactOutcomeName(PassImpact::Outcome outcome) {
  switch (outcome) {
    case PassImpact::Outcome::kTimed: return "timed";
    case PassImpact::Outcome::kBuildFails: return "build_fails";
    case PassImpact::Outcome::kWrongResults: return "wrong_results";
    case PassImpact::Outcome::kRunFails: return "run_fails";
    case PassImpact::Outcome::kNotDisablable: return "not_disablable";
  }
  return "unknown";
}

namespace {

// The names of the passes that ran, in order, once each.
class PassRecorder : public ir::PassInstrument {
 public:
  std::string name() const override { return "PassRecorder"; }
  void RunBeforePass(const ir::IRModule&, const ir::PassInfo& info) override { Add(info.name); }
  void Add(const std::string& pass) {
    if (std::find(names_.begin(), names_.end(), pass) == names_.end()) names_.push_back(pass);
  }
  const std::vector<std::string>& names() const { return names_; }

 private:
  std::vector<std::string> names_;
};

struct Built {
  ir::IRModule module;  // after the pipeline
  CompiledModule compiled;
  std::string error;    // the pipeline or the build failed
  std::vector<std::string> passes;
};

// The pipeline and the build under the current context, with `disabled` (when not empty) among
// its disabled passes.
Built BuildWithout(const PassAttributionRequest& request, const std::string& disabled) {
  Built out;
  ir::PassContext context = ir::PassContext::Current();
  if (!disabled.empty()) context.disabled_passes.push_back(disabled);
  auto recorder = std::make_shared<PassRecorder>();
  context.instruments.push_back(recorder);
  ir::PassContext::Scope scope(context);
  out.module = request.module;
  if (!request.pipeline.empty()) {
    DiagnosticList diags;
    auto pass = transform::BuildPipeline(request.pipeline, diags);
    if (!pass) {
      out.error = diags.empty() ? "the pipeline does not parse" : diags[0].message;
      return out;
    }
    // RunPipeline runs its passes under its own instruments: its snapshots name them.
    transform::PipelineResult run = transform::RunPipeline(*pass, out.module);
    for (const auto& snap : run.snapshots) recorder->Add(snap.name);
    if (!run.ok()) {
      out.error = run.diagnostics[0].message;
      out.passes = recorder->names();
      return out;
    }
    out.module = run.module;
  }
  try {
    out.compiled = Compile(out.module, request.target);
  } catch (const std::exception& e) {
    out.compiled.diagnostics.Error(std::string("build: ") + e.what());
  }
  if (!out.compiled.ok()) {
    out.error = out.compiled.diagnostics.empty() ? "the build failed" : out.compiled.diagnostics[0].message;
  }
  out.passes = recorder->names();
  return out;
}

RunCheckResult Time(const PassAttributionRequest& request, const Built& built, const CancellationToken& token,
                    const ProgressFn& progress) {
  RunCheckRequest run = request.run;
  run.module = built.module;
  if (!run.reference_module.defined()) run.reference_module = request.module;
  run.profile = true;
  return RunCompiled(built.compiled, run, token, progress);
}

double TotalMedian(const RunCheckResult& result) {
  double total = 0;
  for (const auto& f : result.functions) total += f.samples_s.empty() ? 0 : f.median_s();
  return total;
}

}  // namespace

PassAttribution AttributePasses(const PassAttributionRequest& request, const CancellationToken& token,
                                const ProgressFn& progress,
                                const std::function<void(const PassImpact&)>& on_impact) {
  PassAttribution out;
  auto report = [&](const std::string& stage, double fraction) {
    if (progress) progress(stage, fraction);
  };
  report("build with every pass", 0);
  Built full = BuildWithout(request, "");
  if (!full.error.empty()) {
    out.message = "the module does not build with every pass: " + full.error;
    return out;
  }
  out.passes = full.passes;
  out.baseline = Time(request, full, token, {});
  if (out.baseline.cancelled) {
    out.cancelled = true;
    return out;
  }
  if (!out.baseline.message.empty()) {
    out.message = out.baseline.message;
    return out;
  }
  for (const auto& f : out.baseline.functions) {
    if (!f.ok()) {
      out.message = "function " + f.name + " does not run correctly with every pass: " + f.message;
      return out;
    }
  }
  const double with_s = TotalMedian(out.baseline);
  const size_t n = out.passes.size();
  for (size_t i = 0; i < n; ++i) {
    if (token.cancelled()) {
      out.cancelled = true;
      return out;
    }
    const std::string& pass = out.passes[i];
    report("build without " + pass + " (" + std::to_string(i + 1) + "/" + std::to_string(n) + ")",
           double(i) / double(n));
    PassImpact impact;
    impact.pass = pass;
    impact.with_s = with_s;
    Built without = BuildWithout(request, pass);
    if (std::find(without.passes.begin(), without.passes.end(), pass) != without.passes.end()) {
      impact.outcome = PassImpact::Outcome::kNotDisablable;
      impact.message = "it runs outside any pipeline, so disabling it has no effect";
    } else if (!without.error.empty()) {
      impact.outcome = PassImpact::Outcome::kBuildFails;
      impact.message = without.error;
    } else {
      RunCheckResult timed = Time(request, without, token, {});
      if (timed.cancelled) {
        out.cancelled = true;
        return out;
      }
      if (!timed.message.empty()) {
        impact.outcome = PassImpact::Outcome::kRunFails;
        impact.message = timed.message;
      }
      for (const auto& f : timed.functions) {
        if (f.ok() || impact.outcome != PassImpact::Outcome::kTimed) continue;
        impact.outcome = f.status == RunStatus::kMismatch ? PassImpact::Outcome::kWrongResults
                                                          : PassImpact::Outcome::kRunFails;
        impact.message = f.name + ": " + f.message;
      }
      if (impact.outcome == PassImpact::Outcome::kTimed) {
        // The module with every pass is timed again right beside it, so that both times see the
        // same load on the machine.
        RunCheckResult beside = Time(request, full, token, {});
        bool usable = beside.message.empty() && !beside.cancelled &&
                      std::all_of(beside.functions.begin(), beside.functions.end(),
                                  [](const FunctionResult& f) { return f.ok(); });
        const RunCheckResult& base = usable ? beside : out.baseline;
        impact.with_s = TotalMedian(base);
        impact.without_s = TotalMedian(timed);
        for (const auto& f : timed.functions) {
          const FunctionResult* with = base.Find(f.name);
          impact.functions.push_back({f.name, with ? with->median_s() : 0, f.median_s()});
        }
      }
    }
    if (on_impact) on_impact(impact);
    out.impacts.push_back(std::move(impact));
  }
  report("attributed", 1);
  return out;
}

nlohmann::json ToJson(const PassAttribution& attribution) {
  nlohmann::json passes = nlohmann::json::array();
  for (const PassImpact& impact : attribution.impacts) {
    nlohmann::json j = {{"pass", impact.pass}, {"outcome", PassImpactOutcomeName(impact.outcome)},
                        {"with_s", impact.with_s}};
    if (impact.outcome == PassImpact::Outcome::kTimed) {
      j["without_s"] = impact.without_s;
      j["change_percent"] = impact.change_percent();
      nlohmann::json functions = nlohmann::json::array();
      for (const auto& f : impact.functions) {
        functions.push_back({{"name", f.name}, {"with_s", f.with_s}, {"without_s", f.without_s}});
      }
      j["functions"] = functions;
    } else {
      j["message"] = impact.message;
    }
    passes.push_back(std::move(j));
  }
  nlohmann::json out = {{"passes", passes}};
  if (!attribution.message.empty()) out["message"] = attribution.message;
  if (attribution.cancelled) out["cancelled"] = true;
  return out;
}

}  // namespace wb::workbench
