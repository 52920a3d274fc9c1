// The CUDA runtime module (TVM's CUDAModule): PTX or CUBIN from NVRTC plus a description of each
// kernel. GetFunction(kernel) returns a packed function taking (params..., launch param
// values...), as the host code's T.call_packed passes them, that launches the kernel with the
// grid and block extents (and dynamic shared memory) given by those launch parameters. The
// image is loaded into the device on the first call, so a module can be built, inspected and
// kept on a machine without a GPU; calling it there throws "no CUDA device: ...".
#pragma once

#include <map>
#include <string>
#include <vector>

#include "runtime/module.h"

namespace wb::runtime::cuda {

// What the launcher needs of a kernel (the runtime twin of codegen::CudaKernelInfo, which
// carries IR headers with it).
struct CudaFunctionInfo {
  std::string name;                            // the kernel's extern "C" symbol
  std::vector<std::string> arg_dtypes;         // "handle", "int32", "float32", ...
  std::vector<std::string> launch_param_tags;  // "blockIdx.x", "threadIdx.x", "tir.use_dyn_shared_memory"
};

// `format` is "ptx" or "cubin"; `sources` are text views GetSource returns by format ("cuda": the
// CUDA C it was compiled from). Throws runtime::Error on an unknown format or dtype.
Module CudaModuleCreate(std::string binary, std::string format, std::vector<CudaFunctionInfo> functions,
                        std::map<std::string, std::string> sources = {});

}  // namespace wb::runtime::cuda
