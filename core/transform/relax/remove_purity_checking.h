// RemovePurityChecking: marks every pure Relax function (nested ones too) with
// `relax.force_pure: True`, TVM's promise that the function is pure as a whole even where its body
// is about to contain impure calls (the explicit allocations and kernel calls of CallTIRRewrite).
#pragma once

#include "ir/transform.h"

namespace wb::transform {

ir::Pass RemovePurityChecking();

}  // namespace wb::transform
