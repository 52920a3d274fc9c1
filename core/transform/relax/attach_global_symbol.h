// AttachGlobalSymbol: gives every PrimFunc and Relax function of the module the external symbol
// `global_symbol` = its name in the module (private functions become externally visible), which
// code generation needs, as the last step of TVM's default_build_pipeline. With a module attribute
// system_lib_prefix, PrimFuncs are renamed prefix + name (symbol and GlobalVar, every reference
// updated), as TVM does for system libraries.
#pragma once

#include "ir/transform.h"

namespace wb::transform {

ir::Pass AttachGlobalSymbol();

}  // namespace wb::transform
