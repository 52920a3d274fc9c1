// ApplyDefaultSchedule(target=""): TVM's dlight.ApplyDefaultSchedule with the CPU rules of
// core/dlight (Matmul, Reduction, Injective, Fallback): every PrimFunc that does not carry a
// schedule yet (dlight::IsScheduled: no "tir.is_scheduled" attribute and no sign of a schedule
// in its loops and blocks) gets the first rule's schedule that applies, and the attribute, so a
// later run leaves it alone. It runs in default_build_pipeline (so the pass explorer shows the
// scheduled kernels) and again in codegen::Build for CPU targets, where the functions no Relax
// pipeline scheduled (a module of PrimFuncs, a pipeline without the pass) get theirs. The
// target comes from `target`, else from the pass context's config {"ApplyDefaultSchedule":
// {"target": "..."}} (what the VM build sets to the target it builds for), else the host. A GPU
// target leaves the functions alone (their threads are bound by DefaultGPUSchedule).
#pragma once

#include <string>

#include "ir/transform.h"

namespace wb::transform {

ir::Pass ApplyDefaultSchedule(std::string target = "");

}  // namespace wb::transform
