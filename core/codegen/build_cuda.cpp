#include "codegen/build_cuda.h"

#include <algorithm>

#include "codegen/cuda/codegen_cuda.h"
#include "runtime/cuda/cuda_device_api.h"
#include "runtime/cuda/cuda_module.h"
#include "tir/stmt.h"
#include "transform/registry.h"
#include "transform/tir/make_packed_api.h"

namespace wb::codegen {

namespace {

// TVM's CallingConv::kDeviceKernelLaunch.
constexpr int64_t kCallingConvDeviceKernelLaunch = 2;

bool IsDeviceKernel(const ir::BaseFunc& func) {
  const ir::Object* cc = func->GetAttr("calling_conv");
  return cc && ir::IsInstance<ir::IntObj>(cc) &&
         static_cast<const ir::IntObj*>(cc)->value == kCallingConvDeviceKernelLaunch;
}

// `func` with attribute `key` set to `value`.
ir::BaseFunc WithAttr(const ir::BaseFunc& func, const std::string& key, ir::ObjectRef value) {
  ir::Object* copy = func->Clone();
  static_cast<ir::BaseFuncNode*>(copy)->attrs[key] = std::move(value);
  return ir::BaseFunc(static_cast<ir::BaseFuncNode*>(copy));
}

// The PrimFuncs tagged with the target (TVM's "target" attribute), which the GPU passes and
// MakePackedAPI (the tensors' device) read; functions that name their own target keep it.
ir::IRModule WithTarget(const ir::IRModule& module, const Target& target, bool overwrite) {
  std::vector<ir::BaseFunc> funcs = module->functions;
  for (auto& f : funcs) {
    if (!f.as_ref<tir::PrimFuncNode>().defined()) continue;
    if (!overwrite && f->GetAttr("target")) continue;
    f = WithAttr(f, "target", ir::MakeString(target.str()));
  }
  return ir::MakeIRModule(module->global_vars, std::move(funcs), module->attrs, module->span);
}

// Registered with the target parser: a bare `cuda` target takes the present GPU's arch.
[[maybe_unused]] const bool kDetectorRegistered = [] {
  SetCudaArchDetector([] { return runtime::cuda::DetectArch(0); });
  return true;
}();

}  // namespace

ir::IRModule LowerCuda(const ir::IRModule& module, const Target& target,
                       DiagnosticList& diagnostics) {
  static const std::optional<ir::Pass> pipeline = []() -> std::optional<ir::Pass> {
    if (!transform::PassRegistry::Global().FindPipeline(kCudaLoweringPipeline)) return std::nullopt;
    DiagnosticList ignored;
    return transform::BuildPipeline(kCudaLoweringPipeline, ignored);
  }();
  if (!pipeline) {
    diagnostics.Add(Diagnostic::Error(std::string("cannot build for ") + target.str() +
                                      ": the GPU lowering pipeline '" + kCudaLoweringPipeline +
                                      "' is not registered (pipeline not registered: it comes with "
                                      "the GPU lowering passes, SplitHostDevice "
                                      "and LowerDeviceKernelLaunch)"));
    return {};
  }
  return (*pipeline)(WithTarget(module, target, /*overwrite=*/false));
}

BuildResult BuildCuda(const ir::IRModule& module, const Target& target, const BuildOptions& options) {
  BuildResult result;
  std::string text = options.pipeline;
  // A module that already holds kernels is already lowered and split (hand-written, or the
  // output of an earlier pipeline run): lowering it again would split the host code anew.
  if (text.empty() && std::any_of(module->functions.begin(), module->functions.end(), IsDeviceKernel)) {
    text = kNoLowering;
  }
  try {
    ir::IRModule lowered = WithTarget(module, target, /*overwrite=*/false);
    if (text.empty()) {
      lowered = LowerCuda(module, target, result.diagnostics);
      if (!lowered.defined()) return result;
    } else if (text != kNoLowering) {
      auto pipeline = transform::BuildPipeline(text, result.diagnostics);
      if (!pipeline) return result;
      lowered = (*pipeline)(lowered);
    }

    std::vector<ir::GlobalVar> host_vars, device_vars;
    std::vector<ir::BaseFunc> host_funcs, device_funcs;
    for (size_t i = 0; i < lowered->functions.size(); ++i) {
      bool device = IsDeviceKernel(lowered->functions[i]);
      (device ? device_vars : host_vars).push_back(lowered->global_vars[i]);
      (device ? device_funcs : host_funcs).push_back(lowered->functions[i]);
    }
    ir::IRModule device = ir::MakeIRModule(device_vars, device_funcs, lowered->attrs);
    // The host functions take cuda tensors, whatever host target the split gave them.
    ir::IRModule host = WithTarget(ir::MakeIRModule(host_vars, host_funcs, lowered->attrs), target, true);
    host = transform::MakePackedAPI()(host);
    {
      std::vector<ir::GlobalVar> vars = host->global_vars;
      std::vector<ir::BaseFunc> funcs = host->functions;
      vars.insert(vars.end(), device_vars.begin(), device_vars.end());
      funcs.insert(funcs.end(), device_funcs.begin(), device_funcs.end());
      result.lowered = ir::MakeIRModule(std::move(vars), std::move(funcs), lowered->attrs);
    }

    runtime::Module device_module;
    if (!device_funcs.empty()) {
      std::string arch = target.arch.empty() ? "sm_90" : target.arch;
      CudaSource source = CodegenCUDA(device, arch);
      NvrtcResult ptx = NvrtcCompile(source.code, arch, "ptx");
      if (!ptx.ok()) {
        result.diagnostics.Add(Diagnostic::Error("NVRTC could not compile the generated CUDA C for " + arch +
                                                 ":\n" + ptx.log));
        return result;
      }
      std::vector<runtime::cuda::CudaFunctionInfo> infos;
      for (const auto& k : source.kernels) infos.push_back({k.name, k.arg_dtypes, k.launch_param_tags});
      device_module = runtime::cuda::CudaModuleCreate(std::string(ptx.binary.begin(), ptx.binary.end()), "ptx",
                                                      std::move(infos), {{"cuda", source.code}});
    }
    Target host_target = target.host ? *target.host : Target::Host();
    runtime::Module host_module = CodegenLLVM(host, host_target);
    if (device_module.defined()) host_module->Import(device_module.node());
    result.module = host_module;
  } catch (const DiagnosticError& e) {
    result.diagnostics.Add(e.diagnostic());
  } catch (const CodegenError& e) {
    result.diagnostics.Add(Diagnostic::Error(std::string("codegen: ") + e.what()));
  } catch (const runtime::Error& e) {
    result.diagnostics.Add(Diagnostic::Error(std::string("CUDA module: ") + e.what()));
  }
  return result;
}

size_t CountCudaKernels(const runtime::Module& built) {
  if (!built.defined()) return 0;
  size_t n = 0;
  for (const auto& m : built->imports()) {
    if (m->type_key() == "cuda") n += m->FunctionNames().size();
  }
  return n;
}

}  // namespace wb::codegen
