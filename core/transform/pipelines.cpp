// TVM's named Relax pipelines, as pipeline text (relax/pipeline.py in TVM), so that
// `--pipeline zero_pipeline` and the GUI's pipeline menu run the same passes by name. Where a
// pass of TVM's pipeline does not exist here, the doc string says so; the text holds the passes
// that do, in TVM's order.
#include "transform/registry.h"

namespace wb::transform {

namespace {

struct PipelineRegistrar {
  PipelineRegistrar() {
    PassRegistry& registry = PassRegistry::Global();
    registry.RegisterPipeline(
        "zero_pipeline", "LegalizeOps, AnnotateTIROpPattern, FoldConstant, FuseOps, FuseTIR",
        "TVM's zero_pipeline: legalize ops to TensorIR, annotate op patterns, fold constants, "
        "fuse ops and their PrimFuncs (complete: every pass of TVM's list)");
    registry.RegisterPipeline(
        "default_build_pipeline",
        "LegalizeOps, ApplyDefaultSchedule, ToNonDataflow, RemovePurityChecking, CallTIRRewrite, "
        "StaticPlanBlockMemory, AttachGlobalSymbol",
        "TVM's default_build_pipeline with the passes that exist here: LegalizeOps, "
        "ApplyDefaultSchedule (the CPU default schedules of core/dlight; TVM's CPU pipeline "
        "applies dlight too), ToNonDataflow, RemovePurityChecking, CallTIRRewrite, "
        "StaticPlanBlockMemory, AttachGlobalSymbol. Missing "
        "here (not implemented): DispatchSampling, DispatchSortScan, RewriteDataflowReshape, "
        "RewriteCUDAGraph, LowerAllocTensor, KillAfterLastUse, LowerRuntimeBuiltin, "
        "ComputePrimValue, VMShapeLower (the VM codegen lowers shapes and builtins itself)");
  }
};

const PipelineRegistrar registrar;

}  // namespace

}  // namespace wb::transform
