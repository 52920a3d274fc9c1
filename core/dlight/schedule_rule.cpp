#include "dlight/schedule_rule.h"

#include <stdexcept>

#include "tir/functor.h"

namespace wb::dlight {

ir::IRModule SingleFunctionModule(const tir::PrimFunc& func) {
  return ir::MakeIRModule({ir::MakeGlobalVar("main")}, {func});
}

std::optional<AppliedRule> ApplyRules(const tir::PrimFunc& func, const codegen::Target& target,
                                      const std::vector<ScheduleRule>& rules) {
  for (const ScheduleRule& rule : rules) {
    try {
      if (std::optional<schedule::Schedule> sch = rule.apply(func, target)) {
        return AppliedRule{rule.name, std::move(*sch)};
      }
    } catch (const schedule::ScheduleError&) {
      // A precondition a primitive checks does not hold: the rule does not apply.
    } catch (const std::invalid_argument&) {
      // A handle the rule expected is gone (a block inlined away): likewise.
    }
  }
  return std::nullopt;
}

std::string RecipeFor(const AppliedRule& applied, const std::string& func_name) {
  schedule::Trace renamed;
  for (schedule::Instruction inst : applied.schedule.trace().instructions()) {
    for (schedule::TraceArg& arg : inst.args) {
      if (inst.method == "get_sblock" && arg.key == "func_name")
        arg.value = schedule::TraceValue::String(func_name);
    }
    renamed.Append(std::move(inst));
  }
  return renamed.AsPython();
}

bool IsScheduled(const tir::PrimFunc& func) {
  if (const ir::Object* attr = func->GetAttr("tir.is_scheduled")) {
    if (auto* b = dynamic_cast<const ir::BoolObj*>(attr)) return b->value;
    if (auto* i = dynamic_cast<const ir::IntObj*>(attr)) return i->value != 0;
  }
  bool scheduled = false;
  tir::PostOrderVisit(func->body, [&](const ir::Object* node) {
    if (auto* loop = dynamic_cast<const tir::ForNode*>(node))
      scheduled |= loop->kind != tir::ForKind::kSerial;
  });
  return scheduled;
}

}  // namespace wb::dlight
