// Running a regression manifest: every case isolated in its own process (a crash or a hang is
// that case's failure, not the run's), N at a time, with JSON and JUnit XML reports that are
// byte-identical between runs except for timings.
#pragma once

#include <iosfwd>
#include <string>
#include <vector>

#include "workbench/manifest.h"

namespace wb::workbench {

struct CheckResult {
  std::string kind;  // "parse", "pipeline", "ir_golden", "pass_golden"
  std::string name;  // the golden file or pass
  bool passed = false;
  std::string message;
  std::string diff;  // unified diff for IR mismatches
};

struct CaseResult {
  std::string name;
  std::string status;  // "passed", "failed", "error", "timeout", "crashed"
  std::string message;
  double seconds = 0;
  std::vector<CheckResult> checks;
  std::vector<std::string> updated_goldens;
};

struct RegressionOptions {
  int jobs = 1;
  std::string filter;  // substring of case names; empty: all
  bool update_goldens = false;
  bool isolate = true;  // fork a process per case
};

struct RegressionReport {
  std::vector<CaseResult> cases;
  int passed() const;
  int failed() const;
};

// Runs one case in this process.
CaseResult RunCase(const ManifestCase& c, bool update_goldens);
RegressionReport RunManifest(const Manifest& manifest, const RegressionOptions& options,
                             std::ostream& progress);

std::string ReportJson(const RegressionReport& report);
std::string ReportJUnit(const RegressionReport& report);
std::string SummaryTable(const RegressionReport& report);

}  // namespace wb::workbench
