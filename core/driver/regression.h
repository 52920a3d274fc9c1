// Running a regression manifest: every case isolated in its own process (a crash or a hang is
// that case's failure, not the run's), N at a time, with JSON and JUnit XML reports that are
// byte-identical between runs except for timings.
#pragma once

#include <iosfwd>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "driver/manifest.h"

namespace wb::driver {

struct CheckResult {
  CheckResult() = default;
  CheckResult(std::string kind, std::string name, bool passed, std::string message, std::string diff = "")
      : kind(std::move(kind)), name(std::move(name)), passed(passed), message(std::move(message)),
        diff(std::move(diff)) {}
  // "parse", "schedule", "pipeline", "ir_golden", "pass_golden", "build", "numeric", "timing"
  std::string kind;
  std::string name;  // the golden file, pass, or function
  bool passed = false;
  // Could not run here (a CUDA run on a machine without a GPU): `message` says why. Neither
  // passed nor failed; it makes its case "skipped" unless another check failed.
  bool skipped = false;
  std::string message;
  std::string diff;  // unified diff for IR mismatches
  // numeric: over all outputs of the function; `worst` is the element with the largest
  // absolute error, e.g. "C[3, 7]".
  std::optional<double> max_abs_error;
  std::optional<double> max_rel_error;
  std::string worst;
  // timing: measured median seconds per call, the baseline's, and their ratio. These (and a
  // timing check's message) are the only values that differ between two runs of one build.
  std::optional<double> seconds;
  std::optional<double> baseline_s;
  std::optional<double> ratio;
};

struct CaseResult {
  std::string name;
  // "passed", "failed", "timeout", "crashed", "out-of-memory" (an allocation failed past the
  // case process's memory limit), "skipped" (every check that ran passed, and one could not run
  // here: `message` gives the reason), or "error": the input or a file it names could not be
  // read (the run's exit code is then 2).
  std::string status;
  std::string message;
  double seconds = 0;
  std::vector<CheckResult> checks;
  std::vector<std::string> updated_goldens;
};

struct RegressionOptions {
  int jobs = 1;
  // Case names containing this text, or matching it as a wildcard pattern (`*`, `?`) when it
  // has one; empty: all.
  std::string filter;
  bool update_goldens = false;
  bool isolate = true;  // fork a process per case
};

struct RegressionReport {
  std::vector<CaseResult> cases;
  // With --update-goldens: one line per baseline entry added or changed.
  std::vector<std::string> updated_baselines;
  int passed() const;
  int skipped() const;
  int failed() const;  // neither passed nor skipped
};

// Runs one case in this process.
CaseResult RunCase(const ManifestCase& c, bool update_goldens);
RegressionReport RunManifest(const Manifest& manifest, const RegressionOptions& options,
                             std::ostream& progress);

std::string ReportJson(const RegressionReport& report);
// The cases of a report ReportJson wrote (a shard's, for merging); nullopt when `text` is not one.
std::optional<RegressionReport> ParseReportJson(const std::string& text);
std::string ReportJUnit(const RegressionReport& report);
std::string SummaryTable(const RegressionReport& report);

}  // namespace wb::driver
