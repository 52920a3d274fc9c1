#include "meta_schedule/task.h"

#include <map>
#include <set>

#include "codegen/flop_count.h"
#include "dlight/schedule_rule.h"
#include "ir/structural_equal.h"
#include "ir/structural_hash.h"
#include "ir/transform.h"
#include "relax/expr.h"
#include "transform/registry.h"

namespace wb::meta_schedule {

namespace {

// Counts the call_tir call sites of each GlobalVar under a node, through every field (the
// reflection structural hashing uses), so that no expression kind is missed.
class CallTIRCounter : public ir::FieldVisitor {
 public:
  std::map<std::string, int> calls;

  void Walk(const ir::ObjectRef& ref) {
    if (!ref.defined()) return;
    ir::Object* node = const_cast<ir::Object*>(ref.get());
    if (!seen_.insert(node).second) return;
    if (auto* call = dynamic_cast<const relax::CallNode*>(node)) {
      auto* op = dynamic_cast<const ir::OpNode*>(call->op.get());
      if (op && (op->name == "relax.call_tir" || op->name == "relax.call_tir_inplace") &&
          !call->args.empty()) {
        if (auto* gv = dynamic_cast<const ir::GlobalVarNode*>(call->args[0].get())) {
          ++calls[gv->name_hint];
        }
      }
    }
    node->VisitFields(this);
  }
  void Visit(const char*, int64_t*, ir::FieldKind) override {}
  void Visit(const char*, double*, ir::FieldKind) override {}
  void Visit(const char*, bool*, ir::FieldKind) override {}
  void Visit(const char*, std::string*, ir::FieldKind) override {}
  void VisitBytes(const char*, std::string*, ir::FieldKind) override {}
  void Visit(const char*, ir::DataType*, ir::FieldKind) override {}
  void Visit(const char*, ir::ObjectRef* value, ir::FieldKind) override { Walk(*value); }
  void Visit(const char*, std::vector<ir::ObjectRef>* value, ir::FieldKind) override {
    for (const auto& v : *value) Walk(v);
  }
  void Visit(const char*, ir::AttrMap* value, ir::FieldKind) override {
    for (const auto& [k, v] : *value) Walk(v);
  }

 private:
  std::set<const ir::Object*> seen_;
};

void AddTask(std::vector<TuneTask>& tasks, const std::string& name, const tir::PrimFunc& written,
             int weight) {
  tir::PrimFunc func = WorkloadFunc(written);
  uint64_t hash = ir::StructuralHash(func);
  for (TuneTask& t : tasks) {
    if (t.shash == hash && ir::StructuralEqual(t.func, func)) {
      t.weight += weight;
      t.functions.push_back(name);
      return;
    }
  }
  TuneTask task;
  task.name = name;
  task.func = func;
  task.shash = hash;
  task.weight = weight;
  task.functions = {name};
  task.flops = codegen::CountFlops(func).value_or(0);
  tasks.push_back(std::move(task));
}

}  // namespace

tir::PrimFunc WorkloadFunc(const tir::PrimFunc& func) {
  if (!func->attrs.count("global_symbol")) return func;
  tir::PrimFunc out = func;
  out.CopyOnWrite()->attrs.erase("global_symbol");
  return out;
}

ExtractedTasks ExtractTasks(const ir::IRModule& module) {
  ExtractedTasks out;
  bool relax = false;
  for (const auto& f : module->functions) relax |= f.as<relax::FunctionNode>() != nullptr;
  out.module = module;
  if (relax) {
    DiagnosticList diags;
    std::optional<ir::Pass> pipeline = transform::BuildPipeline(kTaskPipeline, diags);
    if (!pipeline) {
      out.error = "the task pipeline does not build: " + RenderDiagnostics(diags);
      out.module = {};
      return out;
    }
    try {
      out.module = (*pipeline)(module);
    } catch (const DiagnosticError& e) {
      out.error = "fusing the module into kernels failed: " + e.diagnostic().message;
      out.module = {};
      return out;
    } catch (const std::exception& e) {
      out.error = std::string("fusing the module into kernels failed: ") + e.what();
      out.module = {};
      return out;
    }
  }
  CallTIRCounter counter;
  if (relax) {
    for (const auto& f : out.module->functions) {
      if (f.as<relax::FunctionNode>()) counter.Walk(f);
    }
  }
  for (size_t i = 0; i < out.module->size(); ++i) {
    auto func = out.module->functions[i].as_ref<tir::PrimFuncNode>();
    if (!func.defined()) continue;
    const std::string& name = out.module->global_vars[i]->name_hint;
    int weight = 1;
    if (relax) {
      auto it = counter.calls.find(name);
      if (it == counter.calls.end()) continue;
      weight = it->second;
    } else if (dlight::IsScheduled(func)) {
      continue;
    }
    AddTask(out.tasks, name, func, weight);
  }
  if (out.tasks.empty()) out.error = "the module has no PrimFunc to tune";
  return out;
}

}  // namespace wb::meta_schedule
