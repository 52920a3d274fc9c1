// `workbench --batch MANIFEST.json`: the regression cases of a manifest (manifest.h), run by
// regression.h, summarized on stdout, reported as JSON and JUnit XML.
#include <fstream>
#include <ostream>

#include "driver/commands.h"
#include "driver/manifest.h"
#include "driver/regression.h"

namespace wb::driver {

int RunManifestCommand(const BatchOptions& opts, std::ostream& out, std::ostream& err) {
  DiagnosticList diags;
  auto manifest = LoadManifest(opts.files[0], diags);
  if (!manifest) {
    for (const auto& d : diags) err << opts.files[0] << ": error: " << d.message << "\n";
    return 2;
  }
  RegressionOptions ropts;
  ropts.jobs = opts.jobs;
  ropts.filter = opts.filter;
  ropts.update_goldens = opts.update_goldens;
  RegressionReport report = RunManifest(*manifest, ropts, err);
  for (const auto& c : report.cases) {
    for (const auto& check : c.checks) {
      if (check.passed) continue;
      err << c.name << ": " << check.kind << " " << check.name << ": " << check.message << "\n"
          << check.diff;
    }
    for (const auto& path : c.updated_goldens) out << "updated " << path << "\n";
  }
  for (const auto& line : report.updated_baselines) out << "updated " << line << "\n";
  out << SummaryTable(report);
  auto write = [&](const std::string& path, const std::string& text) {
    std::ofstream f(path, std::ios::binary);
    if (!f) {
      err << "workbench: cannot write '" << path << "'\n";
      return false;
    }
    f << text;
    return true;
  };
  if (!opts.json_path.empty() && !write(opts.json_path, ReportJson(report))) return 2;
  if (!opts.junit_path.empty() && !write(opts.junit_path, ReportJUnit(report))) return 2;
  for (const auto& c : report.cases) {
    if (c.status == "error") return 2;  // an input could not be read
  }
  return report.failed() ? 1 : 0;
}

}  // namespace wb::driver
