// Does each pass of a run keep what the module computes? Every pass that changed the module is
// run against its input on seeded inputs (the reference interpreters: PrimFuncs through
// CheckEquivalence, Relax functions through CheckRelaxEquivalence); the first pass that changes
// the numbers is named with what differs (the buffer, the max error). Batch `--check-each` with
// `--pipeline` and the Passes tab's "Check each pass" both call this.
#pragma once

#include <string>
#include <vector>

#include "transform/instrument.h"
#include "workbench/cancellation.h"

namespace wb::workbench {

struct PassMeaningCheck {
  // The passes checked and found to keep the meaning, in run order (positions in the run's
  // snapshots).
  std::vector<size_t> equal;
  // The position of the first pass that changed what the module computes; -1: none did.
  int changed = -1;
  // What it changed, one line per function: "function `main`: B differs: max abs error 1 ...".
  std::vector<std::string> differences;
  bool cancelled = false;  // stopped before every pass was checked
};

// Checks the passes of `run` in order, stopping at the first that changed the meaning. Progress:
// "check pass I of N: NAME"; cancelling stops between passes.
PassMeaningCheck CheckEachPass(const transform::PipelineResult& run, const CancellationToken& token = {},
                               const ProgressFn& progress = {});

}  // namespace wb::workbench
