// `workbench --batch MANIFEST.json`: the regression cases of a manifest (manifest.h), run by
// regression.h, summarized on stdout, reported as JSON and JUnit XML.
#include <fstream>
#include <optional>
#include <ostream>

#include "driver/commands.h"
#include "driver/manifest.h"
#include "driver/manifest_shard.h"
#include "driver/regression.h"

namespace wb::driver {

int RunManifestCommand(const BatchOptions& opts, std::ostream& out, std::ostream& err) {
  DiagnosticList diags;
  auto manifest = LoadManifest(opts.files[0], diags);
  if (!manifest) {
    for (const auto& d : diags) err << opts.files[0] << ": error: " << d.message << "\n";
    return 2;
  }
  std::optional<Shard> shard;
  std::string why;
  if (!opts.shard.empty() && !(shard = ParseShard(opts.shard, &why))) {
    err << "workbench: " << why << "\n";
    return 2;
  }
  if (shard && opts.update_goldens) {
    err << "workbench: --update-goldens rewrites baseline files that every shard reads: run it "
           "without --shard\n";
    return 2;
  }
  RegressionOptions ropts;
  ropts.jobs = opts.jobs;
  ropts.filter = opts.filter;
  ropts.update_goldens = opts.update_goldens;
  RegressionReport report = RunManifest(shard ? SelectShard(*manifest, *shard) : *manifest, ropts, err);
  for (const auto& c : report.cases) {
    for (const auto& check : c.checks) {
      if (check.passed || check.skipped) continue;  // a skip's reason is in the summary
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
  std::string json = StampReport(ReportJson(report), *manifest, shard, opts.filter);
  if (!opts.json_path.empty() && !write(opts.json_path, json)) return 2;
  if (!opts.junit_path.empty() && !write(opts.junit_path, ReportJUnit(report))) return 2;
  for (const auto& c : report.cases) {
    if (c.status == "error") return 2;  // an input could not be read
  }
  return report.failed() ? 1 : 0;
}

int RunMergeReportsCommand(const BatchOptions& opts, std::ostream& out, std::ostream& err) {
  std::string why;
  auto merged = MergeReports(opts.files, &why);
  if (!merged) {
    err << "workbench: --merge-reports: " << why << "\n";
    return 2;
  }
  out << SummaryTable(merged->report);
  for (const auto& [path, text] : {std::pair{opts.json_path, merged->json},
                                   std::pair{opts.junit_path, ReportJUnit(merged->report)}}) {
    if (path.empty()) continue;
    std::ofstream f(path, std::ios::binary);
    if (!(f << text)) {
      err << "workbench: cannot write '" << path << "'\n";
      return 2;
    }
  }
  return merged->ExitCode();
}

}  // namespace wb::driver
