// CallTIRRewrite: makes the destination-passing style explicit. Each
// `y = R.call_tir(f, (x, ...), out_ty)` becomes an allocation of every output with
// R.builtin.alloc_tensor, a direct call of the kernel on the inputs and the allocations
// (`_ = cls.f(x, ..., alloc)`), and `y = alloc` (a tuple of allocations for several outputs);
// call_tir_inplace allocates only the outputs not written into an input, call_dps_packed calls the
// packed function the same way. Legacy tir_vars follow the outputs as scalars. The direct call is
// impure: run RemovePurityChecking and ToNonDataflow first, as TVM's pipeline does.
#pragma once

#include "ir/transform.h"

namespace wb::transform {

ir::Pass CallTIRRewrite();

}  // namespace wb::transform
