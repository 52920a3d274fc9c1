// The named TIR lowering pipeline for CUDA, "tir_lowering_cuda": TVM's order of the passes that
// take a scheduled GPU PrimFunc to a host function that launches device kernels. The CPU
// passes that apply come first, as in "tir_lowering" (storage scopes shared/local survive
// them); then the GPU ones: barriers, cross-thread reductions, and the split into host and
// device functions. MakePackedAPI on the host functions is appended by the builder, as for the
// CPU, so the pipeline ends with LowerDeviceKernelLaunch.
#include "transform/registry.h"

namespace wb::transform {

namespace {

const char* kTirLoweringCuda =
    "LowerInitBlock, PlanAndUpdateBufferAllocationLocation, ConvertBlocksToOpaque, "
    "CompactBufferAllocation, LowerMatchBuffer, LowerOpaqueBlock, FlattenBuffer, Simplify, "
    "VectorizeLoop, UnrollLoop, RemoveNoOp, StorageRewrite, LowerIntrin, SplitHostDevice, "
    "LowerDeviceKernelLaunch";

struct TirLoweringCudaRegistrar {
  TirLoweringCudaRegistrar() {
    PassRegistry::Global().RegisterPipeline(
        "tir_lowering_cuda", kTirLoweringCuda,
        "lowers scheduled GPU TensorIR to a host function and CUDA device kernels, in TVM's "
        "order (MakePackedAPI follows in the builder)");
  }
} registrar;

}  // namespace

}  // namespace wb::transform
