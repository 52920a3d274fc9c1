#include "dlight/schedule_rule.h"

#include <stdexcept>

#include "dlight/analysis.h"
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

namespace {

// Block annotations a compute definition carries (TOPI's softmax and log_softmax say their
// axis, as TVM's do; "schedule_rule" names a custom rule): not a sign of a schedule. Any other
// annotation was put there by a schedule (sch.annotate, a tuner, a pipeline).
bool HasScheduleAnnotation(const tir::SBlock& block) {
  for (const auto& [key, value] : block->annotations) {
    if (key != "axis" && key != "schedule_rule") return true;
  }
  return false;
}

// Finds the first sign of a schedule in a function body (IsScheduled's rule).
class ScheduleSigns : public tir::StmtVisitor {
 public:
  bool found = false;

  void VisitStmt_(const tir::ForNode* op) override {
    if (op->kind != tir::ForKind::kSerial || !op->annotations.empty()) found = true;
    loops_.push_back(op);
    tir::StmtVisitor::VisitStmt_(op);
    loops_.pop_back();
  }
  void VisitStmt_(const tir::SBlockRealizeNode* op) override {
    if (found) return;
    if (depth_ == 0) {
      // The root block: its children are the blocks to check.
      std::vector<const tir::ForNode*> outside;
      std::swap(outside, loops_);
      ++depth_;
      tir::StmtVisitor::VisitStmt_(op);
      --depth_;
      std::swap(outside, loops_);
      return;
    }
    if (depth_ > 1 || HasScheduleAnnotation(op->block) || !IsSimpleNest(op, loops_)) {
      found = true;
      return;
    }
    std::vector<const tir::ForNode*> outside;
    std::swap(outside, loops_);
    ++depth_;
    tir::StmtVisitor::VisitStmt_(op);
    --depth_;
    std::swap(outside, loops_);
  }

 private:
  int depth_ = 0;
  std::vector<const tir::ForNode*> loops_;
};

}  // namespace

bool IsScheduled(const tir::PrimFunc& func) {
  if (const ir::Object* attr = func->GetAttr("tir.is_scheduled")) {
    if (auto* b = dynamic_cast<const ir::BoolObj*>(attr)) return b->value;
    if (auto* i = dynamic_cast<const ir::IntObj*>(attr)) return i->value != 0;
  }
  ScheduleSigns signs;
  signs(func->body);
  return signs.found;
}

}  // namespace wb::dlight
