#include "meta_schedule/apply.h"

#include <filesystem>
#include <memory>

#include "dlight/cpu/rules.h"
#include "dlight/schedule_rule.h"
#include "meta_schedule/task.h"
#include "schedule/recipe.h"
#include "tir/transform.h"
#include "transform/registry.h"

namespace wb::meta_schedule {

namespace {

// The function scheduled by the tuner's verified choice when there is one, else by its fastest
// record that replays; nullopt when there is neither, or when the verified choice is the function
// as written (so that the default applies).
std::optional<tir::PrimFunc> FromDatabase(const tir::PrimFunc& func, const std::string& name, const JSONDatabase& db,
                    const codegen::Target& target, std::vector<std::string>* warnings) {
  tir::PrimFunc workload = WorkloadFunc(func);
  std::optional<size_t> w = db.FindWorkload(workload);
  if (!w) return std::nullopt;
  const std::string key = DatabaseTarget(target);

  auto replay = [&](const TuningRecord& r, const char* file) -> std::optional<tir::PrimFunc> {
    schedule::Schedule sch(dlight::SingleFunctionModule(workload));
    DiagnosticList diags = schedule::ApplyRecipe(sch, r.trace, db.dir() + "/" + file);
    if (!diags.empty()) {
      warnings->push_back(name + ": a record does not replay: " + diags[0].message);
      return std::nullopt;
    }
    return sch.Func();
  };
  if (std::optional<TuningRecord> v = db.Verified(*w, key)) {
    // An empty trace: the function as written won (there was no default rule to apply).
    if (v->trace.empty()) return std::nullopt;
    if (std::optional<tir::PrimFunc> f = replay(*v, "database_verified.json")) return f;
  }
  for (const TuningRecord& r : db.TopK(*w, key, 8)) {
    if (std::optional<tir::PrimFunc> f = replay(r, "database_tuning_record.json")) return f;
  }
  return std::nullopt;
}

tir::PrimFunc WithAttrsOf(tir::PrimFunc scheduled, const tir::PrimFunc& func) {
  scheduled.CopyOnWrite()->attrs = func->attrs;
  scheduled.CopyOnWrite()->attrs["tir.is_scheduled"] = ir::MakeBool(true);
  return scheduled;
}

}  // namespace

AppliedDatabase ApplyDatabase(const ir::IRModule& module, const JSONDatabase& db,
                              const codegen::Target& target) {
  AppliedDatabase out;
  ExtractedTasks fused = ExtractTasks(module);
  if (!fused.module.defined()) {
    out.error = fused.error;
    return out;
  }
  ir::IRModule result = fused.module;
  for (size_t i = 0; i < fused.module->size(); ++i) {
    auto func = fused.module->functions[i].as_ref<tir::PrimFuncNode>();
    if (!func.defined() || dlight::IsScheduled(func)) continue;
    const std::string& name = fused.module->global_vars[i]->name_hint;
    std::optional<tir::PrimFunc> scheduled = FromDatabase(func, name, db, target, &out.warnings);
    if (scheduled) {
      out.applied.push_back(name);
    } else {
      std::optional<dlight::AppliedRule> applied =
          target.kind == "llvm" ? dlight::ApplyRules(func, target, dlight::cpu::DefaultRules())
                                : std::nullopt;
      if (!applied) continue;
      scheduled = applied->schedule.Func();
      out.defaulted.push_back(name);
    }
    result = ir::WithFunction(result, fused.module->global_vars[i], WithAttrsOf(*scheduled, func));
  }
  out.module = result;
  return out;
}

ir::Pass MetaScheduleApplyDatabase(std::string work_dir, std::string target_text) {
  // Opened once, on first use, and shared by the copies of the pass.
  auto db = std::make_shared<std::optional<JSONDatabase>>();
  return tir::CreatePrimFuncPass(
      [=](tir::PrimFunc f, const ir::IRModule&, const ir::PassContext&) {
        if (dlight::IsScheduled(f)) return f;
        std::string error;
        if (!*db) {
          if (!std::filesystem::is_directory(work_dir)) {
            throw ir::PassError(Diagnostic::Error("MetaScheduleApplyDatabase: work_dir '" + work_dir +
                                                  "' is not a directory"));
          }
          *db = JSONDatabase::Open(work_dir, &error);
          if (!*db) throw ir::PassError(Diagnostic::Error("MetaScheduleApplyDatabase: " + error));
        }
        std::optional<codegen::Target> target =
            target_text.empty() ? codegen::Target::Host() : codegen::ParseTarget(target_text, &error);
        if (!target) {
          throw ir::PassError(Diagnostic::Error("MetaScheduleApplyDatabase: target '" + target_text + "': " + error));
        }
        std::vector<std::string> warnings;
        std::optional<tir::PrimFunc> scheduled = FromDatabase(f, "", **db, *target, &warnings);
        return scheduled ? WithAttrsOf(*scheduled, f) : f;
      },
      0, "MetaScheduleApplyDatabase");
}

static transform::PassRegistrar registrar(
    {"MetaScheduleApplyDatabase",
     "schedules every PrimFunc that has a tuning record for the target in work_dir by its "
     "fastest record (the others are left for ApplyDefaultSchedule)",
     {{"work_dir", transform::ParamType::kString, ir::MakeString(""), "the tuning database"},
      {"target", transform::ParamType::kString, ir::MakeString(""),
       "the target text the records were measured for (empty: the host)"}},
     [](const transform::PassArgs& args) {
       return MetaScheduleApplyDatabase(args.String("work_dir"), args.String("target"));
     }});

}  // namespace wb::meta_schedule
