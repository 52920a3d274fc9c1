// The CUDA code generator's interface (issue 9): lowered device PrimFuncs -> CUDA C source ->
// PTX or CUBIN through NVRTC. Split between two parts of the tree: core/codegen/cuda implements
// these functions; core/runtime/cuda (the driver API, opened with dlopen) loads what they
// produce and launches the kernels. The lowering passes of core/transform/tir produce the
// device PrimFuncs (SplitHostDevice, LowerDeviceKernelLaunch): each carries the attributes
//   "calling_conv": 2 (kDeviceKernelLaunch), "global_symbol": "<host func>_kernel[_N]",
//   "tir.kernel_launch_params": ["blockIdx.x", ..., "threadIdx.x", ...
//                                 (, "tir.use_dyn_shared_memory")],
// its parameters are the buffers' data pointers (handle Vars whose type annotation is a
// PointerType) followed by scalar Vars, and the host calls it as
//   T.call_packed("<kernel name>", <param values...>, <launch param values...>).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "ir/expr.h"

namespace wb::codegen {

struct CudaKernelInfo {
  std::string name;                             // the kernel's global symbol (extern "C")
  std::vector<std::string> arg_dtypes;          // per parameter: "handle", "int32", "float32", ...
  std::vector<std::string> launch_param_tags;   // tir.kernel_launch_params, in order
};

struct CudaSource {
  std::string code;                    // one translation unit holding every kernel
  std::vector<CudaKernelInfo> kernels;
};

// CUDA C for the module's device PrimFuncs (calling_conv 2). Throws CodegenError (build.h) on
// TIR it cannot express, naming the function and the construct.
CudaSource CodegenCUDA(const ir::IRModule& device_module, const std::string& arch /* "sm_90" */);

struct NvrtcResult {
  std::vector<char> binary;  // PTX text (NUL-terminated) or a CUBIN image; empty on failure
  std::string log;           // NVRTC's log; on failure the error, with the source line
  bool ok() const { return !binary.empty(); }
};

// Whether this build has NVRTC (WB_ENABLE_CUDA); when false, NvrtcCompile fails with a message.
bool NvrtcAvailable();
// Compiles `code` for `arch` ("sm_90"); format "ptx" or "cubin".
NvrtcResult NvrtcCompile(const std::string& code, const std::string& arch, const std::string& format);

}  // namespace wb::codegen
