// The numeric and timing checks of a regression case: build the scheduled, transformed module
// for the case's target (PrimFuncs through codegen::Build, Relax functions through the Relax VM),
// run every function on the same inputs as the reference, compare each output, and time the
// calls (regression_timing.h judges the times against the baseline).
#pragma once

#include <string>
#include <vector>

#include "ir/expr.h"
#include "driver/manifest.h"
#include "driver/regression.h"

namespace wb::driver {

struct BuiltChecks {
  std::vector<CheckResult> checks;  // "build", "numeric", "timing"
  std::vector<std::string> updated;  // .npy outputs written by --update-goldens
  std::string input_error;           // an input .npy could not be read (exit code 2)
};

// `source` is the module as read (what the reference interpreters run); `transformed` is it
// after the case's schedules and pipeline (what is built). With `update`, a .npy reference
// directory is rewritten from the built code's outputs and timing checks pass, leaving the
// baseline to UpdateBaselines.
BuiltChecks RunBuiltChecks(const ManifestCase& c, const ir::IRModule& source,
                           const ir::IRModule& transformed, bool update);

}  // namespace wb::driver
