#include "workbench/changed_functions.h"

#include <algorithm>


namespace wb::workbench {

std::vector<FunctionDiff> DiffFunctions(const ir::IRModule& before, const ir::IRModule& after) {
  std::vector<FunctionDiff> out;
  if (!before.defined() || !after.defined()) return out;
  for (size_t i = 0; i < before->functions.size(); ++i) {
    const std::string& name = before->global_vars[i]->name_hint;
    ir::BaseFunc other = after->Lookup(name);
    if (!other.defined()) {
      out.push_back({name, FunctionDiff::Kind::kOnlyBefore, {}});
    } else if (auto mismatch = ir::FindFirstMismatch(before->functions[i], other)) {
      out.push_back({name, FunctionDiff::Kind::kChanged, std::move(*mismatch)});
    }
  }
  for (size_t i = 0; i < after->functions.size(); ++i) {
    const std::string& name = after->global_vars[i]->name_hint;
    if (!before->Lookup(name).defined()) out.push_back({name, FunctionDiff::Kind::kOnlyAfter, {}});
  }
  return out;
}

std::vector<std::string> ChangedFunctions(const ir::IRModule& before, const ir::IRModule& after) {
  std::vector<std::string> out;
  for (const FunctionDiff& diff : DiffFunctions(before, after)) out.push_back(diff.name);
  return out;
}

ir::IRModule OnlyFunctions(const ir::IRModule& module, const std::vector<std::string>& names) {
  if (!module.defined()) return module;
  std::vector<ir::GlobalVar> vars;
  std::vector<ir::BaseFunc> funcs;
  for (size_t i = 0; i < module->functions.size(); ++i) {
    if (std::find(names.begin(), names.end(), module->global_vars[i]->name_hint) == names.end()) continue;
    vars.push_back(module->global_vars[i]);
    funcs.push_back(module->functions[i]);
  }
  return ir::WithFunctions(module, std::move(vars), std::move(funcs));
}

}  // namespace wb::workbench
