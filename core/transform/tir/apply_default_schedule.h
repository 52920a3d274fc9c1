// ApplyDefaultSchedule(target=""): TVM's dlight.ApplyDefaultSchedule with the CPU rules of
// core/dlight (Matmul, Injective, Fallback): every PrimFunc that does not carry a schedule yet
// (no "tir.is_scheduled" attribute, every loop serial) gets the first rule's schedule that
// applies, and the attribute, so a later run leaves it alone. The target comes from `target`,
// else from the pass context's config {"ApplyDefaultSchedule": {"target": "..."}} (what the VM
// build sets to the target it builds for), else the host. A GPU target leaves the functions
// alone (their threads are bound by DefaultGPUSchedule).
#pragma once

#include <string>

#include "ir/transform.h"

namespace wb::transform {

ir::Pass ApplyDefaultSchedule(std::string target = "");

}  // namespace wb::transform
