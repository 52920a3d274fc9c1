// MakePackedAPI: turns each PrimFunc into a host entry with the packed calling convention of
// runtime/c_backend_api.h: parameters (args, arg_type_ids, num_args, out_ret_value,
// out_ret_tcode, resource_handle), a prologue that checks every argument (count, type code,
// ndim, dtype, device, shape, strides, byte offset, alignment) with a message naming the
// function and argument, binds buffer data pointers and symbolic shape variables, and the
// original body under a `compute_scope` attribute (which the LLVM codegen compiles as a separate
// function whose buffer pointers are noalias and aligned).
#pragma once

#include "ir/transform.h"

namespace wb::transform {

// Struct field kinds of tvm_struct_get / tvm_struct_set, TVM's numbering.
enum StructFieldKind : int {
  kArrAddr = 0,
  kArrData = 1,
  kArrShape = 2,
  kArrStrides = 3,
  kArrNDim = 4,
  kArrTypeCode = 5,
  kArrTypeBits = 6,
  kArrTypeLanes = 7,
  kArrByteOffset = 8,
  kArrDeviceId = 9,
  kArrDeviceType = 10,
  kTVMValueContent = 12,
};

// The attribute a packed PrimFunc carries: calling_conv = 1 (TVM's kCPackedFunc).
inline constexpr int kCallingConvPacked = 1;

ir::Pass MakePackedAPI();

}  // namespace wb::transform
