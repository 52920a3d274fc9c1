// ToNonDataflow: turns every dataflow block into a plain binding block and every DataflowVar into
// a Var (adjacent blocks merge into one), so that later passes (CallTIRRewrite, memory planning)
// may put impure calls anywhere.
#pragma once

#include "ir/transform.h"

namespace wb::transform {

ir::Pass ToNonDataflow();

}  // namespace wb::transform
