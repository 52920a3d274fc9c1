// Spreading one manifest's cases over the machines of an existing scheduler (a CI matrix, a
// Slurm job array) and merging their reports back into one. A shard is chosen by a hash of each
// case's name, so a case stays in its shard when cases are added or removed elsewhere in the
// manifest (a small manifest may leave a shard empty). A report says which run wrote it (the
// manifest's digest, the workbench version, the shard), so that reports of different manifests
// or builds are refused instead of merged.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "driver/manifest.h"
#include "driver/regression.h"

namespace wb::driver {

// Shard K of N, 1 <= K <= N.
struct Shard {
  int index = 1;
  int count = 1;
};

// Reads "K/N" (as --shard takes it); nullopt with the reason in `error`.
std::optional<Shard> ParseShard(const std::string& text, std::string* error);
std::string ShardName(const Shard& shard);

// Whether the case named `case_name` belongs to `shard`: a stable hash of the name alone.
bool InShard(const std::string& case_name, const Shard& shard);

// `manifest` with only the cases of `shard`, in manifest order.
Manifest SelectShard(const Manifest& manifest, const Shard& shard);

// Adds to a report (ReportJson's text) which run wrote it: "run" {manifest, manifest_digest,
// version, filter, shard, cases_in_manifest} and each case's "index" in the full manifest.
// `full` is the manifest before SelectShard; `shard` is unset for a run of the whole manifest.
std::string StampReport(const std::string& report_json, const Manifest& full,
                        const std::optional<Shard>& shard, const std::string& filter);

struct MergedReport {
  RegressionReport report;  // the cases in manifest order, as a run of the whole manifest
  std::string json;         // stamped like a whole run's report, with "run.merged_shards"
  // 0 all passed, 1 a case failed, 2 a case could not read its input: as the run would.
  int ExitCode() const;
};

// Merges the JSON reports of the N shards of one run (any order). Refuses, with the reason in
// `error`, files that are not stamped reports, reports of different manifests, versions,
// filters or shard counts, a whole run's report, a shard given twice or missing, and a case in
// two reports.
std::optional<MergedReport> MergeReports(const std::vector<std::string>& paths, std::string* error);

}  // namespace wb::driver
