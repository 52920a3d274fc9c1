#include "transform/tir/apply_default_schedule.h"

#include "codegen/target.h"
#include "dlight/cpu/rules.h"
#include "dlight/gpu/rules.h"
#include "tir/transform.h"
#include "transform/pass_control.h"
#include "transform/registry.h"

namespace wb::transform {

namespace {

codegen::Target ResolveTarget(const std::string& text, const ir::PassContext& context) {
  std::string chosen = text;
  if (chosen.empty()) {
    if (auto* s = dynamic_cast<const ir::StringObj*>(
            context.GetConfig("ApplyDefaultSchedule", "target"))) {
      chosen = s->value;
    }
  }
  if (chosen.empty()) return codegen::Target::Host();
  std::string error;
  std::optional<codegen::Target> target = codegen::ParseTarget(chosen, &error);
  if (!target)
    throw ir::PassError(
        Diagnostic::Error("ApplyDefaultSchedule: target '" + chosen + "': " + error));
  return *target;
}

}  // namespace

ir::Pass ApplyDefaultSchedule(std::string target_text) {
  return tir::CreatePrimFuncPass(
      [target_text](tir::PrimFunc f, const ir::IRModule&, const ir::PassContext& context) {
        if (dlight::IsScheduled(f)) return f;
        codegen::Target target = ResolveTarget(target_text, context);
        const bool gpu = target.is_cuda();
        if (target.kind != "llvm" && !gpu) return f;
        std::optional<dlight::AppliedRule> applied = dlight::ApplyRules(
            f, target, gpu ? dlight::gpu::DefaultRules() : dlight::cpu::DefaultRules());
        if (!applied || applied->schedule.trace().instructions().empty()) return f;
        tir::PrimFunc scheduled = applied->schedule.Func();
        scheduled.CopyOnWrite()->attrs["tir.is_scheduled"] = ir::MakeBool(true);
        return scheduled;
      },
      0, "ApplyDefaultSchedule");
}

static PassConfigRegistrar config_registrar(
    {"ApplyDefaultSchedule",
     "the target ApplyDefaultSchedule schedules for when its own argument is empty",
     {{"target", ParamType::kString, ir::MakeString(""),
       "target text or tag (empty: this CPU)"}}});

static PassRegistrar registrar(
    {"ApplyDefaultSchedule",
     "schedules every PrimFunc without a schedule by the first rule of core/dlight that "
     "applies: the CPU rules (Matmul, Reduction, Injective, Fallback) for llvm, the GPU rules "
     "(Matmul, Elementwise) for cuda; codegen::Build runs it too for CPU targets unless its "
     "default_schedule option is off",
     {{"target", ParamType::kString, ir::MakeString(""),
       "the target text (empty: the pass context's, else the host)"}},
     [](const PassArgs& args) { return ApplyDefaultSchedule(args.String("target")); }});

}  // namespace wb::transform
