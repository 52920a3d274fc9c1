// Building with the tuning records (TVM's MetaScheduleApplyDatabase): each PrimFunc that has a
// record for the target (DatabaseTarget: with the thread count the build runs on) gets the
// schedule of the tuner's verified choice when there is one (database.h), else of its fastest
// record (the trace replayed onto it); the others, and those whose verified choice is the
// default schedule, get their default schedule (core/dlight), as the build without records gives
// them. A Relax module is first fused into its kernels (kTaskPipeline, as task extraction does),
// so the kernels are the functions that were tuned.
#pragma once

#include <string>
#include <vector>

#include "codegen/target.h"
#include "ir/expr.h"
#include "ir/transform.h"
#include "meta_schedule/database.h"

namespace wb::meta_schedule {

struct AppliedDatabase {
  ir::IRModule module;  // null when the Relax module could not be fused
  std::vector<std::string> applied;    // functions scheduled from a record
  std::vector<std::string> defaulted;  // functions given their default schedule
  std::vector<std::string> warnings;   // records that did not replay (the next best is tried)
  std::string error;
};

AppliedDatabase ApplyDatabase(const ir::IRModule& module, const JSONDatabase& db,
                              const codegen::Target& target);

// The same as a pass over PrimFuncs, registered as MetaScheduleApplyDatabase(work_dir, target)
// for pipelines: a function with a record gets its schedule, the others stay for
// ApplyDefaultSchedule. A work directory that cannot be opened is a PassError.
ir::Pass MetaScheduleApplyDatabase(std::string work_dir, std::string target = "");

}  // namespace wb::meta_schedule
