// ConvertBlocksToOpaque: substitutes each block's iter vars by their bindings, so blocks keep
// only their buffers and body (opaque blocks) and the loops carry the iteration again.
#pragma once

#include "ir/transform.h"

namespace wb::transform {

ir::Pass ConvertBlocksToOpaque();

}  // namespace wb::transform
