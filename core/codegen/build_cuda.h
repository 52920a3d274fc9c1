// Build for a `cuda` Target (issue 9): the GPU lowering pipeline registered as
// "tir_lowering_cuda" (or BuildOptions::pipeline), then the split TVM makes after
// SplitHostDevice + LowerDeviceKernelLaunch: device PrimFuncs (calling_conv 2) become CUDA C
// (CodegenCUDA) compiled by NVRTC to PTX for the target's arch, wrapped in a CUDA runtime module;
// host PrimFuncs go through MakePackedAPI (tensors checked to be on cuda) and the LLVM codegen
// for the target's host, and the host module imports the CUDA module, so that the host code's
// T.call_packed("<kernel>", ...) finds and launches the kernels. Building needs no GPU; running
// does (the CUDA module loads its PTX on the first launch).
#pragma once

#include "codegen/build.h"

namespace wb::codegen {

inline constexpr const char* kCudaLoweringPipeline = "tir_lowering_cuda";
// BuildOptions::pipeline for a module that is already lowered and split (host functions that
// call_packed their kernels, kernels with calling_conv 2): no passes before the split. An empty
// pipeline means this too when the module already holds a kernel.
inline constexpr const char* kNoLowering = "none";

// The lowering BuildCuda runs on a module that holds no kernel yet: the target on each PrimFunc
// that has none, then the "tir_lowering_cuda" pipeline (built once, on the first call). Null with
// the reason in `diagnostics` when the pipeline is not registered; throws what its passes throw
// (DiagnosticError). BuildCuda takes its result as it is (it holds the kernels), so a caller that
// inspects the lowered code (meta_schedule's VerifyGPUCode) builds it without lowering it twice.
ir::IRModule LowerCuda(const ir::IRModule& module, const Target& target,
                       DiagnosticList& diagnostics);

// The result's module answers GetSource("cuda") (the CUDA C) and GetSource("ptx").
BuildResult BuildCuda(const ir::IRModule& module, const Target& target, const BuildOptions& options = {});

// The number of GPU kernels a cuda build made (0 for other modules).
size_t CountCudaKernels(const runtime::Module& built);

}  // namespace wb::codegen
