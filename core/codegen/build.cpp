#include "codegen/build.h"

#include "codegen/build_cuda.h"

#include "tir/stmt.h"
#include "transform/registry.h"
#include "transform/tir/apply_default_schedule.h"
#include "transform/tir/make_packed_api.h"

namespace wb::codegen {

std::string DefaultLoweringPipeline() {
  auto& registry = transform::PassRegistry::Global();
  if (registry.FindPipeline("tir_lowering")) return "tir_lowering";
  // TVM's order; the passes not written yet are skipped (the codegen flattens buffer indices
  // itself, so FlattenBuffer is not required).
  static const char* kOrder[] = {"LowerInitBlock",   "PlanAndUpdateBufferAllocationLocation",
                                 "ConvertBlocksToOpaque", "CompactBufferAllocation",
                                 "LowerMatchBuffer", "LowerOpaqueBlock",
                                 "FlattenBuffer",    "Simplify",
                                 "VectorizeLoop",    "UnrollLoop",
                                 "RemoveNoOp",       "StorageRewrite",
                                 "LowerIntrin"};
  std::string text;
  for (const char* name : kOrder) {
    if (registry.Find(name)) text += (text.empty() ? "" : ", ") + std::string(name);
  }
  return text;
}

BuildResult Build(const ir::IRModule& module, const Target& target, const BuildOptions& options) {
  BuildResult result;
  if (target.is_cuda()) return BuildCuda(module, target, options);
  if (target.kind != "llvm") {
    result.diagnostics.Add(Diagnostic::Error("Build: target kind '" + target.kind + "' cannot be built"));
    return result;
  }
  std::string text = options.pipeline.empty() ? DefaultLoweringPipeline() : options.pipeline;
  ir::IRModule lowered = module;
  try {
    if (options.default_schedule) {
      // Through a Sequential, so that a PassContext disabling the pass is obeyed here too.
      lowered = ir::Sequential({transform::ApplyDefaultSchedule(target.str())},
                               "DefaultSchedule")(lowered);
    }
    if (!text.empty()) {
      auto pipeline = transform::BuildPipeline(text, result.diagnostics);
      if (!pipeline) return result;
      lowered = (*pipeline)(lowered);
    }
    lowered = transform::MakePackedAPI()(lowered);
    result.lowered = lowered;
    result.module = CodegenLLVM(lowered, target, options.debug_lines, options.object_only);
  } catch (const DiagnosticError& e) {
    result.diagnostics.Add(e.diagnostic());
  } catch (const CodegenError& e) {
    result.diagnostics.Add(Diagnostic::Error(std::string("codegen: ") + e.what()));
  }
  return result;
}

}  // namespace wb::codegen
