// core/meta_schedule: search-based tuning, TVM's MetaSchedule for the CPU. A module is cut into
// tuning tasks (this file); each task's design space is sampled by the schedule rules
// (schedule_rules.h), completed by postprocessors (postproc.h), varied by mutators (mutator.h),
// ranked by a cost model over program features (cost_model.h, feature_extractor.h) and measured
// through workbench's run-and-check mechanism by the evolutionary search (search.h); what was
// measured is kept in a JSON-lines database (database.h) that the build applies (apply.h).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "ir/expr.h"
#include "tir/stmt.h"

namespace wb::meta_schedule {

// One function to tune: a distinct PrimFunc of the module, standing for every function of the
// module that is structurally equal to it.
struct TuneTask {
  std::string name;          // the first function's global name
  tir::PrimFunc func;        // as written (or as FuseTIR made it), as WorkloadFunc gives it
  uint64_t shash = 0;        // ir::StructuralHash(func): the database's key
  int weight = 1;            // how many calls (Relax) or functions (TIR) it stands for
  std::vector<std::string> functions;  // every global name it stands for
  double flops = 0;          // of one call, when countable (codegen::CountFlops)
};

// The pipeline a Relax module goes through before its kernels are tuned, as the build with
// fusion runs it: the PrimFuncs after it are the tasks.
inline constexpr const char* kTaskPipeline = "LegalizeOps, AnnotateTIROpPattern, FuseOps, FuseTIR";

// The function as a workload: without its global_symbol, since a name is not part of what is
// tuned (two kernels that differ only in their symbol are one task, and a record applies to
// either).
tir::PrimFunc WorkloadFunc(const tir::PrimFunc& func);

struct ExtractedTasks {
  std::vector<TuneTask> tasks;
  ir::IRModule module;  // the module the tasks come from (after kTaskPipeline for Relax); null
                        // when the Relax module could not be fused
  std::string error;    // why nothing could be extracted
};

// The tasks of `module`: for a Relax module, each distinct PrimFunc after kTaskPipeline,
// weighted by its call_tir call sites in the Relax functions (a kernel nothing calls is left
// out); for a TIR module, each distinct PrimFunc that does not carry a schedule yet, weighted by
// how many functions it stands for. Deduplicated by structural hash (and equality), in module
// order.
ExtractedTasks ExtractTasks(const ir::IRModule& module);

}  // namespace wb::meta_schedule
