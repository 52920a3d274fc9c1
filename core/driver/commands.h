// The batch commands, one a file; each returns the process's exit code (driver.h).
#pragma once

#include <iosfwd>

#include "codegen/target.h"
#include "driver/options.h"
#include "ir/expr.h"

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
// --tune: tune the module's tasks into --work-dir (core/meta_schedule). For cuda without a GPU:
// the design space built and verified, printed, and exit code 3 (nothing could be measured).
int RunTuneCommand(const BatchOptions& opts, std::ostream& out, std::ostream& err);
// --run --work-dir: *module with the records' schedules (tune.cpp); 0, or the exit code.
int ApplyWorkDirOption(const BatchOptions& opts, const codegen::Target& target, ir::IRModule* module,
                       std::ostream& out, std::ostream& err);
int RunManifestCommand(const BatchOptions& opts, std::ostream& out, std::ostream& err);
// --merge-reports: the shards' JSON reports of one manifest run merged into one.
int RunMergeReportsCommand(const BatchOptions& opts, std::ostream& out, std::ostream& err);
int RunListPassesCommand(std::ostream& out);
// --measure-peaks: measure this machine's FMA and bandwidth peaks again, cache and print them.
int RunMeasurePeaksCommand(const BatchOptions& opts, std::ostream& out, std::ostream& err);
// The peaks as the roofline's header: where they come from and their figures.
void PrintHostPeaks(const workbench::HostPeaks& peaks, std::ostream& out);

}  // namespace wb::driver
