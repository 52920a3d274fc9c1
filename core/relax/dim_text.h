// Short text for the TensorIR expressions that appear as tensor dims (`n`, `n * 2 + 1`), for
// type names and diagnostics. The relax module sits below the script printer, so it keeps its
// own small renderer for this narrow case.
#pragma once

#include <string>

#include "ir/expr.h"

namespace wb::relax {

std::string DimToString(const ir::PrimExpr& dim);

}  // namespace wb::relax
