// Regression manifests: what `workbench --batch MANIFEST.json` runs in CI. A manifest lists
// cases (an input module, schedule recipes per function, an optional pipeline, a target, what to
// check); paths are relative to the manifest, inputs may be globs, and `defaults` apply to every
// case. The format is documented by resources/manifest.schema.json.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "support/diagnostic.h"
#include "transform/pass_control.h"

namespace wb::driver {

// A schedule recipe (TVM's trace syntax) applied to one PrimFunc before the pipeline.
struct ManifestSchedule {
  std::string func;
  std::string text;    // the recipe itself
  std::string origin;  // the recipe file, or "<manifest: schedule.FUNC>" for inline text
};

// Build for the target, run every function on the same inputs, compare with a reference.
struct NumericCheck {
  // A reference kind of workbench/run_check.h ("auto", "interpreter", "compiled", "none"), run on
  // the module as read, before schedules and passes; or an absolute directory of saved outputs:
  // DIR/<func>/<output>.npy.
  std::string reference = "auto";
  std::string inputs = "random";  // "random" (seeded) or an absolute directory of .npy inputs
  uint64_t seed = 0;
  std::optional<double> rtol;  // unset: runtime::DefaultTolerance of the output's dtype
  std::optional<double> atol;
  // True when `reference` names a directory of saved outputs, not a reference kind.
  bool reference_is_directory() const;
};

// Time every function (TVM's time evaluator) and compare with a baseline file
// {"<case>": {"<func>": seconds}}.
struct TimingCheck {
  std::string baseline;  // absolute path
  double max_slowdown = 1.5;
  int number = 10;
  int repeat = 3;
};

struct ManifestCase {
  std::string name;
  std::string input;     // absolute path
  std::string pipeline;  // empty: no passes
  std::string target = "llvm -mcpu=native";
  std::vector<ManifestSchedule> schedules;  // in function-name order
  double timeout_s = 120;
  // opt_level, pass_config, disabled_passes, required_passes: the PassContext the case's
  // pipeline and builds run under.
  transform::PassControl control;
  // Checks.
  std::string ir_golden;                          // printed module after the pipeline
  std::map<std::string, std::string> pass_goldens;  // pass name -> printed module after it
  std::optional<NumericCheck> numeric;
  std::optional<TimingCheck> timing;
};

// Symbolic dims that random inputs cannot take from a file get this extent.
inline constexpr int64_t kRandomSymbolicExtent = 16;

struct Manifest {
  std::string path;
  std::string dir;
  std::vector<ManifestCase> cases;
};

// Reads and validates a manifest. Every problem is a diagnostic naming the case and the field
// ("case 'mlp': field 'pipeline' must be a string"). Globs expand in sorted order; a glob
// case named N gives cases "N/<file stem>".
std::optional<Manifest> LoadManifest(const std::string& path, DiagnosticList& diags);

}  // namespace wb::driver
