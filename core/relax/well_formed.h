// Well-formedness of Relax functions (TVM's relax.analysis.well_formed), as diagnostics with
// spans rather than a yes/no: every var is defined once before it is used, a DataflowVar lives
// only inside the dataflow block that binds it, dataflow blocks and pure functions hold no
// impure calls, every symbolic shape var is defined (by a parameter's type or by a
// match_cast) before a type mentions it, and every vdevice a type names is one the module's
// global_infos list.
#pragma once

#include "ir/expr.h"
#include "relax/expr.h"
#include "support/diagnostic.h"

namespace wb::relax {

// Checks one function; `module` (may be null) resolves calls by GlobalVar for purity.
DiagnosticList VerifyWellFormed(const Function& func, const ir::IRModule& module = {});
// Checks every Relax function of the module.
DiagnosticList VerifyWellFormed(const ir::IRModule& module);

}  // namespace wb::relax
