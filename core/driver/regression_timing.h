// Timing baselines of regression cases: a JSON file {"<case>": {"<function>": seconds}} that a
// case's measured medians are compared with (allowed ratio: max_slowdown), and that
// --update-goldens rewrites.
#pragma once

#include <string>
#include <vector>

#include "driver/manifest.h"
#include "driver/regression.h"

namespace wb::driver {

// The timing check of one function of case `c`, measured at `median_s` seconds per call. A
// function without a baseline entry fails, naming the case, the function and the file. With
// `update` the check passes (the baseline is rewritten afterwards by UpdateBaselines).
CheckResult JudgeTiming(const ManifestCase& c, const std::string& func, double median_s, bool update);

// Writes every measured function's median into its case's baseline file. Runs in the parent,
// after all cases, so that parallel cases sharing one file do not race. Returns a line per
// entry added or changed, or saying why a file could not be written.
std::vector<std::string> UpdateBaselines(const std::vector<const ManifestCase*>& cases,
                                         const std::vector<CaseResult>& results);

}  // namespace wb::driver
