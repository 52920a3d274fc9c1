// The batch commands, one a file; each returns the process's exit code (driver.h).
#pragma once

#include <iosfwd>

#include "driver/options.h"

namespace wb::driver {

int RunRoundTripCommand(const BatchOptions& opts, std::ostream& out, std::ostream& err);
// --emit tvmscript (a formatter) and --emit cuda|ptx (build, print the device code).
int RunEmitCommand(const BatchOptions& opts, std::ostream& out, std::ostream& err);
int RunCompareCommand(const BatchOptions& opts, std::ostream& out, std::ostream& err);
// --pipeline [--dump-dir] [--check | --check-each]: print the module after the passes.
int RunPipelineCommand(const BatchOptions& opts, std::ostream& out, std::ostream& err);
// --schedule RECIPE [--check | --check-each]: print the module after the recipe.
int RunScheduleCommand(const BatchOptions& opts, std::ostream& out, std::ostream& err);
// --run: build, run, check against the reference, time.
int RunRunCommand(const BatchOptions& opts, std::ostream& out, std::ostream& err);
int RunManifestCommand(const BatchOptions& opts, std::ostream& out, std::ostream& err);
// --merge-reports: the shards' JSON reports of one manifest run merged into one.
int RunMergeReportsCommand(const BatchOptions& opts, std::ostream& out, std::ostream& err);
int RunListPassesCommand(std::ostream& out);

}  // namespace wb::driver
